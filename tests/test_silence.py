"""``SilenceClock``: a waiter hears of a silence once it lasted the clock's seconds, never for a
wait that something ended first, and not once the clock is closed during the wait."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui_openai_agents.silence import SilenceClock


async def wait_on(clock: SilenceClock, seconds: float, woken_after: float | None) -> str:
    """One wait of at most ``seconds``, ended by something else after ``woken_after``."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[str] = loop.create_future()
    if woken_after is not None:
        loop.call_later(woken_after, lambda: waiter.done() or waiter.set_result("woken"))
    clock.waiting(waiter)
    try:
        return await asyncio.wait_for(waiter, seconds)
    finally:
        clock.done()


def silent(waiter: asyncio.Future[Any]) -> None:
    waiter.set_result("silence")


async def test_a_wait_as_long_as_the_silence_hears_of_it_and_a_busy_one_does_not() -> None:
    clock = SilenceClock(0.05, silent)
    try:
        # Many short waits in a row, each ended by an event: no silence among them.
        for _ in range(20):
            assert await wait_on(clock, 5, woken_after=0.001) == "woken"
        # Then nothing comes: the silence is heard, measured from this wait's start.
        assert await wait_on(clock, 5, woken_after=None) == "silence"
        assert await wait_on(clock, 5, woken_after=None) == "silence"
    finally:
        clock.close()


async def test_without_seconds_or_once_closed_there_is_no_silence() -> None:
    assert await wait_on(SilenceClock(None, silent), 5, woken_after=0.1) == "woken"
    clock = SilenceClock(0.01, silent)
    asyncio.get_running_loop().call_soon(clock.close)  # closed during the wait
    assert await wait_on(clock, 5, woken_after=0.1) == "woken"
