"""The real-client harness itself: canned AG-UI streams played through @ag-ui/client.

A small FastAPI app stands in for the server. It plays a scripted conversation (text, a
client tool call left pending, a backend approval paused with an interrupt and resumed) and
serves a few canned streams, some of them invalid. Both client versions must accept the valid
ones and reject the invalid ones, which shows the harness can fail.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    E2EHarnessError,
    ensure_node_modules,
    node_available,
    run_client,
    serve_app,
    turn_errors,
)

pytestmark = pytest.mark.skipif(
    not node_available(), reason="real-client e2e checks need Node >= 18 and npm on PATH"
)

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}

Received = dict[str, list[RunAgentInput]]


# --- the stand-in server --------------------------------------------------------------


def _sse(events: list[Any]) -> StreamingResponse:
    """Stream events (models, or raw dicts for shapes the models refuse) as SSE."""
    encoder = EventEncoder()

    async def body() -> Any:
        for event in events:
            if isinstance(event, BaseEvent):
                yield encoder.encode(event)
            else:
                yield f"data: {json.dumps(event)}\n\n"

    return StreamingResponse(body(), media_type=encoder.get_content_type())


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _started(run_input: RunAgentInput) -> RunStartedEvent:
    return RunStartedEvent(
        thread_id=run_input.thread_id, run_id=run_input.run_id, protocol_version=PROTOCOL_VERSION
    )


def _finished(run_input: RunAgentInput, outcome: RunFinishedOutcome | None) -> RunFinishedEvent:
    return RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id, outcome=outcome)


def _text(message_id: str, text: str) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        TextMessageContentEvent(message_id=message_id, delta=text),
        TextMessageEndEvent(message_id=message_id),
    ]


def _tool_call(call_id: str, name: str, arguments: str, parent: str) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=parent),
        ToolCallArgsEvent(tool_call_id=call_id, delta=arguments[:5]),
        ToolCallArgsEvent(tool_call_id=call_id, delta=arguments[5:]),
        ToolCallEndEvent(tool_call_id=call_id),
    ]


def _count_turn(run_input: RunAgentInput) -> StateDeltaEvent:
    """Increment state.turns, so each request's state shows where the client left it."""
    state = run_input.state if isinstance(run_input.state, dict) else {}
    turns = state.get("turns")
    if isinstance(turns, int):
        patch = {"op": "replace", "path": "/turns", "value": turns + 1}
    else:
        patch = {"op": "add", "path": "/turns", "value": 1}
    return StateDeltaEvent.model_validate({"type": "STATE_DELTA", "delta": [patch]})


def _resumed(run_input: RunAgentInput, history: list[Message]) -> list[BaseEvent]:
    """Answer each resumed approval with a tool result, then a closing text."""
    events: list[BaseEvent] = []
    for entry in run_input.resume or []:
        call_id = entry.interrupt_id.removeprefix("approval-")
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        approved = entry.status == "resolved" and payload.get("approved") is True
        content = "deleted" if approved else f"not run ({entry.status})"
        message_id = _new_id("tool")
        result = ToolCallResultEvent(message_id=message_id, tool_call_id=call_id, content=content)
        events.append(result)
        history.append(ToolMessage(id=message_id, tool_call_id=call_id, content=content))
    reply = _new_id("msg")
    events += _text(reply, "Done.")
    history.append(AssistantMessage(id=reply, content="Done."))
    return events


def _client_tool(history: list[Message]) -> tuple[list[BaseEvent], str]:
    """Call the client's weather tool; the call stays pending for the client."""
    message_id, call_id, arguments = _new_id("msg"), _new_id("call"), '{"city": "Paris"}'
    call = ToolCall(id=call_id, function=FunctionCall(name="get_weather", arguments=arguments))
    history.append(AssistantMessage(id=message_id, tool_calls=[call]))
    return _tool_call(call_id, "get_weather", arguments, message_id), call_id


def _approval(history: list[Message]) -> tuple[list[BaseEvent], Interrupt]:
    """Call a backend tool that needs approval, and describe the pause."""
    message_id, call_id, arguments = _new_id("msg"), _new_id("call"), '{"path": "/tmp"}'
    call = ToolCall(id=call_id, function=FunctionCall(name="delete_files", arguments=arguments))
    history.append(AssistantMessage(id=message_id, tool_calls=[call]))
    interrupt = Interrupt(
        id=f"approval-{call_id}",
        reason="tool_approval",
        message="Delete /tmp?",
        tool_call_id=call_id,
        response_schema={"type": "object", "properties": {"approved": {"type": "boolean"}}},
    )
    return _tool_call(call_id, "delete_files", arguments, message_id), interrupt


def conversation(run_input: RunAgentInput) -> list[BaseEvent]:
    """One scripted reply, chosen from the request the way an agent would."""
    history = list(run_input.messages)
    events: list[BaseEvent] = [_started(run_input), _count_turn(run_input)]
    outcome: RunFinishedOutcome | None = None
    last = history[-1] if history else None
    offered = {tool.name for tool in run_input.tools or []}
    if run_input.resume:
        events += _resumed(run_input, history)
    elif isinstance(last, ToolMessage):
        reply = _new_id("msg")
        events += _text(reply, f"It is {last.content}.")
        history.append(AssistantMessage(id=reply, content=f"It is {last.content}."))
    elif last is not None and "weather" in str(last.content) and "get_weather" in offered:
        calls, call_id = _client_tool(history)
        events += calls
        if run_input.protocol_version is not None:  # clients before 1.0 reject the field
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=[call_id])
    elif last is not None and "delete" in str(last.content):
        calls, interrupt = _approval(history)
        events += calls
        outcome = RunFinishedInterruptOutcome(interrupts=[interrupt])
    else:
        reply, said = _new_id("msg"), f"You said: {last.content if last else ''}"
        events += _text(reply, said)
        history.append(AssistantMessage(id=reply, content=said))
    events.append(MessagesSnapshotEvent(messages=history))
    events.append(_finished(run_input, outcome))
    return events


def canned(name: str, run_input: RunAgentInput) -> list[Any]:
    """Fixed streams, valid or not, named by the URL."""
    start: list[Any] = [_started(run_input)]
    ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
    streams: dict[str, list[Any]] = {
        "unopened-content": [*start, TextMessageContentEvent(message_id="ghost", delta="boo")],
        "no-finish": [*start, *_text("m1", "cut short")],
        "run-error": [*start, RunErrorEvent(message="model failed", code="model_error")],
        "cancelled": [*start, _finished(run_input, RunFinishedCancelledOutcome())],
        "pending-ids": [
            *start,
            *_tool_call("c1", "get_weather", '{"city": "Oslo"}', "m1"),
            _finished(run_input, RunFinishedSuccessOutcome(pending_tool_call_ids=["c1"])),
        ],
        "unknown-outcome": [*start, {"type": "RUN_FINISHED", **ids, "outcome": {"type": "bogus"}}],
    }
    return streams[name]


def build_app(received: Received) -> FastAPI:
    """The stand-in server; it records every request by thread id."""
    app = FastAPI()

    async def read_input(request: Request) -> RunAgentInput:
        run_input = RunAgentInput.model_validate(await request.json())
        received.setdefault(run_input.thread_id, []).append(run_input)
        return run_input

    @app.post("/agent")
    async def agent(request: Request) -> StreamingResponse:
        return _sse(conversation(await read_input(request)))

    @app.post("/canned/{name}")
    async def canned_route(name: str, request: Request) -> StreamingResponse:
        return _sse(canned(name, await read_input(request)))

    return app


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Received]]:
    ensure_node_modules()
    received: Received = {}
    with serve_app(build_app(received)) as base_url:
        yield base_url, received


def _scenario(url: str, turns: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"url": url, "threadId": _new_id("thread"), "turns": turns, **extra}


# --- a whole conversation -------------------------------------------------------------

CONVERSATION: list[dict[str, Any]] = [
    {"user": "hello"},
    {"user": "what is the weather in Paris?"},
    {"toolResult": {"content": "sunny", "toolName": "get_weather"}},
    {"user": "delete my files"},
    {"resume": {"payload": {"approved": True}}},
    {"user": "delete them again"},
    {"resume": {"status": "cancelled"}},
]


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_conversation_is_accepted_turn_after_turn(
    server: tuple[str, Received], version: ClientVersion
) -> None:
    base_url, received = server
    scenario = _scenario(f"{base_url}/agent", CONVERSATION, tools=[WEATHER_TOOL], state={})
    result = run_client(version, scenario)

    assert result["ok"], turn_errors(result)
    turns = result["turns"]
    kinds = [turn["outcome"]["type"] for turn in turns]
    assert kinds == ["success"] * 3 + ["interrupt", "success"] * 2
    assert all(turn["warnings"] == [] for turn in turns)
    assert [turn["state"] for turn in turns] == [{"turns": n} for n in range(1, 8)]

    pending = turns[1]["pendingToolCalls"]
    assert [(call["name"], json.loads(call["arguments"])) for call in pending] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert turns[1]["outcome"]["pendingToolCallIds"] == [pending[0]["id"]]
    assert turns[2]["events"][-2]["type"] == "MESSAGES_SNAPSHOT"
    assert "It is sunny." in [m.get("content") for m in turns[2]["messages"]]

    assert [i["reason"] for i in turns[3]["interrupts"]] == ["tool_approval"]
    assert turns[4]["interrupts"] == []
    tool_messages = [m for m in turns[6]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["sunny", "deleted", "not run (cancelled)"]

    _check_requests(version, turns, received[scenario["threadId"]])


def _check_requests(
    version: ClientVersion, turns: list[dict[str, Any]], requests: list[RunAgentInput]
) -> None:
    """What the server received was built from what the client kept after each turn."""
    assert len(requests) == len(turns)
    assert len({r.run_id for r in requests}) == len(requests)
    assert [r.run_id for r in requests] == [t["runId"] for t in turns]
    expected_version = PROTOCOL_VERSION if version == "v1" else None
    assert {r.protocol_version for r in requests} == {expected_version}
    for before, request in zip(turns[:-1], requests[1:], strict=True):
        kept = [m["id"] for m in before["messages"]]
        assert [m.id for m in request.messages][: len(kept)] == kept
        assert request.state == before["state"]

    answered = requests[2].messages[-1]
    assert isinstance(answered, ToolMessage)
    assert answered.tool_call_id == turns[1]["pendingToolCalls"][0]["id"]

    for index, status in ((4, "resolved"), (6, "cancelled")):
        resume = requests[index].resume or []
        opened = [i["id"] for i in turns[index - 1]["interrupts"]]
        assert [(e.interrupt_id, e.status) for e in resume] == [(i, status) for i in opened]
    assert (requests[4].resume or [])[0].payload == {"approved": True}
    assert all(not r.resume for i, r in enumerate(requests) if i not in (4, 6))


# --- streams the clients must reject ---------------------------------------------------


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_content_for_unopened_message_fails_the_turn(
    server: tuple[str, Received], version: ClientVersion
) -> None:
    base_url, _ = server
    scenario = _scenario(f"{base_url}/canned/unopened-content", [{"user": "a"}, {"user": "b"}])
    result = run_client(version, scenario)

    assert not result["ok"]
    first, second = result["turns"]
    assert not first["ok"]
    assert "TEXT_MESSAGE_CONTENT" in first["error"]
    assert "ghost" in first["error"]
    assert first["outcome"] is None
    assert not second["ok"]
    assert second["error"] == "not run: turn 0 failed"
    assert second["request"] is None


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_stream_without_run_finished_fails_the_turn(
    server: tuple[str, Received], version: ClientVersion
) -> None:
    base_url, _ = server
    result = run_client(version, _scenario(f"{base_url}/canned/no-finish", [{"user": "a"}]))

    assert not result["ok"]
    turn = result["turns"][0]
    assert "without RUN_FINISHED" in turn["error"]
    assert turn["eventTypes"][-1] == "TEXT_MESSAGE_END"


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_run_error_is_a_valid_stream(server: tuple[str, Received], version: ClientVersion) -> None:
    base_url, _ = server
    result = run_client(version, _scenario(f"{base_url}/canned/run-error", [{"user": "a"}]))

    assert result["ok"], turn_errors(result)
    turn = result["turns"][0]
    assert turn["eventTypes"] == ["RUN_STARTED", "RUN_ERROR"]
    assert turn["outcome"] == {"type": "error", "message": "model failed", "code": "model_error"}


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        ("cancelled", {"type": "cancelled"}),
        ("pending-ids", {"type": "success", "pendingToolCallIds": ["c1"]}),
    ],
)
def test_outcomes_new_in_1_0_pass_v1_and_fail_v0(
    server: tuple[str, Received], route: str, expected: dict[str, Any]
) -> None:
    base_url, _ = server
    modern = run_client("v1", _scenario(f"{base_url}/canned/{route}", [{"user": "a"}]))
    legacy = run_client("v0", _scenario(f"{base_url}/canned/{route}", [{"user": "a"}]))

    assert modern["ok"], turn_errors(modern)
    assert modern["turns"][0]["outcome"] == expected
    assert not legacy["ok"]
    assert '"outcome"' in legacy["turns"][0]["error"]


def test_v1_strips_an_unknown_outcome_and_strict_mode_catches_it(
    server: tuple[str, Received],
) -> None:
    base_url, _ = server
    url = f"{base_url}/canned/unknown-outcome"
    strict = run_client("v1", _scenario(url, [{"user": "a"}]))
    lenient = run_client("v1", _scenario(url, [{"user": "a"}], strict=False))
    legacy = run_client("v0", _scenario(url, [{"user": "a"}]))

    assert not strict["ok"]
    assert "/outcome" in strict["turns"][0]["error"]
    assert lenient["ok"], turn_errors(lenient)
    assert lenient["turns"][0]["outcome"]["type"] == "success"
    assert any("/outcome" in w for w in lenient["turns"][0]["warnings"])
    assert not legacy["ok"]


# --- turns the harness cannot build ----------------------------------------------------


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
@pytest.mark.parametrize(
    ("turn", "message"),
    [
        ({"toolResult": {"content": "x"}}, "no pending tool call"),
        ({"resume": {"payload": {"approved": True}}}, "no interrupt"),
    ],
)
def test_answer_without_anything_open_fails(
    server: tuple[str, Received], version: ClientVersion, turn: dict[str, Any], message: str
) -> None:
    base_url, received = server
    scenario = _scenario(f"{base_url}/agent", [{"user": "hello"}, turn])
    result = run_client(version, scenario)

    assert not result["ok"]
    assert result["turns"][0]["ok"]
    assert message in result["turns"][1]["error"]
    assert len(received[scenario["threadId"]]) == 1


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_client_refuses_a_new_message_over_an_open_interrupt(
    server: tuple[str, Received], version: ClientVersion
) -> None:
    base_url, received = server
    scenario = _scenario(f"{base_url}/agent", [{"user": "delete it"}, {"user": "never mind"}])
    result = run_client(version, scenario)

    assert not result["ok"]
    assert result["turns"][0]["outcome"]["type"] == "interrupt"
    assert "not addressed by resume" in result["turns"][1]["error"]
    assert len(received[scenario["threadId"]]) == 1


def test_malformed_scenario_is_refused() -> None:
    ensure_node_modules()
    with pytest.raises(E2EHarnessError, match="turns"):
        run_client("v1", {"url": "http://127.0.0.1:9/agent", "turns": []})
