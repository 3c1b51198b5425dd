"""Media parts and activities kept in a thread: stored with the turn, restated on reload, and
the model given exactly what it first saw on the next turn. Both request kinds, the real runner,
a real SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import ActivityMessage, ImagePart, ToolMessage
from agents import Agent, RunConfig, ToolOutputImage, function_tool, set_tracing_disabled

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.scripted import (
    Call,
    Hosted,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)
from support.threads import PROTOCOLS, Conversation, by_thread_id

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

PNG_URL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
SEEN = [{"type": "input_image", "image_url": PNG_URL, "detail": "low"}]


@function_tool
def draw(topic: str) -> ToolOutputImage:
    """Draw a chart."""
    return ToolOutputImage(image_url=PNG_URL, detail="low")


def decide(call: RecordedCall) -> Turn:
    """Search and draw for each new user message; answer once the chart is back."""
    users = [i for i, item in enumerate(call.input) if item.get("role") == "user"]
    turn = len(users)
    latest = call.input[users[-1] :]
    if any(item.get("type") == "function_call_output" for item in latest):
        return Turn([Text(f"Chart {turn} drawn.", id=f"msg_done_{turn}")])
    search = Hosted("web_search_call", id=f"ws_{turn}", query="sales")
    chart = Call("draw", {"topic": "sales"}, call_id=f"call_draw_{turn}", id=f"fc_{turn}")
    return Turn([search, chart])


def wrapper(store: SQLiteThreadStore) -> tuple[OpenAIAgentsAgent, ScriptedResponsesModel]:
    model = ScriptedResponsesModel(decide, model_name="scripted-media")
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = Agent(name="artist", tools=[draw])
    wrapped = OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)
    return wrapped, model


def _outputs(call: RecordedCall) -> list[Any]:
    return [item["output"] for item in call.input if item.get("type") == "function_call_output"]


async def test_parts_and_activities_are_kept_and_replayed(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    agent, model = wrapper(store)
    chat = Conversation(agent, version)
    await chat.say("Chart sales", "user-1")
    shown = list(chat.shown)
    (result,) = [m for m in shown if isinstance(m, ToolMessage) and m.tool_call_id == "call_draw_1"]
    activities = [m for m in shown if isinstance(m, ActivityMessage)]
    if version is None:
        assert isinstance(result.content, str) and activities == []
    else:
        assert [type(p) for p in result.content] == [ImagePart]
        assert [(a.id, a.activity_type, a.content["status"]) for a in activities] == [
            ("ws_1-activity", "web_search", "completed")
        ]

    reloaded = Conversation(agent, version, thread_id=chat.thread_id, runs=5)
    run = await reloaded.send(reloaded.request([]), history=shown)
    assert run.snapshot == shown  # the store gives back what the client was shown

    await chat.say("Again", "user-2")
    assert _outputs(model.calls[-1]) == [SEEN, SEEN]  # both charts, as the model saw them
