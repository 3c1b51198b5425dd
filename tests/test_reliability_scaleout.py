"""Scale-out: a conversation spread over two server processes streams what one process does.

Two uvicorn processes serve ``support.reliability_app`` (same module, nothing shared). The
conversation: the model calls a client tool; the next request answers it with a tool message;
the model then asks to run an approval-gated tool; the next request approves it; then one more
user turn. Requests alternate between the two processes. The same conversation against one
process must give the same events, once generated ``msg_…`` ids and run ids are normalised.
Every process is always terminated, and everything is bounded in time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    TextMessageContentEvent,
    Tool,
    ToolCallResultEvent,
    ToolMessage,
    UserMessage,
)

from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.reliability_app import CLIENT_TOOL, NAME_ENV

pytestmark = pytest.mark.slow

TESTS_DIR = Path(__file__).resolve().parent
PROJECT_DIR = TESTS_DIR.parent
START_SECONDS = 90.0
STOP_SECONDS = 5.0
REQUEST_SECONDS = 15.0

SHOW_PLAN = Tool(
    name=CLIENT_TOOL,
    description="Show a travel plan to the user and return what they chose.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Processes A and B on their own free ports; always stopped."""
    envs = {name: server_env(NAME_ENV, name, {"PYTHONUNBUFFERED": "1"}) for name in "AB"}
    with server_processes(
        "support.reliability_app:app", ("A", "B"), envs, tmp_path, start_seconds=START_SECONDS
    ) as (a, b):
        yield a, b
        started = [a.process, b.process]
    assert all(process.poll() is not None for process in started)


# --------------------------------------------------------------------------- the conversation


def _post(client: httpx.Client, server: Server, given: RunAgentInput) -> list[BaseEvent]:
    response = client.post(
        f"{server.url}/agent",
        content=given.model_dump_json(by_alias=True, exclude_none=True),
        headers={"content-type": "application/json", "accept": "text/event-stream"},
    )
    assert response.status_code == 200, response.text
    assert response.headers["x-served-by"] == server.name
    events = parse_sse(response.content)
    check_stream(events, run_input=given)
    return events


def _snapshot(events: list[BaseEvent]) -> list[Message]:
    return next(e for e in events if isinstance(e, MessagesSnapshotEvent)).messages


def _request(number: int, messages: list[Message], **extra: Any) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-travel",
        run_id=f"run-{number}",
        protocol_version="1.0",
        state={},
        messages=messages,
        tools=[SHOW_PLAN],
        context=[],
        forwarded_props={},
        **extra,
    )


def converse(client: httpx.Client, route: list[Server]) -> list[list[BaseEvent]]:
    """Play the conversation, request ``i`` going to ``route[i]``; return every run's events."""
    runs: list[list[BaseEvent]] = []
    first = _request(1, [UserMessage(id="user-1", content="Please plan a trip to Lisbon")])
    runs.append(_post(client, route[0], first))
    end = runs[-1][-1]
    assert isinstance(end, RunFinishedEvent)
    pending = getattr(end.outcome, "pending_tool_call_ids", None)
    assert pending == ["call_plan_1"]
    answer = ToolMessage(id="tool-plan-1", tool_call_id="call_plan_1", content='{"days": 3}')
    runs.append(_post(client, route[1], _request(2, [*_snapshot(runs[-1]), answer])))
    end = runs[-1][-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    interrupts = getattr(end.outcome, "interrupts", [])
    assert [i.tool_call_id for i in interrupts] == ["call_book_1"]
    approve = ResumeEntry(interrupt_id="call_book_1", status="resolved", payload={"approved": True})
    runs.append(_post(client, route[2], _request(3, _snapshot(runs[-1]), resume=[approve])))
    thanks = UserMessage(id="user-2", content="Thanks a lot")
    runs.append(_post(client, route[3], _request(4, [*_snapshot(runs[-1]), thanks])))
    end = runs[-1][-1]
    assert isinstance(end, RunFinishedEvent)
    return runs


_GENERATED = re.compile(r"\bmsg_[0-9A-Za-z]+\b")
_RUN_ID = re.compile(r"^run-\d+$")


def normalised(runs: list[list[BaseEvent]]) -> list[list[Any]]:
    """The runs as JSON, generated message ids and run ids replaced by stable placeholders."""
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"<msg {len(names)}>")

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return "<run>" if _RUN_ID.match(value) else _GENERATED.sub(rename, value)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    return [
        [walk(json.loads(event.model_dump_json(by_alias=True))) for event in run] for run in runs
    ]


def test_alternating_two_processes_streams_what_one_process_streams(
    servers: tuple[Server, Server],
) -> None:
    a, b = servers
    with httpx.Client(timeout=REQUEST_SECONDS) as client:
        spread = converse(client, [a, b, a, b])
        single = converse(client, [a, a, a, a])
        other_single = converse(client, [b, b, b, b])
    assert normalised(spread) == normalised(single) == normalised(other_single)
    resumed = [e for e in spread[2] if isinstance(e, ToolCallResultEvent)]
    assert [(e.tool_call_id, e.content) for e in resumed] == [
        ("call_book_1", "Hotel booked in Lisbon.")
    ]
    final = "".join(e.delta for e in spread[2] if isinstance(e, TextMessageContentEvent))
    assert final == "All set. Hotel booked in Lisbon."
    raw = [[[e.model_dump_json() for e in run] for run in runs] for runs in (spread, single)]
    assert raw[0] != raw[1], "the processes made the same ids: nothing was normalised"
