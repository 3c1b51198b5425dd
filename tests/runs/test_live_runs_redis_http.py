"""Detached runs on a ``RedisThreadStore`` (a real ``redis-server``), over real HTTP (uvicorn in
a thread), both request kinds: the run's events go to Redis Streams, a client that left
reattaches with ``Last-Event-ID`` and gets exactly the rest, and a reload joins the live run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ag_ui.core import RunFinishedEvent, RunStartedEvent, TextMessageContentEvent
from agents import set_tracing_disabled

from ag_ui_openai_agents.threads import RedisThreadStore
from support.e2e import serve_app
from support.http import app_with
from support.invariants import check_stream
from support.live_runs import (
    Sse,
    events_of,
    gated_wrapper,
    payload,
    read_all,
    read_until,
    snapshot_messages,
)
from support.partial_turns import GUARD_SECONDS, MID_TEXT, request, user
from support.redis_server import redis_server_process
from support.threads import PROTOCOLS

set_tracing_disabled(True)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"]),
]

THREAD = "thread-3e7b9d2a6c1f4a58"
ANSWER = "The answer is forty two."


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[str]:
    with redis_server_process(tmp_path / "redis") as url:
        yield url


def text_of(blocks: list[Sse]) -> str:
    return "".join(b.event.delta for b in blocks if isinstance(b.event, TextMessageContentEvent))


async def test_a_left_run_completes_on_redis_and_is_reattached_exactly(
    redis_server: str, version: str | None
) -> None:
    store = RedisThreadStore(redis_server, prefix="live-test:")
    wrapper, model = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    run_input = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            seen = await read_until(client, payload(run_input), "TEXT_MESSAGE_CONTENT", 2)
            model.gate.set()
            rest = await read_all(client, payload(run_input), {"Last-Event-ID": str(seen[-1].id)})
            reload = await read_all(client, payload(request(THREAD, "run-2", version, [])))

    ids = [b.id for b in [*seen, *rest]]
    assert ids == [f"run-1.{n}" for n in range(1, len(ids) + 1)]
    assert isinstance(rest[-1].event, RunFinishedEvent)
    pre_1_0 = version is None
    check_stream(events_of([*seen, *rest]), run_input=run_input, pre_1_0=pre_1_0)
    assert text_of([*seen, *rest]) == ANSWER
    assert [m.content for m in snapshot_messages(reload)] == ["Where is order 7?", ANSWER]
    assert model.call_count == 1


async def test_a_reload_joins_a_live_run_on_redis(redis_server: str, version: str | None) -> None:
    store = RedisThreadStore(redis_server, prefix="live-test:")
    wrapper, model = gated_wrapper(MID_TEXT.turns, MID_TEXT.stall, store)
    run_input = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    reload = request(THREAD, "run-2", version, [])
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            await read_until(client, payload(run_input), "TEXT_MESSAGE_CONTENT", 2)
            joined = await read_until(client, payload(reload), "TEXT_MESSAGE_CONTENT", 1)
            model.gate.set()
            rest = await read_all(client, payload(reload), {"Last-Event-ID": str(joined[-1].id)})

    started = joined[0].event
    assert isinstance(started, RunStartedEvent) and started.run_id == "run-1"
    live_input = run_input.model_copy(update={"state": {}})
    pre_1_0 = version is None
    stream = events_of([*joined, *rest])
    check_stream(stream, run_input=live_input, pre_1_0=pre_1_0, joined=True)
    assert text_of([*joined, *rest]) == ANSWER
