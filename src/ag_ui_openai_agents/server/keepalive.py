"""Internal: pacing a run's events for a long-lived response: keepalive pauses and a stop signal.

:func:`paced` drives the event source in a task of its own and hands each event over as soon
as it exists. When nothing arrived for ``keepalive_seconds``, it yields :data:`Pause.KEEPALIVE`
instead, and goes on waiting for the same event: the timer never interrupts the source, so a
slow tool or model is not disturbed and no event is split or held back. When ``stop`` is set,
the source is cancelled (an SDK run under it is cancelled with it) and :data:`Pause.STOPPED`
is the last item.

The source runs from start to end in one task, created in ``context`` when given: context
variables it sets stay visible across its steps, and the ones in ``context`` (a run's log ids)
are visible to it and to every task it starts.
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, TypeVar

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


async def _produce(source: AsyncGenerator[T, None], queue: asyncio.Queue[Any]) -> None:
    """Move the source's items into the bounded queue, then its end (or failure)."""
    async with aclosing(source):
        try:
            async for item in source:
                await queue.put(item)
        except Exception as exc:
            await queue.put(_End(exc))
            return
    await queue.put(_End())


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
    queue: asyncio.Queue[T | _End] = asyncio.Queue(maxsize=BUFFERED_ITEMS)
    producer = _start(_produce(source, queue), context)
    producer.add_done_callback(_mark_retrieved)
    getter: asyncio.Task[T | _End] | None = None
    stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
    watched: set[asyncio.Future[Any]] = {producer} | ({stopper} if stopper else set())
    try:
        while True:
            if stop is not None and stop.is_set():
                await _stop(producer)
                yield Pause.STOPPED
                return
            if getter is None:
                if queue.empty():
                    getter = asyncio.ensure_future(queue.get())
                    continue
                item = queue.get_nowait()
            else:
                done, _ = await asyncio.wait(
                    {getter} | watched,
                    timeout=keepalive_seconds,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if getter not in done:
                    if producer in done:
                        producer.result()  # cancelled from outside, or a BaseException
                        watched.discard(producer)  # it ended well: its end is in the queue
                    elif not done:
                        yield Pause.KEEPALIVE
                    continue
                item, getter = getter.result(), None
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        for waiter in (getter, stopper):
            if waiter is not None:
                waiter.cancel()
        await _stop(producer)
