"""Stopping runs that belong to the server, over real HTTP (uvicorn in a thread, a real SQLite
file, both request kinds): the stop route, the lifetime cap, the live-run caps, and the
capabilities that say runs are resumable.

A stopped run ends as its client expects (RUN_FINISHED ``cancelled`` for 1.0, RUN_ERROR
``RUN_STOPPED`` before it); a tool that was running is recorded INTERRUPTED and the next
turn's model request passes the request checker.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
)
from agents import set_tracing_disabled

from ag_ui_openai_agents.errors import (
    LIVE_RUNS_LIMIT_CODE,
    RUN_STOPPED_CODE,
    RUN_TIME_LIMIT_CODE,
)
from ag_ui_openai_agents.threads import INTERRUPTED_RESULT, SQLiteThreadStore
from support.e2e import serve_app
from support.http import app_with
from support.invariants import check_stream
from support.live_runs import (
    Sse,
    events_of,
    gated_wrapper,
    parse_blocks,
    payload,
    read_all,
    read_until,
    snapshot_messages,
)
from support.partial_turns import (
    GUARD_SECONDS,
    MID_TEXT,
    OPEN_CALL,
    Tools,
    calls_of,
    outputs_of,
    request,
    user,
)
from support.threads import PROTOCOLS

set_tracing_disabled(True)

pytestmark = pytest.mark.slow

versions = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

THREAD = "thread-9a4f2b7c1e8d4f06"


def check(blocks: list[Sse], run_input: Any) -> None:
    pre_1_0 = run_input.protocol_version is None
    check_stream(events_of(blocks), run_input=run_input, pre_1_0=pre_1_0)


async def started(runs: list[str]) -> None:
    """Wait until a tool has been started (its run recorded in ``runs``)."""
    for _ in range(int(GUARD_SECONDS / 0.01)):
        if runs:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the tool never started")


def assert_stopped(blocks: list[Sse], version: str | None) -> None:
    terminal = blocks[-1].event
    if version is None:
        assert isinstance(terminal, RunErrorEvent) and terminal.code == RUN_STOPPED_CODE
    else:
        assert isinstance(terminal, RunFinishedEvent)
        assert isinstance(terminal.outcome, RunFinishedCancelledOutcome)


@versions
async def test_stop_ends_the_run_and_a_running_tool_is_recorded_interrupted(
    tmp_path: Path, version: str | None
) -> None:
    tools = Tools()
    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapper, model = gated_wrapper(OPEN_CALL.turns, None, store, tools)
    first = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    again = user("Any news?", "user-2")
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(first), "TOOL_CALL_END")
            await started(tools.slow_lookups)  # the tool is running when the stop comes
            stop = await client.post("/agent/stop", json={"threadId": THREAD, "runId": "run-1"})
            rest = await read_all(client, payload(first), {"Last-Event-ID": str(seen[-1].id)})
            second = request(THREAD, "run-2", version, [again])
            after = await read_all(client, payload(second))

    assert stop.status_code == 202
    check([*seen, *rest], first)
    assert_stopped(rest, version)
    messages = snapshot_messages(after)
    results = [(m.tool_call_id, m.content) for m in messages if m.role == "tool"]
    assert results == [("call_slow", INTERRUPTED_RESULT)]
    next_input = model.calls[1].input  # passed the request checker
    assert calls_of(next_input) == {"call_slow": {"q": "order 7"}}
    assert outputs_of(next_input) == {"call_slow": INTERRUPTED_RESULT}
    assert len(tools.slow_lookups) == 1  # started once, never again
    check(after, second.model_copy(update={"messages": [*messages[:3], again]}))


@versions
async def test_stop_mid_answer_keeps_what_was_said(tmp_path: Path, version: str | None) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapper, _ = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    first = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    with serve_app(app_with(wrapper)) as base_url:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client,
            client.stream("POST", "/agent", json=payload(first)) as response,
        ):
            raw = ""
            async for text in response.aiter_text():
                raw += text
                if raw.count('"TEXT_MESSAGE_CONTENT"') == 2 and raw.endswith("\n\n"):
                    stop = {"threadId": THREAD, "runId": "run-1"}
                    assert (await client.post("/agent/stop", json=stop)).status_code == 202
            reload = await read_all(client, payload(request(THREAD, "run-2", version, [])))

    blocks = parse_blocks(raw)
    check(blocks, first)
    assert_stopped(blocks, version)
    assert [(m.role, m.content) for m in snapshot_messages(reload)] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
    ]


@versions
async def test_a_stop_under_another_key_or_for_no_run_does_nothing_and_says_202(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapper, model = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    first = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(first), "TEXT_MESSAGE_CONTENT")
            answers = [
                await client.post("/agent/stop", json={"threadId": "other", "runId": "run-1"}),
                await client.post("/agent/stop", json={"threadId": THREAD, "runId": "run-9"}),
                await client.post("/agent/stop", content=b"not json"),
            ]
            model.gate.set()
            rest = await read_all(client, payload(first), {"Last-Event-ID": str(seen[-1].id)})

    assert [a.status_code for a in answers] == [202, 202, 202]
    check([*seen, *rest], first)
    assert isinstance(rest[-1].event, RunFinishedEvent)
    assert not isinstance(rest[-1].event.outcome, RunFinishedCancelledOutcome)


@versions
async def test_a_run_past_its_lifetime_is_stopped_and_saved(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_run_seconds=0.5)
    wrapper, _ = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    first = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            whole = await read_all(client, payload(first))  # the gate never opens
            reload = await read_all(client, payload(request(THREAD, "run-2", version, [])))

    check(whole, first)
    terminal = whole[-1].event
    assert isinstance(terminal, RunErrorEvent) and terminal.code == RUN_TIME_LIMIT_CODE
    assert [(m.role, m.content) for m in snapshot_messages(reload)] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
    ]


@versions
async def test_runs_past_the_per_thread_cap_are_refused(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", lock_wait=GUARD_SECONDS)
    store.settings = dataclasses.replace(store.settings, max_live_runs_per_key=1)
    wrapper, model = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    first = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    second = request(THREAD, "run-2", version, [user("Any news?", "user-2")])
    with serve_app(app_with(wrapper)) as base_url:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client,
            client.stream("POST", "/agent", json=payload(first)) as watched,
        ):
            lines = watched.aiter_lines()  # held: dropping it would close the connection
            async for line in lines:
                if "TEXT_MESSAGE_CONTENT" in line:
                    break
            refused = await read_all(client, payload(second))
            again = await read_all(client, payload(second))  # the same request: same answer
            model.gate.set()
            async for _ in lines:
                pass

    for blocks in (refused, again):
        check(blocks, second)
        terminal = blocks[-1].event
        assert isinstance(terminal, RunErrorEvent) and terminal.code == LIVE_RUNS_LIMIT_CODE


async def test_capabilities_say_runs_are_resumable_only_when_detached(tmp_path: Path) -> None:
    detached = gated_wrapper(MID_TEXT.turns, None, SQLiteThreadStore(tmp_path / "a.db"))[0]
    attached_store = SQLiteThreadStore(tmp_path / "b.db", detached_runs=False)
    attached = gated_wrapper(MID_TEXT.turns, None, attached_store)[0]
    found = []
    for wrapper in (detached, attached):
        with serve_app(app_with(wrapper)) as base_url:
            async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
                document = (await client.get("/agent/capabilities")).json()
                stop = await client.post("/agent/stop", json={"threadId": "t", "runId": "r"})
        found.append((document["transport"].get("resumable"), stop.status_code))
    assert found == [(True, 202), (None, 404)]
