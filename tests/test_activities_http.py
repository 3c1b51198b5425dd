"""Hosted tools' live progress as ACTIVITY events, and tool results with media, through the SDK's
real `OpenAIResponsesModel` over HTTP (the local wire server, event shapes checked against the
installed `openai` types), on both request kinds: a 1.0 client gets an activity per hosted call,
a client older than 1.0 none."""

from __future__ import annotations

import json
from typing import Any, get_args

import jsonpatch
import pytest
from ag_ui.core import (
    ActivityDeltaEvent,
    ActivityMessage,
    ActivitySnapshotEvent,
    DataSource,
    ImagePart,
    TextPart,
    ToolCallResultEvent,
)
from agents import Agent, ModelSettings, OpenAIResponsesModel, ToolOutputImage, function_tool
from openai.types.responses import ResponseStreamEvent
from pydantic import BaseModel

from support.runs import AguiRun, request, user
from support.wire_responses import (
    WireItem,
    code_interpreter_call,
    file_search_call,
    function_call,
    image_generation_call,
    mcp_call,
    message,
    reasoning,
    responses_body,
    web_search_call,
)
from support.wire_server import WireServer, run_wire

KINDS = ["1.0", None]
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"
    "hQGAhKmMIQAAAABJRU5ErkJggg=="
)
CODE = "import math\nvalues = [math.sqrt(n) for n in range(10)]\nprint(sum(values))\n"
# Each Responses stream event class of the installed openai package, by its `type`.
_EVENTS: dict[str, type[BaseModel]] = {
    get_args(cls.model_fields["type"].annotation)[0]: cls
    for cls in get_args(get_args(ResponseStreamEvent)[0])
}


def _agent(server: WireServer, *tools: Any) -> Agent[Any]:
    model = OpenAIResponsesModel(model="gpt-5.5", openai_client=server.client())
    settings = ModelSettings(store=False, response_include=["reasoning.encrypted_content"])
    return Agent(name="assistant", model=model, model_settings=settings, tools=list(tools))


def _sse_events(body: bytes) -> list[dict[str, Any]]:
    return [
        json.loads(line[6:])
        for block in body.decode().split("\n\n")
        for line in block.splitlines()
        if line.startswith("data: ")
    ]


def _body(*items: WireItem) -> bytes:
    body = responses_body(
        "resp_1",
        [
            reasoning("rs_1", ["Working."], encrypted=("a", "b", "c")),
            *items,
            message("msg_1", "Done."),
        ],
    )
    for event in _sse_events(body):  # every event as the installed openai types define it
        _EVENTS[event["type"]].model_validate(event)
    return body


def _activities(run: AguiRun) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Each activity message: its type and its content after each event, in order."""
    seen: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for event in run.events:
        if isinstance(event, ActivitySnapshotEvent):
            assert event.message_id not in seen, "a second snapshot"
            seen[event.message_id] = (event.activity_type, [event.content])
        elif isinstance(event, ActivityDeltaEvent):
            kind, contents = seen[event.message_id]  # a delta follows its snapshot
            assert event.activity_type == kind
            ops = [op.model_dump(mode="json", by_alias=True) for op in event.patch]
            contents.append(jsonpatch.apply_patch(contents[-1], ops))
    return seen


async def _run(server: WireServer, kind: str | None, *items: WireItem, tools: Any = ()) -> AguiRun:
    server.queue(_body(*items))
    run = await run_wire(_agent(server, *tools), request(user("Go"), protocol_version=kind))
    assert run.error is None
    return run


def _only_activity(run: AguiRun) -> tuple[str, list[dict[str, Any]]]:
    (activity,) = _activities(run).values()
    (stored,) = [m for m in run.snapshot if isinstance(m, ActivityMessage)]
    assert stored.content == activity[1][-1]  # the snapshot restates the last content
    assert stored.activity_type == activity[0]
    return activity


async def test_a_client_before_1_0_gets_no_activity() -> None:
    server = WireServer()
    run = await _run(server, None, web_search_call("ws_1", "ag-ui protocol"))
    assert not any(isinstance(e, ActivitySnapshotEvent | ActivityDeltaEvent) for e in run.events)
    assert not any(isinstance(m, ActivityMessage) for m in run.snapshot)


async def test_web_search_shows_searching_then_its_queries_and_sources() -> None:
    run = await _run(WireServer(), "1.0", web_search_call("ws_1", "ag-ui protocol"))
    kind, contents = _only_activity(run)
    assert kind == "web_search"
    statuses = list(dict.fromkeys(c["status"] for c in contents))
    assert statuses == ["in_progress", "searching", "completed"]
    assert "queries" not in contents[1]  # queries arrive when the search is done
    assert contents[-1] == {
        "status": "completed",
        "action": "search",
        "queries": ["ag-ui protocol"],
        "sources": [{"url": "https://example.org/"}],
    }


async def test_file_search_shows_its_queries_and_results() -> None:
    results = [{"file_id": "file-1", "filename": "spec.md", "score": 0.9, "text": "AG-UI"}]
    run = await _run(WireServer(), "1.0", file_search_call("fs_1", ["what is ag-ui"], results))
    kind, contents = _only_activity(run)
    assert kind == "file_search"
    statuses = list(dict.fromkeys(c["status"] for c in contents))
    assert statuses == ["in_progress", "searching", "completed"]
    assert contents[-1]["queries"] == ["what is ag-ui"]
    assert contents[-1]["results"] == [
        {"fileId": "file-1", "filename": "spec.md", "score": 0.9, "text": "AG-UI"}
    ]


async def test_code_interpreter_streams_its_code_line_by_line_then_its_outputs() -> None:
    run = await _run(WireServer(), "1.0", code_interpreter_call("ci_1", CODE, "14.2\n"))
    kind, contents = _only_activity(run)
    assert kind == "code_interpreter"
    codes = [c.get("code", "") for c in contents]
    assert codes[-1] == CODE
    growing = [code for code in dict.fromkeys(codes) if code]
    assert len(growing) >= 3 and all(CODE.startswith(code) for code in growing)
    assert [c["status"] for c in contents][-1] == "completed"
    assert "interpreting" in [c["status"] for c in contents]
    assert contents[-1]["outputs"] == [{"type": "logs", "logs": "14.2\n"}]
    (result,) = run.of(ToolCallResultEvent)
    assert result.content == [TextPart(text='{"status": "completed"}'), TextPart(text="14.2\n")]


async def test_image_generation_shows_partial_images_then_the_image_as_a_result() -> None:
    run = await _run(WireServer(), "1.0", image_generation_call("ig_1", ["AAAA", "BBBB"], PNG))
    kind, contents = _only_activity(run)
    assert kind == "image_generation"
    partials = [c["partialImage"]["data"] for c in contents if "partialImage" in c]
    assert partials == ["AAAA", "BBBB"]
    assert contents[-1] == {"status": "completed"}  # the image is the result, not the activity
    (result,) = run.of(ToolCallResultEvent)
    assert result.content == [
        TextPart(text='{"status": "completed"}'),
        ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
    ]


async def test_mcp_call_shows_its_server_tool_and_output() -> None:
    run = await _run(WireServer(), "1.0", mcp_call("mcp_1", "docs", "search", '{"q": "x"}', "hit"))
    kind, contents = _only_activity(run)
    assert kind == "mcp_call"
    assert contents[0] == {"status": "in_progress", "serverLabel": "docs", "name": "search"}
    assert contents[-1] == {
        "status": "completed",
        "serverLabel": "docs",
        "name": "search",
        "output": "hit",
    }


@pytest.mark.parametrize("kind", KINDS)
async def test_the_next_request_drops_activities_and_replays_hosted_calls(kind: str | None) -> None:
    server = WireServer()
    items = [
        web_search_call("ws_1", "q"),
        code_interpreter_call("ci_1", CODE, "1\n"),
        image_generation_call("ig_1", ["AAAA"], PNG),
    ]
    run = await _run(server, kind, *items)
    server.queue(responses_body("resp_2", [message("msg_2", "Again.")]))
    history = [*run.snapshot, user("More", id="user-2")]
    second = await run_wire(
        _agent(server), request(*history, run_id="run-2", protocol_version=kind)
    )
    assert second.error is None
    sent = server.requests[1]["input"]
    kinds = [item.get("type") for item in sent if item.get("type") not in (None, "message")]
    assert kinds == [
        "reasoning",
        "web_search_call",
        "code_interpreter_call",
        "image_generation_call",
    ]
    assert [item for item in sent if item.get("type") == "function_call_output"] == []


@pytest.mark.parametrize("kind", KINDS)
async def test_a_tool_image_over_http_comes_back_as_the_model_saw_it(kind: str | None) -> None:
    @function_tool
    def chart(topic: str) -> ToolOutputImage:
        """Draw a chart."""
        return ToolOutputImage(image_url=f"data:image/png;base64,{PNG}", detail="high")

    server = WireServer()
    server.queue(
        responses_body("resp_1", [function_call("fc_1", "call_1", "chart", '{"topic": "x"}')]),
        responses_body("resp_2", [message("msg_1", "Here it is.")]),
        responses_body("resp_3", [message("msg_2", "Sure.")]),
    )
    agent = _agent(server, chart)
    run = await run_wire(agent, request(user("Chart"), protocol_version=kind))
    assert run.error is None
    (result,) = run.of(ToolCallResultEvent)
    assert isinstance(result.content, list) == (kind is not None)
    history = [*run.snapshot, user("Again", id="user-2")]
    second = await run_wire(agent, request(*history, run_id="run-2", protocol_version=kind))
    assert second.error is None

    def output(body: dict[str, Any]) -> Any:
        (found,) = [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]
        return found

    seen = [{"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "high"}]
    assert output(server.requests[1]) == seen
    assert output(server.requests[2]) == seen
