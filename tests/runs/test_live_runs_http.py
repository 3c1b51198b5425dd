"""Runs that belong to the server, over real HTTP: the FastAPI route served by uvicorn (in a
thread: its connections, and their drops, are real), a real SQLite file, both request kinds.

A client leaves mid-answer and the run goes on and is saved; the same request again, with or
without ``Last-Event-ID``, gets exactly what it missed, never a second run; a reload joins
the live run; a new turn supersedes a run nobody watches; stop ends a run as its client
expects. Every stream collected goes through the invariant checker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
)
from agents import set_tracing_disabled

from ag_ui_openai_agents.errors import (
    EVENT_LOG_EXPIRED_CODE,
    RUN_ID_REUSED_CODE,
    RUN_STOPPED_CODE,
    THREAD_BUSY_CODE,
)
from ag_ui_openai_agents.server.streaming import KEEPALIVE_COMMENT
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.e2e import serve_app
from support.http import app_with
from support.invariants import check_stream
from support.live_runs import (
    GatedModel,
    Sse,
    events_of,
    gated_wrapper,
    parse_blocks,
    payload,
    read_all,
    read_until,
    snapshot_messages,
    type_names,
)
from support.partial_turns import GUARD_SECONDS, MID_TEXT, request, settled, user
from support.threads import PROTOCOLS

set_tracing_disabled(True)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"]),
]

THREAD = "thread-5d2c8e1f7a3b4c90"
ANSWER = "The answer is forty two."


def check(blocks: list[Sse], run_input: Any, *, joined: bool = False) -> None:
    pre_1_0 = run_input.protocol_version is None
    check_stream(events_of(blocks), run_input=run_input, pre_1_0=pre_1_0, joined=joined)


def text_of(blocks: list[Sse]) -> str:
    return "".join(b.event.delta for b in blocks if isinstance(b.event, TextMessageContentEvent))


class Served:
    """A wrapper with a gated model on a SQLite file, served over HTTP."""

    def __init__(self, tmp_path: Path, **store: Any) -> None:
        self.database = tmp_path / "threads.db"
        self.store = SQLiteThreadStore(self.database, **store)
        self.wrapper, self.model = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, self.store)

    @property
    def gated(self) -> GatedModel:
        return self.model

    async def key(self) -> str:
        assert self.wrapper.threads is not None
        return await self.wrapper.threads.key(THREAD, None)


def first_turn(version: str | None) -> Any:
    return request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])


async def test_a_run_whose_client_left_completes_and_is_reattached_exactly(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    run_input = first_turn(version)
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(run_input), "TEXT_MESSAGE_CONTENT", 2)
            served.gated.gate.set()  # the client is gone; the run goes on
            last = seen[-1].id
            assert last is not None
            rest = await read_all(client, payload(run_input), {"Last-Event-ID": last})
            again = await read_all(client, payload(run_input))  # no Last-Event-ID
            reload = await read_all(client, payload(request(THREAD, "run-2", version, [])))

    assert all(b.id is not None for b in [*seen, *rest, *again])
    ids = [b.id for b in [*seen, *rest]]
    assert ids == [f"run-1.{n}" for n in range(1, len(ids) + 1)]  # no gap, no duplicate
    assert not any(isinstance(b.event, RunStartedEvent) for b in rest)
    assert isinstance(rest[-1].event, RunFinishedEvent)
    check([*seen, *rest], run_input)
    assert text_of([*seen, *rest]) == ANSWER
    assert [b.id for b in again] == ids  # the whole run again, from its start
    check(again, run_input)
    assert served.gated.call_count == 1  # one run only
    messages = snapshot_messages(reload)
    assert [(m.role, m.content) for m in messages] == [
        ("user", "Where is order 7?"),
        ("assistant", ANSWER),
    ]


async def keepalives_then(
    client: httpx.AsyncClient,
    body: dict[str, Any],
    headers: dict[str, str],
    after: str,
    then: Callable[[], object] | None,
) -> str:
    """The raw stream of a run request. Once two keepalive comments came after the first
    ``after`` event (after the start, when ``after`` is empty), ``then()`` is called, once;
    with None, the connection is dropped there."""
    raw, called = "", False
    async with client.stream("POST", "/agent", json=body, headers=headers) as response:
        assert response.status_code == 200
        async for chunk in response.aiter_text():
            raw += chunk
            silent = raw.partition(after)[2] if after else raw
            if called or silent.count(KEEPALIVE_COMMENT) < 2:
                continue
            if then is None:
                break
            then()
            called = True
    return raw


async def test_a_silent_run_keeps_its_readers_alive_with_comments_only(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    run_input = first_turn(version)
    with serve_app(app_with(served.wrapper, keepalive_seconds=0.05)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            # The model stalls mid-answer: the first reader gets comments, and leaves.
            first = await keepalives_then(
                client, payload(run_input), {}, "TEXT_MESSAGE_CONTENT", None
            )
            seen = parse_blocks(first)
            headers = {"Last-Event-ID": str(seen[-1].id)}
            # A reattached reader waits with comments too, then gets the rest.
            rest_raw = await keepalives_then(
                client, payload(run_input), headers, "", served.gated.gate.set
            )

    for raw in (first, rest_raw):
        for block in raw.removesuffix("\n\n").split("\n\n"):
            assert block.startswith(("id: ", "data: ")) or f"{block}\n\n" == KEEPALIVE_COMMENT
    rest = parse_blocks(rest_raw)
    assert rest_raw.startswith(KEEPALIVE_COMMENT * 2)  # the reattach waited, kept alive
    ids = [b.id for b in [*seen, *rest]]
    assert ids == [f"run-1.{n}" for n in range(1, len(ids) + 1)]
    check([*seen, *rest], run_input)
    assert text_of([*seen, *rest]) == ANSWER


async def test_the_x_header_reattaches_as_last_event_id_does(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    run_input = first_turn(version)
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(run_input), "TEXT_MESSAGE_START")
            served.gated.gate.set()
            headers = {"x-last-event-id": str(seen[-1].id)}
            rest = await read_all(client, payload(run_input), headers)

    check([*seen, *rest], run_input)
    assert text_of(rest) == ANSWER


async def test_a_reused_run_id_and_an_unknown_cursor_are_refused_with_their_codes(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    served.gated.gate.set()
    run_input = first_turn(version)
    other = request(THREAD, "run-1", version, [user("Something else", "user-9")])
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            whole = await read_all(client, payload(run_input))
            reused = await read_all(client, payload(other))
            gone = await read_all(client, payload(run_input), {"Last-Event-ID": "run-0.3"})

    check(whole, run_input)
    assert isinstance(reused[-1].event, RunErrorEvent)
    assert reused[-1].event.code == RUN_ID_REUSED_CODE
    check(reused, other)
    assert [type(b.event) for b in gone] == [RunErrorEvent]  # never a second RUN_STARTED
    assert isinstance(gone[0].event, RunErrorEvent)
    assert gone[0].event.code == EVENT_LOG_EXPIRED_CODE
    assert served.gated.call_count == 1


async def test_a_reload_joins_the_live_run_and_gets_one_valid_stream(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    run_input = first_turn(version)
    reload = request(THREAD, "run-2", version, [])
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(run_input), "TEXT_MESSAGE_CONTENT", 2)
            joined = await read_until(client, payload(reload), "TEXT_MESSAGE_CONTENT", 2)
            served.gated.gate.set()
            last = joined[-1].id
            assert last is not None and last.startswith("run-1.")
            rest = await read_all(client, payload(reload), {"Last-Event-ID": last})

    assert type_names(joined)[:3] == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"]
    started = joined[0].event
    assert isinstance(started, RunStartedEvent) and started.run_id == "run-1"
    assert [b.id for b in joined[3:]] == [b.id for b in seen[1:]]
    live_input = run_input.model_copy(update={"state": {}})
    check([*joined, *rest], live_input, joined=True)
    assert text_of([*joined, *rest]) == ANSWER
    assert served.gated.call_count == 1


async def test_a_new_turn_supersedes_a_run_nobody_watches(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path)
    run_input = first_turn(version)
    ask = user("Any news?", "user-2")
    second = request(THREAD, "run-2", version, [ask])
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            await read_until(client, payload(run_input), "TEXT_MESSAGE_CONTENT", 2)
            # The client aborted its request (a Stop button); its next message runs at once.
            after = await read_all(client, payload(second))
            stopped = await read_all(client, payload(run_input))  # the first run, whole

    first = snapshot_messages(after)
    assert [(m.role, m.content) for m in first] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
        ("user", "Any news?"),
        ("assistant", "Going on."),
    ]
    trusted = second.model_copy(update={"messages": [*first[:2], ask]})
    check(after, trusted)
    check(stopped, run_input)
    terminal = stopped[-1].event
    if version is None:
        assert isinstance(terminal, RunErrorEvent) and terminal.code == RUN_STOPPED_CODE
    else:
        assert isinstance(terminal, RunFinishedEvent)
        assert isinstance(terminal.outcome, RunFinishedCancelledOutcome)


async def test_a_new_turn_supersedes_a_run_whose_watcher_is_leaving(
    tmp_path: Path, version: str | None
) -> None:
    # The new turn comes while the first run's response is still open, and that response
    # closes a moment later (a Stop that aborted it, noticed late): no THREAD_BUSY.
    served = Served(tmp_path, lock_wait=0.2)
    run_input = first_turn(version)
    ask = user("Any news?", "user-2")
    second = request(THREAD, "run-2", version, [ask])
    with serve_app(app_with(served.wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            async with client.stream("POST", "/agent", json=payload(run_input)) as watched:
                async for line in watched.aiter_lines():
                    if "TEXT_MESSAGE_CONTENT" in line:
                        break
                answer = asyncio.create_task(read_all(client, payload(second)))
                await asyncio.sleep(0.3)  # past the lock's wait: the new turn waits on
            after = await answer

    check(after, second.model_copy(update={"messages": snapshot_messages(after)[:3]}))
    assert [(m.role, m.content) for m in snapshot_messages(after)] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
        ("user", "Any news?"),
        ("assistant", "Going on."),
    ]


async def test_a_new_turn_while_the_live_run_is_watched_keeps_the_lock_rule(
    tmp_path: Path, version: str | None
) -> None:
    served = Served(tmp_path, lock_wait=0.2)
    run_input = first_turn(version)
    second = request(THREAD, "run-2", version, [user("Any news?", "user-2")])
    with serve_app(app_with(served.wrapper)) as base_url:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client,
            client.stream("POST", "/agent", json=payload(run_input)) as watched,
        ):
            assert watched.status_code == 200
            lines = watched.aiter_lines()
            async for line in lines:
                if "TEXT_MESSAGE_CONTENT" in line:
                    break
            busy = await read_all(client, payload(second))
            served.gated.gate.set()
            async for _ in lines:
                pass
        await settled(SQLiteThreadStore(served.database), await served.key())

    assert isinstance(busy[-1].event, RunErrorEvent)
    assert busy[-1].event.code == THREAD_BUSY_CODE
    check(busy, second)
