"""Internal: pacing a run's events for a long-lived response: keepalive pauses and a stop signal.

:func:`paced` drives the event source in a task of its own and hands each event over as soon
as it exists. When nothing arrived for ``keepalive_seconds``, it yields :data:`Pause.KEEPALIVE`
instead, and goes on waiting for the same event: the timer never interrupts the source, so a
slow tool or model is not disturbed and no event is split or held back. When ``stop`` is set,
the source is cancelled (an SDK run under it is cancelled with it), the items it had already
made are handed over (whatever watched the source saw them: a stopped turn saves no more than
its stream showed), and :data:`Pause.STOPPED` is the last item.

The source runs from start to end in one task, created in ``context`` when given: context
variables it sets stay visible across its steps, and the ones in ``context`` (a run's log ids)
are visible to it and to every task it starts.

Handing an event over costs one future: the source's task appends it to a bounded buffer and
wakes the consumer. The keepalive clock is one timer per stream that is moved only when it
fires (at most once per ``keepalive_seconds``), not a timer per event.
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
from collections import deque
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ag_ui_openai_agents.silence import SilenceClock

T = TypeVar("T")

BUFFERED_ITEMS = 64
"""How far the source may run ahead of the consumer. Items it produces in a burst are then
handed over without a wait each, and a slow client still holds the source back."""

CLOSE_SECONDS = 5.0
"""How long closing waits for a cancelled source to finish its cleanup."""


class Pause(enum.Enum):
    """What :func:`paced` yields instead of an event."""

    KEEPALIVE = "keepalive"
    """Nothing arrived for ``keepalive_seconds``; the source is still working."""
    STOPPED = "stopped"
    """``stop`` was set and the source has been cancelled; nothing follows."""


@dataclass(frozen=True)
class _End:
    """The source's last word: exhausted, or failed with ``error``."""

    error: Exception | None = None


class _Buffer(Generic[T]):
    """The source's items on their way to one consumer, and the consumer's keepalive clock.

    The consumer waits on a future of its own that an item, the end of the source's task, the
    stop signal or the keepalive clock (:class:`.SilenceClock`: one timer, moved only when it
    fires) completes.
    """

    def __init__(self, keepalive_seconds: float | None) -> None:
        self._loop = asyncio.get_running_loop()
        self.items: deque[T | _End] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._room: asyncio.Future[None] | None = None
        self._clock = SilenceClock(keepalive_seconds, self._silence)
        self._silent = False

    async def put(self, item: T | _End) -> None:
        """Append ``item`` once there is room (the consumer holds the source back)."""
        while len(self.items) >= BUFFERED_ITEMS:
            self._room = self._loop.create_future()
            await self._room
        self.items.append(item)
        self.wake()

    def take(self) -> T | _End:
        """The oldest item (there must be one); it makes room for the source."""
        item = self.items.popleft()
        room = self._room
        if room is not None and not room.done():
            room.set_result(None)
        return item

    def wake(self, *_: object) -> None:
        """End the consumer's wait, if it is waiting."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> bool:
        """Wait until woken; True when it was ``keepalive_seconds`` of silence."""
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiter = waiter
        self._silent = False
        self._clock.waiting(waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            self._clock.done()
        return self._silent

    def _silence(self, waiter: asyncio.Future[Any]) -> None:
        self._silent = True
        waiter.set_result(None)

    def close(self) -> None:
        """Drop the timer (it would hold the buffer until it fires)."""
        self._clock.close()


async def _produce(source: AsyncGenerator[T, None], buffer: _Buffer[T]) -> None:
    """Move the source's items into the buffer, then its end (or failure)."""
    async with aclosing(source):
        try:
            async for item in source:
                await buffer.put(item)
        except Exception as exc:
            await buffer.put(_End(exc))
            return
    await buffer.put(_End())


def _start(coroutine: Any, context: contextvars.Context | None) -> asyncio.Task[None]:
    loop = asyncio.get_running_loop()
    task: asyncio.Task[None] = (
        context.run(loop.create_task, coroutine) if context else loop.create_task(coroutine)
    )
    return task


async def _stop(task: asyncio.Task[None]) -> None:
    """Cancel the producer and give its cleanup (an SDK run's) a bounded time to finish."""
    if not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=CLOSE_SECONDS)


def _mark_retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def paced(
    source: AsyncGenerator[T, None],
    *,
    keepalive_seconds: float | None,
    stop: asyncio.Event | None = None,
    context: contextvars.Context | None = None,
) -> AsyncGenerator[T | Pause, None]:
    """Yield the source's items, :data:`Pause.KEEPALIVE` after each silent
    ``keepalive_seconds`` (never with None), and :data:`Pause.STOPPED` when ``stop`` is set.

    The source's exception is raised here after its last item. Closing this generator (the
    client went away) cancels the source and closes it.
    """
    buffer: _Buffer[T] = _Buffer(keepalive_seconds)
    producer = _start(_produce(source, buffer), context)
    producer.add_done_callback(_mark_retrieved)
    producer.add_done_callback(buffer.wake)
    stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
    if stopper is not None:
        stopper.add_done_callback(buffer.wake)
    try:
        while True:
            if stop is not None and stop.is_set():
                await _stop(producer)
                while buffer.items:  # what the source made before it stopped is handed over
                    item = buffer.take()
                    if not isinstance(item, _End):
                        yield item
                yield Pause.STOPPED
                return
            if not buffer.items:
                if producer.done():
                    producer.result()  # cancelled from outside, or a BaseException
                    return  # not reached: a source that ended well left its end behind
                if await buffer.wait() and not buffer.items:
                    yield Pause.KEEPALIVE
                continue
            item = buffer.take()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        if stopper is not None:
            stopper.cancel()
        buffer.close()
        await _stop(producer)
