"""Real TypeScript clients (strict: a warning fails the turn) and media: ``@ag-ui/client``
1.0.0 accepts content parts (inline, and by reference to the media route) and activities; 0.0.59
gets text and no activity. The server keeps its threads in SQLite; the real runner."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx
import pytest
from agents import (
    Agent,
    RunConfig,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
    set_tracing_disabled,
)

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.e2e import ensure_node_modules, node_available, run_client, serve_app, turn_errors
from support.http import app_with
from support.scripted import (
    Call,
    Hosted,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not node_available(), reason="real-client e2e checks need Node >= 18 and npm on PATH"
    ),
]
set_tracing_disabled(True)

BIG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 1200  # 400 KiB of base64: by reference
BIG_URL = "data:image/png;base64," + base64.b64encode(BIG).decode()
SMALL = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x02" * 32).decode()


@function_tool
def draw(topic: str) -> list[ToolOutputText | ToolOutputImage]:
    """Draw a large chart and a thumbnail."""
    thumbnail = ToolOutputImage(image_url=f"data:image/png;base64,{SMALL}")
    return [ToolOutputText(text=f"Chart of {topic}"), ToolOutputImage(image_url=BIG_URL), thumbnail]


def decide(call: RecordedCall) -> Turn:
    users = [i for i, item in enumerate(call.input) if item.get("role") == "user"]
    turn = len(users)
    if any(item.get("type") == "function_call_output" for item in call.input[users[-1] :]):
        return Turn([Text(f"Chart {turn} drawn.", id=f"msg_{turn}")])
    search = Hosted("web_search_call", id=f"ws_{turn}", query="sales")
    return Turn([search, Call("draw", {"topic": "sales"}, call_id=f"call_{turn}", id=f"fc_{turn}")])


def _parts(turn: dict[str, Any]) -> list[Any]:
    results = [e for e in turn["events"] if e["type"] == "TOOL_CALL_RESULT"]
    return [e["content"] for e in results if e["toolCallId"] == "call_1"]


@pytest.mark.parametrize("client", ["v1", "v0"])
def test_real_clients_and_media(tmp_path: Path, client: str) -> None:
    ensure_node_modules()
    model = ScriptedResponsesModel(decide, model_name="scripted-media-e2e")
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapper = OpenAIAgentsAgent(
        Agent(name="artist", tools=[draw]),
        run_config=config,
        threads=store,
        thread_key=lambda thread_id, request: thread_id,
    )
    scenario = {"strict": True, "threadId": "media-e2e", "turns": [{"user": "Chart sales"}]}
    scenario["turns"].append({"user": "Again"})
    with serve_app(app_with(wrapper)) as base_url:
        result = run_client(client, {**scenario, "url": f"{base_url}/agent"})  # type: ignore[arg-type]
        assert result["ok"], turn_errors(result)
        first, second = result["turns"]
        (content,) = _parts(first)
        activities = [e for e in first["events"] if e["type"].startswith("ACTIVITY_")]
        if client == "v0":
            assert isinstance(content, str) and BIG_URL in content
            assert activities == []
        else:
            text, big, small = content
            assert text == {"type": "text", "text": "Chart of sales"}
            assert small["source"] == {"type": "data", "value": SMALL, "mimeType": "image/png"}
            assert big["source"]["type"] == "url" and big["source"]["mimeType"] == "image/png"
            assert big["source"]["value"].startswith("/agent/media/")
            served = httpx.get(base_url + big["source"]["value"])
            assert (served.status_code, served.content) == (200, BIG)
            assert [e["activityType"] for e in activities][:1] == ["web_search"]
            held = [m for m in first["messages"] if m["role"] == "activity"]
            assert [m["content"]["status"] for m in held] == ["completed"]
        assert second["outcome"]["type"] == "success"
    outputs = [
        i["output"] for i in model.calls[-1].input if i.get("type") == "function_call_output"
    ]
    seen = [
        {"type": "input_text", "text": "Chart of sales"},
        {"type": "input_image", "image_url": BIG_URL},
        {"type": "input_image", "image_url": f"data:image/png;base64,{SMALL}"},
    ]
    assert outputs == [seen, seen]  # both charts, exactly as the model first saw them
