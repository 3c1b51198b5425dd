"""``MemoryEventLog``: the event log contract in process (expiry on a fake clock), and what
only an in-process log does."""

from __future__ import annotations

import asyncio

import pytest

from ag_ui_openai_agents.runs import (
    DEFAULT_EXPIRE_AFTER,
    DEFAULT_MAX_EVENTS,
    Claim,
    EventLog,
    LogExpiredError,
    MemoryEventLog,
)
from support.event_log_contract import CONTRACT, RUN, Harness, collect, texts


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def harness(clock: FakeClock) -> Harness:
    async def elapse(seconds: float) -> None:
        clock.now += seconds

    return Harness(
        make=lambda **settings: MemoryEventLog(clock=clock, **settings),
        peer=lambda log: log,
        elapse=elapse,
    )


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_event_log_contract(harness: Harness, rule: object) -> None:
    await rule(harness)  # type: ignore[operator]


def test_it_is_an_event_log_with_documented_defaults() -> None:
    log = MemoryEventLog()
    assert isinstance(log, EventLog)
    assert (log.max_events, log.expire_after) == (DEFAULT_MAX_EVENTS, DEFAULT_EXPIRE_AFTER)
    with pytest.raises(ValueError):
        MemoryEventLog(max_events=0)
    with pytest.raises(ValueError):
        MemoryEventLog(expire_after=-1)


async def test_an_ended_run_takes_no_more_events() -> None:
    log = MemoryEventLog()
    await log.claim(RUN, "f")
    await log.append(RUN, ["a"])
    await log.end(RUN)
    with pytest.raises(RuntimeError):
        await log.append(RUN, ["b"])
    assert await collect(log, RUN) == [(1, "a")]


async def test_a_slow_reader_overtaken_by_trimming_is_told() -> None:
    log = MemoryEventLog(max_events=4)
    await log.claim(RUN, "f")
    await log.append(RUN, texts(4))
    reader = log.read(RUN, 0)
    assert await anext(reader) == (1, texts(1)[0])
    await log.append(RUN, texts(8, start=5))
    with pytest.raises(LogExpiredError):
        async for _ in reader:
            pass


async def test_expired_runs_and_claims_are_dropped(clock: FakeClock) -> None:
    log = MemoryEventLog(expire_after=60, claim_expire_after=600, clock=clock)
    for n in range(50):
        run = f"k\x1frun-{n}"
        await log.claim(run, "f")
        await log.append(run, texts(20))
        await log.end(run)
    assert "runs=50" in repr(log)
    clock.now += 61
    assert await log.claim("k\x1frun-0", "g") is Claim.CONFLICT
    assert "runs=0" in repr(log)
    clock.now += 600
    assert await log.claim("k\x1frun-0", "g") is Claim.NEW
    assert await log.meta("k\x1frun-1") is None


async def test_a_reclaimed_run_leaves_its_old_readers_on_the_old_log(clock: FakeClock) -> None:
    log = MemoryEventLog(claim_expire_after=10, clock=clock)
    await log.claim(RUN, "old")
    await log.append(RUN, ["old"])
    follower = asyncio.create_task(collect(log, RUN))
    await asyncio.sleep(0)
    clock.now += 11
    assert await log.claim(RUN, "new") is Claim.NEW
    await log.append(RUN, ["new"])
    await log.end(RUN)
    assert await collect(log, RUN) == [(1, "new")]
    with pytest.raises(LogExpiredError):
        await follower


async def test_a_dropped_log_is_gone_for_its_readers() -> None:
    log = MemoryEventLog()
    await log.claim(RUN, "f")
    await log.append(RUN, ["a"])
    follower = asyncio.create_task(collect(log, RUN))
    await asyncio.sleep(0)
    await log.drop(RUN)
    with pytest.raises(LogExpiredError):
        await follower
    assert await log.meta(RUN) is None
    assert await log.claim(RUN, "f") is Claim.SAME  # its claim stays


async def test_a_reader_s_keepalive_turns_leave_nothing_behind() -> None:
    # A silent run's reader times out again and again: each wait that timed out takes its
    # own future off the run, so a long silence holds no more than one wait's.
    log = MemoryEventLog()
    await log.claim(RUN, "f")
    await log.append(RUN, ["first"])
    turns = 0
    async for _, text in log.read(RUN, 0, idle=0.001):
        turns += text is None
        if turns == 200:
            break
    assert len(log._runs[RUN].waiters) <= 1
