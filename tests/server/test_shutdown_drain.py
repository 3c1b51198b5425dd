"""The shutdown waits for runs the server owns: the first stop signal starts the drains and
hands over to the server's own handler only once they are over; a second one at once."""

from __future__ import annotations

import asyncio
import signal
from types import FrameType

from ag_ui_openai_agents.server.shutdown import ServerShutdown, _ChainedHandler


async def test_the_servers_handler_runs_once_the_drains_are_over() -> None:
    shutdown = ServerShutdown()
    calls: list[int] = []
    release = asyncio.Event()
    drained: list[str] = []

    async def drain() -> None:
        await release.wait()
        drained.append("done")

    def previous(signum: int, frame: FrameType | None) -> None:
        calls.append(signum)

    shutdown.drain("runs", drain)
    handler = _ChainedHandler(shutdown, previous)
    handler(signal.SIGTERM, None)
    await asyncio.sleep(0.01)
    held = list(calls)
    release.set()
    for _ in range(100):
        if calls:
            break
        await asyncio.sleep(0.01)

    assert shutdown.began and held == []
    assert drained == ["done"] and calls == [signal.SIGTERM]


async def test_a_second_signal_hands_over_at_once() -> None:
    shutdown = ServerShutdown()
    calls: list[int] = []

    async def drain() -> None:
        await asyncio.Event().wait()

    shutdown.drain("runs", drain)
    handler = _ChainedHandler(shutdown, lambda signum, frame: calls.append(signum))
    handler(signal.SIGTERM, None)
    handler(signal.SIGINT, None)

    assert calls == [signal.SIGINT]


async def test_without_drains_the_servers_handler_runs_at_once() -> None:
    shutdown = ServerShutdown()
    calls: list[int] = []
    _ChainedHandler(shutdown, lambda signum, frame: calls.append(signum))(signal.SIGTERM, None)
    assert calls == [signal.SIGTERM] and shutdown.began
