"""A resumed approval's output with media is shown as a result of the run loop is: content parts
for a 1.0 client, the JSON text for an older one; the next model call gets the very items either
way. The real runner, stateless and with a thread store, both request kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    DataSource,
    ImagePart,
    RunFinishedEvent,
    TextPart,
    ToolCallResultEvent,
    ToolMessage,
)
from agents import (
    Agent,
    RunConfig,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
    set_tracing_disabled,
)

from ag_ui_openai_agents import Approvals, OpenAIAgentsAgent
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)
from support.signed_approvals import approve
from support.threads import PROTOCOLS, Conversation, by_thread_id

set_tracing_disabled(True)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
SEEN = [
    {"type": "input_text", "text": "Chart of refunds"},
    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "low"},
]


@function_tool(needs_approval=True)
def chart_refunds() -> list[ToolOutputText | ToolOutputImage]:
    """Chart the refunds (costly: needs approval)."""
    image = ToolOutputImage(image_url=f"data:image/png;base64,{PNG}", detail="low")
    return [ToolOutputText(text="Chart of refunds"), image]


def decide(call: RecordedCall) -> Turn:
    if any(item.get("type") == "function_call_output" for item in call.input):
        return Turn([Text("Here it is.", id="msg_done")])
    return Turn([Call("chart_refunds", {}, call_id="call_chart", id="fc_chart")])


def _wrapper(threads: bool, tmp_path: Path) -> tuple[OpenAIAgentsAgent, ScriptedResponsesModel]:
    model = ScriptedResponsesModel(decide, model_name="scripted-resume-media")
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    options: dict[str, Any] = {"approvals": Approvals(unsigned=True)}
    if threads:
        options.update(threads=SQLiteThreadStore(tmp_path / "t.db"), thread_key=by_thread_id)
    agent = Agent(name="refunds", tools=[chart_refunds])
    return OpenAIAgentsAgent(agent, run_config=config, **options), model


@pytest.mark.parametrize("threads", [False, True], ids=["stateless", "threads"])
@pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])
async def test_a_resumed_output_with_media(
    tmp_path: Path, version: str | None, threads: bool
) -> None:
    wrapper, model = _wrapper(threads, tmp_path)
    chat = Conversation(wrapper, version)
    paused = await chat.say("Chart the refunds", "user-1", resend=not threads)
    finished = paused.events[-1]
    assert isinstance(finished, RunFinishedEvent)
    (interrupt,) = finished.outcome.interrupts  # type: ignore[union-attr]

    sent = chat.shown if not threads else []
    resumed = await chat.send(chat.request(sent, resume=[approve(interrupt.id)]))

    (result,) = [e for e in resumed.events if isinstance(e, ToolCallResultEvent)]
    (message,) = [m for m in chat.shown if isinstance(m, ToolMessage)]
    if version is None:
        assert isinstance(result.content, str) and '"input_image"' in result.content
    else:
        text, image = result.content
        assert isinstance(text, TextPart) and text.text == "Chart of refunds"
        assert isinstance(image, ImagePart)
        assert image.source == DataSource(value=PNG, mime_type="image/png")
        assert image.metadata == {"detail": "low", "openai": {"v": 1}}
    assert message.content == result.content  # the snapshot restates the result
    outputs = [
        i["output"] for i in model.calls[-1].input if i.get("type") == "function_call_output"
    ]
    assert outputs == [SEEN]
    assert resumed.text == "Here it is."
