"""What every event log must do, as functions of a harness, run by the in-process log's tests
(fast) and the Redis log's tests (against a real ``redis-server``).

Each rule asserts what readers see, never how long anything took: expiry is driven by the
harness (a fake clock in process, real seconds on Redis, with expiries of a fraction of one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ag_ui_openai_agents.runs import Claim, EventLog, LogExpiredError, LogMeta

RUN = "user-1:thread-1\x1frun-1"
OTHER = "user-1:thread-1\x1frun-2"


@dataclass
class Harness:
    """Makes logs on one backing and lets time pass for them."""

    make: Callable[..., EventLog]
    """A log with the given settings (``max_events``, ``expire_after``, ...)."""
    peer: Callable[[EventLog], EventLog]
    """The same log as another replica sees it (itself, in process)."""
    elapse: Callable[[float], Awaitable[None]]
    """Let this many seconds pass for expiry."""


async def collect(log: EventLog, run: str, after: int = 0) -> list[tuple[int, str]]:
    return [item async for item in log.read(run, after)]


def texts(count: int, start: int = 1) -> list[str]:
    return [f'{{"type":"TEXT_MESSAGE_CONTENT","delta":"{n}"}}' for n in range(start, start + count)]


async def events_are_read_after_a_seq(harness: Harness) -> None:
    log = harness.make()
    assert await log.claim(RUN, "f") is Claim.NEW
    assert await log.append(RUN, texts(2)) == 2
    assert await log.append(RUN, []) == 2
    assert await log.append(RUN, texts(1, start=3)) == 3
    await log.end(RUN)
    everything = list(enumerate(texts(3), start=1))
    for reader in (log, harness.peer(log)):
        assert await collect(reader, RUN) == everything
        assert await collect(reader, RUN, 2) == everything[2:]
        assert await collect(reader, RUN, 3) == []
        assert await collect(reader, RUN, 9) == []


async def runs_are_apart(harness: Harness) -> None:
    log = harness.make()
    await log.claim(RUN, "f")
    await log.claim(OTHER, "f")
    await log.append(RUN, ["a1", "a2"])
    await log.append(OTHER, ["b1"])
    await log.end(OTHER)
    await log.end(RUN)
    assert await collect(log, RUN) == [(1, "a1"), (2, "a2")]
    assert await collect(harness.peer(log), OTHER) == [(1, "b1")]


async def long_runs_are_read_whole(harness: Harness) -> None:
    log = harness.make()
    await log.claim(RUN, "f")
    for start in range(1, 1001, 100):
        await log.append(RUN, texts(100, start))
    await log.end(RUN)
    read = await collect(harness.peer(log), RUN, 7)
    assert read == list(enumerate(texts(993, 8), start=8))


async def the_live_tail_wakes_readers(harness: Harness) -> None:
    log = harness.make()
    await log.claim(RUN, "f")
    seen: asyncio.Queue[tuple[int, str]] = asyncio.Queue()

    async def follow(reader: EventLog) -> list[tuple[int, str]]:
        got = []
        async for item in reader.read(RUN, 0):
            got.append(item)
            seen.put_nowait(item)
        return got

    readers = [asyncio.create_task(follow(r)) for r in (log, harness.peer(log))]
    await log.append(RUN, ["one"])
    assert {await seen.get(), await seen.get()} == {(1, "one")}
    await log.append(RUN, ["two", "three"])
    assert [await seen.get() for _ in range(4)].count((3, "three")) == 2
    await log.append(RUN, ["four"])
    await log.end(RUN)
    expected = [(1, "one"), (2, "two"), (3, "three"), (4, "four")]
    assert await asyncio.gather(*readers) == [expected, expected]


async def the_end_stops_readers(harness: Harness) -> None:
    log = harness.make()
    await log.claim(RUN, "f")
    await log.append(RUN, ["only"])
    started = asyncio.Event()

    async def follow(reader: EventLog) -> list[tuple[int, str]]:
        got = []
        async for item in reader.read(RUN, 0):
            got.append(item)
            started.set()
        return got

    waiting = [asyncio.create_task(follow(r)) for r in (log, harness.peer(log), log)]
    await started.wait()
    await log.end(RUN)
    await log.end(RUN)  # twice: nothing more
    assert await asyncio.gather(*waiting) == [[(1, "only")]] * 3
    assert await log.meta(RUN) == LogMeta(first=1, last=1, ended=True)


async def _follow_through_silences(log: EventLog, reader: EventLog, run: str) -> list[Any]:
    """What ``reader`` reads of ``run`` (idle 0.05 s) when the run is silent until the
    reader had two keepalive turns, then logs one more event and ends."""
    await log.claim(run, "f")
    await log.append(run, ["first"])
    got: list[tuple[int, str | None]] = []
    silent_twice = asyncio.Event()

    async def follow() -> None:
        async for item in reader.read(run, 0, idle=0.05):
            got.append(item)
            if got.count((1, None)) == 2:
                silent_twice.set()

    following = asyncio.create_task(follow())
    await asyncio.wait_for(silent_twice.wait(), 10)
    await log.append(run, ["second"])
    await log.end(run)
    await asyncio.wait_for(following, 10)
    return got


async def a_silent_tail_gives_the_reader_its_keepalive_turns(harness: Harness) -> None:
    log = harness.make()
    for run, reader in ((RUN, log), (OTHER, harness.peer(log))):
        got = await _follow_through_silences(log, reader, run)
        # Each event once, in order; each keepalive turn on the cursor of the event before it
        # (a reader on another replica may wait for the first event's flush with one), and
        # the turns the test waited for between the two events.
        assert [item for item in got if item[1] is not None] == [(1, "first"), (2, "second")]
        cursors = [0]
        for seq, text in got:
            if text is None:
                assert seq == cursors[-1]
            cursors.append(seq)
        assert got.count((1, None)) >= 2


async def a_claimed_run_is_waited_for(harness: Harness) -> None:
    log = harness.make()
    assert await log.claim(RUN, "f") is Claim.NEW
    assert await log.meta(RUN) == LogMeta(first=1, last=0, ended=False)
    reader = asyncio.create_task(collect(harness.peer(log), RUN))
    await asyncio.sleep(0)
    await log.append(RUN, ["started"])
    await log.end(RUN)
    assert await reader == [(1, "started")]


async def an_unknown_run_has_no_log(harness: Harness) -> None:
    log = harness.make()
    assert await log.meta(RUN) is None
    with pytest.raises(LogExpiredError):
        await collect(log, RUN)


async def a_long_run_is_trimmed_from_its_start(harness: Harness) -> None:
    log = harness.make(max_events=10)
    await log.claim(RUN, "f")
    for start in range(1, 501, 50):
        await log.append(RUN, texts(50, start))
    meta = await log.meta(RUN)
    assert meta is not None and meta.last == 500 and 1 < meta.first <= 491
    reader = harness.peer(log)
    for after in (0, meta.first - 2):
        with pytest.raises(LogExpiredError):
            await collect(reader, RUN, after)
    await log.end(RUN)
    assert await collect(reader, RUN, 490) == list(enumerate(texts(10, 491), start=491))
    kept = await collect(reader, RUN, meta.first - 1)
    assert [seq for seq, _ in kept] == list(range(meta.first, 501))


async def the_log_expires_after_the_end(harness: Harness) -> None:
    log = harness.make(expire_after=0.1)
    await log.claim(RUN, "f")
    await log.append(RUN, ["a"])
    await harness.elapse(0.3)  # a live run's log stays
    assert await log.meta(RUN) == LogMeta(first=1, last=1, ended=False)
    await log.end(RUN)
    await harness.elapse(0.3)
    for reader in (log, harness.peer(log)):
        assert await reader.meta(RUN) is None
        with pytest.raises(LogExpiredError):
            await collect(reader, RUN)
    assert await log.claim(RUN, "f") is Claim.SAME  # the claim outlives the log


async def a_claim_is_new_same_or_conflict(harness: Harness) -> None:
    log = harness.make()
    peer = harness.peer(log)
    assert await log.claim(RUN, "body-a") is Claim.NEW
    assert await log.claim(RUN, "body-a") is Claim.SAME
    assert await peer.claim(RUN, "body-a") is Claim.SAME
    assert await peer.claim(RUN, "body-b") is Claim.CONFLICT
    assert await peer.claim(OTHER, "body-b") is Claim.NEW
    assert await log.claim(RUN.replace("user-1", "user-2"), "body-a") is Claim.NEW


async def one_of_racing_claims_is_new(harness: Harness) -> None:
    log = harness.make()
    logs = [log, harness.peer(log)] * 4
    claims = await asyncio.gather(*(one.claim(RUN, "f") for one in logs))
    assert sorted(claim.value for claim in claims) == ["new"] + ["same"] * 7


async def an_expired_claim_starts_afresh(harness: Harness) -> None:
    log = harness.make(claim_expire_after=0.1, expire_after=0.05)
    assert await log.claim(RUN, "first") is Claim.NEW
    await log.append(RUN, ["old"])
    await log.end(RUN)
    await harness.elapse(0.3)
    assert await harness.peer(log).claim(RUN, "second") is Claim.NEW
    await log.append(RUN, ["new"])
    await log.end(RUN)
    assert await collect(log, RUN) == [(1, "new")]


CONTRACT: list[Callable[[Harness], Awaitable[Any]]] = [
    events_are_read_after_a_seq,
    runs_are_apart,
    long_runs_are_read_whole,
    the_live_tail_wakes_readers,
    the_end_stops_readers,
    a_silent_tail_gives_the_reader_its_keepalive_turns,
    a_claimed_run_is_waited_for,
    an_unknown_run_has_no_log,
    a_long_run_is_trimmed_from_its_start,
    the_log_expires_after_the_end,
    a_claim_is_new_same_or_conflict,
    one_of_racing_claims_is_new,
    an_expired_claim_starts_afresh,
]
