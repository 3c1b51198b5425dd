"""``RedisEventLog`` against a real ``redis-server``: the event log contract (two clients as
two replicas), its layout, and the logs a ``RedisThreadStore`` gives."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as redis_asyncio

from ag_ui_openai_agents.runs import (
    Claim,
    EventLog,
    LogExpiredError,
    LogMeta,
    MemoryEventLog,
    RedisEventLog,
    log_key,
)
from ag_ui_openai_agents.threads import RedisThreadStore, SQLiteThreadStore
from support.event_log_contract import CONTRACT, OTHER, RUN, Harness, collect, texts
from support.redis_server import redis_server_process

pytestmark = pytest.mark.slow


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[str]:
    with redis_server_process(tmp_path / "redis") as url:
        yield url


@pytest.fixture
async def harness(redis_server: str) -> AsyncIterator[Harness]:
    logs: list[RedisEventLog] = []
    settings: dict[int, dict[str, Any]] = {}

    def make(**given: Any) -> EventLog:
        logs.append(RedisEventLog(redis_server, poll=0.2, **given))
        settings[id(logs[-1])] = given
        return logs[-1]

    yield Harness(make=make, peer=lambda log: make(**settings[id(log)]), elapse=asyncio.sleep)
    for log in logs:
        await log.aclose()


async def commands(raw: Any) -> Counter[str]:
    """The calls of each command the server ran so far, but ``INFO``."""
    stats = await raw.info("commandstats")
    calls = Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})
    del calls["info"]
    return calls


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_event_log_contract(harness: Harness, rule: Any) -> None:
    await rule(harness)


async def test_the_layout_is_a_claim_and_a_stream_per_run(redis_server: str) -> None:
    log = RedisEventLog(redis_server, prefix="app:", expire_after=60, claim_expire_after=600)
    raw = redis_asyncio.Redis.from_url(redis_server)
    run = log_key("user-1:t", "r")
    try:
        assert await log.claim(run, "digest") is Claim.NEW
        assert await log.append(run, ['{"type":"RUN_STARTED"}', "x"]) == 2
        await log.end(run)
        claim, stream = f"app:run:{{{run}}}:claim".encode(), f"app:run:{{{run}}}:log".encode()
        assert sorted(await raw.keys("*")) == [claim, stream]
        assert await raw.get(claim) == b"digest"
        assert 0 < await raw.pttl(claim) <= 600_000
        assert 0 < await raw.pttl(stream) <= 60_000
        entries = await raw.xrange(stream)
        assert [entry_id for entry_id, _ in entries] == [b"1-0", b"1-1", b"1-2", b"1-3"]
        assert entries[1][1] == {b"e": b'{"type":"RUN_STARTED"}'}
        assert b"end" in entries[3][1]
    finally:
        await raw.aclose()
        await log.aclose()


async def test_an_append_is_one_round_trip(redis_server: str) -> None:
    raw = redis_asyncio.Redis.from_url(redis_server)
    log = RedisEventLog(redis_server)
    try:
        await log.claim(RUN, "f")
        await log.append(RUN, ["warm"])
        await log.flushed(RUN)
        before = await commands(raw)
        await log.append(RUN, texts(30))
        await log.append(RUN, texts(20, 31))  # joins the waiting events of the run
        await log.flushed(RUN)
        # One script (50 XADDs and a PEXPIRE inside it): no reads, no second batch.
        assert await commands(raw) - before == {"evalsha": 1, "xadd": 50, "pexpire": 1}
        assert (await log.meta(RUN)) == LogMeta(first=1, last=51, ended=False)
    finally:
        await raw.aclose()
        await log.aclose()


async def test_every_event_text_comes_back_from_redis_as_it_was_logged(redis_server: str) -> None:
    # A flush sends every event of every run in one argument, a line each: the texts a
    # JSON encoder writes (escapes, quotes, backslashes, any Unicode) come back unchanged,
    # and a raw line break (JSON whitespace) comes back a space, the same on each replica.
    log = RedisEventLog(redis_server)
    peer = RedisEventLog(redis_server)
    odd = [
        json.dumps({"type": "TEXT_MESSAGE_CONTENT", "delta": 'two\nlines \\ "quoted" \u2028'}),
        json.dumps({"delta": "日本語 🎉 \x00 \t"}, ensure_ascii=False),
        "{}",
        '{"a":\n1}',
    ]
    logged = [*odd[:3], '{"a": 1}']
    try:
        for run in (RUN, OTHER):
            await log.claim(run, "f")
        await log.append(RUN, odd[:2])
        await log.append(OTHER, odd[2:])
        await log.append(RUN, odd[2:])
        for run in (RUN, OTHER):
            await log.end(run)
        assert [text for _, text in await collect(peer, RUN)] == [*logged[:2], *logged[2:]]
        assert [text for _, text in await collect(peer, OTHER)] == logged[2:]
    finally:
        await peer.aclose()
        await log.aclose()


async def test_appends_of_many_runs_share_one_connection(redis_server: str) -> None:
    # 300 runs appending at once through a pool of two connections: their appends go out
    # together (one pipeline per flush), so none waits for a connection of its own.
    raw = redis_asyncio.Redis.from_url(redis_server)
    log = RedisEventLog(client=redis_asyncio.Redis.from_url(redis_server, max_connections=2))
    runs = [log_key("user", f"run-{i}") for i in range(300)]
    try:
        for run in runs:
            await log.claim(run, "f")
        assert await asyncio.gather(*(log.append(run, ["a", "b"]) for run in runs)) == [2] * 300
        assert await asyncio.gather(*(log.append(run, [run]) for run in runs)) == [3] * 300
        await log.end(runs[-1])
        assert await collect(log, runs[-1]) == [(1, "a"), (2, "b"), (3, runs[-1])]
        assert int((await raw.info("clients"))["connected_clients"]) <= 3
    finally:
        await raw.aclose()
        await log.aclose()


async def test_a_failed_flush_is_logged_and_spares_the_other_runs(
    redis_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    raw = redis_asyncio.Redis.from_url(redis_server)
    log = RedisEventLog(redis_server)
    try:
        for run in (RUN, OTHER):
            await log.claim(run, "f")
        await raw.set(f"agui:run:{{{OTHER}}}:log", "not a stream")
        assert await log.append(RUN, ["a"]) == 1
        assert await log.append(OTHER, ["b"]) == 1  # readers here have it; Redis refuses it
        await log.flushed(OTHER)
        assert f"Could not log 1 events of run {OTHER!r} on Redis" in caplog.text
        await log.end(RUN)
        assert await collect(log, RUN) == [(1, "a")]
    finally:
        await raw.aclose()
        await log.aclose()


async def test_a_script_redis_lost_is_loaded_again(redis_server: str) -> None:
    raw = redis_asyncio.Redis.from_url(redis_server)
    log = RedisEventLog(redis_server)
    try:
        await log.claim(RUN, "f")
        assert await log.append(RUN, ["a"]) == 1
        await raw.script_flush()  # as after a restart of Redis
        assert await log.append(RUN, ["b", "c"]) == 3
        await log.end(RUN)
        assert await collect(log, RUN) == [(1, "a"), (2, "b"), (3, "c")]
    finally:
        await raw.aclose()
        await log.aclose()


async def test_a_log_gone_while_a_reader_waits_is_told(redis_server: str) -> None:
    log, elsewhere = RedisEventLog(redis_server), RedisEventLog(redis_server, poll=0.05)
    raw = redis_asyncio.Redis.from_url(redis_server)
    try:
        await log.claim(RUN, "f")
        await log.append(RUN, ["a"])
        reader = elsewhere.read(RUN, 0)
        assert await anext(reader) == (1, "a")
        await raw.delete(f"agui:run:{{{RUN}}}:log")  # the replica died, its log expired
        with pytest.raises(LogExpiredError):
            await anext(reader)
    finally:
        await raw.aclose()
        await log.aclose()
        await elsewhere.aclose()


async def test_readers_on_the_writing_replica_follow_it_without_round_trips(
    redis_server: str,
) -> None:
    raw = redis_asyncio.Redis.from_url(redis_server)
    log = RedisEventLog(redis_server)
    try:
        await log.claim(OTHER, "f")
        await log.append(OTHER, ["the scripts are loaded"])
        await log.flushed(OTHER)
        await log.claim(RUN, "f")
        got: asyncio.Queue[tuple[int, str]] = asyncio.Queue()

        async def follow() -> None:
            async for item in log.read(RUN, 0):
                got.put_nowait(item)

        reader = asyncio.create_task(follow())
        await asyncio.sleep(0)
        before = await commands(raw)
        await log.append(RUN, texts(20))
        assert [await got.get() for _ in range(20)] == list(enumerate(texts(20), start=1))
        await log.flushed(RUN)
        assert await commands(raw) - before == {"evalsha": 1, "xadd": 20, "pexpire": 1}
        await log.end(RUN)
        await reader
        # Once the run ended, a reader here reads Redis, as on any replica.
        assert await collect(log, RUN, 18) == list(enumerate(texts(2, 19), start=19))
    finally:
        await raw.aclose()
        await log.aclose()


async def test_a_writer_that_lost_its_count_asks_redis(redis_server: str) -> None:
    writer, other = RedisEventLog(redis_server), RedisEventLog(redis_server)
    try:
        await writer.claim(RUN, "f")
        await writer.append(RUN, ["a", "b"])
        await writer.flushed(RUN)
        assert await other.append(RUN, ["c"]) == 3  # a writer that did not claim it
        await other.end(RUN)
        await writer.end(RUN)  # already ended: nothing
        with pytest.raises(RuntimeError):
            await writer.append(RUN, ["d"])
        assert await collect(writer, RUN) == [(1, "a"), (2, "b"), (3, "c")]
    finally:
        await writer.aclose()
        await other.aclose()


async def test_the_stores_give_their_event_logs(redis_server: str, tmp_path: Path) -> None:
    store = RedisThreadStore(redis_server, prefix="app:")
    sqlite = SQLiteThreadStore(tmp_path / "threads.db")
    try:
        log = store.event_log()
        assert isinstance(log, RedisEventLog) and log is store.event_log()
        assert log.client is store.client and log.prefix == "app:"
        assert isinstance(sqlite.event_log(), MemoryEventLog)
        assert sqlite.event_log() is sqlite.event_log()
        assert await log.claim(RUN, "f") is Claim.NEW
        assert await store.threads() == []
    finally:
        await store.aclose()
        await sqlite.aclose()


def test_it_needs_a_url_or_a_client() -> None:
    with pytest.raises(ValueError):
        RedisEventLog()
    with pytest.raises(ValueError):
        RedisEventLog("redis://localhost", max_events=0)
