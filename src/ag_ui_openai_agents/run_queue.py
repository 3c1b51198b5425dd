"""Internal: the one bounded queue between what happens during a run and ``to_agui``'s loop.

A run with a :class:`~ag_ui_openai_agents.SharedState` has three producers, all feeding one
:class:`RunQueue` that one loop (``AGUITranslator.to_agui``) consumes:

* the SDK's stream, read by a task of the queue's own (:meth:`RunQueue.read`);
* the agents used as tools: ``subagent_events`` hands each nested event to the run's sink,
  which offers it here (:meth:`RunQueue.offer`);
* the shared state: each change marks the queue (:meth:`RunQueue.mark`). The state is sent
  whole, or as a delta from what was sent last, so one mark stands for any number of changes
  and takes no room; the loop asks the state itself whether it changed before each item.

Items come out in the order they went in. After a mark, once the items before it are taken,
the loop gets :data:`IDLE`: its turn to send the state's change (it also asks the state before
each item) and whatever nested events the engine can stream by then. A run without a shared
state has no producer but the SDK's stream: its loop reads that stream itself, with no queue
and nothing read ahead.

The queue holds at most ``maxsize`` items. An item offered while it is full is parked with a
future that completes once the item is in: the reader awaits it, so it stops reading the SDK's
stream (the SDK keeps what the run produces meanwhile, as it does for any slow consumer), and
``subagent_events`` returns it to the SDK, which awaits what ``on_stream`` returns (its
``on_stream_max_pending_events`` bounds the nested events waiting behind it). Each waiting
producer parks one item. :meth:`RunQueue.aclose` cancels and awaits the reader, releases the
waiting producers and drops whatever is offered afterwards.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Final

__all__ = ["IDLE", "RUN_QUEUE_SIZE", "RunQueue"]

RUN_QUEUE_SIZE = 64
"""How many items a run's queue holds before its producers wait."""


class _Idle:
    __slots__ = ()

    def __repr__(self) -> str:
        return "IDLE"


IDLE: Final = _Idle()
"""What the queue gives its consumer after a mark, once the items before it are taken."""


class RunQueue:
    """The bounded, ordered queue of one run; create it inside the run's event loop."""

    __slots__ = (
        "_closed",
        "_ended",
        "_error",
        "_getter",
        "_items",
        "_loop",
        "_marked",
        "_parked",
        "_reader",
        "_thread",
        "maxsize",
        "peak",
    )

    def __init__(self, maxsize: int = RUN_QUEUE_SIZE) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self.peak = 0
        """The most items the queue has held at once (never more than ``maxsize``)."""
        self._items: deque[Any] = deque()
        self._parked: deque[tuple[Any, asyncio.Future[None]]] = deque()
        """Items offered while the queue was full, each with what its producer awaits."""
        self._getter: asyncio.Future[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ended = False
        self._error: BaseException | None = None
        self._marked = True  # the first call gives IDLE: what came before the loop is sent
        self._closed = False
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def reading(self) -> bool:
        """Whether the task reading the SDK's stream is still running."""
        return self._reader is not None and not self._reader.done()

    # Producers ---------------------------------------------------------------------------------

    def read(self, stream: AsyncIterator[Any]) -> None:
        """Start the task that reads ``stream`` into the queue; the consumer stops after the
        stream ends (and raises its failure after the items read before it)."""
        self._reader = self._loop.create_task(self._read(stream))

    async def _read(self, stream: AsyncIterator[Any]) -> None:
        items, maxsize = self._items, self.maxsize
        try:
            async for item in stream:  # offer(), minus what the loop's own thread needs not
                if self._closed:
                    return
                if len(items) < maxsize and not self._parked:
                    self._append(item)
                    continue
                room = self._loop.create_future()
                self._parked.append((item, room))
                await room
        except asyncio.CancelledError as exc:
            if not self._closed:  # the stream raised it, nobody cancelled the reader
                self._error = exc
            raise
        except BaseException as exc:
            self._error = exc
        finally:
            self._ended = True
            self._wake()

    def offer(self, item: Any) -> asyncio.Future[None] | None:
        """Put ``item`` in the queue, or, when it is full, park it until there is room and
        return the future that completes then: a producer that awaits it waits for the
        consumer. Dropped once the queue is closed. From another thread it is offered from
        the loop's thread, and nothing is returned."""
        if threading.get_ident() != self._thread:
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self.offer, item)
            return None
        if self._closed:
            return None
        if len(self._items) < self.maxsize and not self._parked:
            self._append(item)
            return None
        room = self._loop.create_future()
        self._parked.append((item, room))
        return room

    def mark(self) -> None:
        """Something outside the queue changed (the shared state): the consumer gets
        :data:`IDLE` once it has taken the items queued before, even if no item follows.
        Any thread may call it."""
        if threading.get_ident() != self._thread:
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self.mark)
            return
        self._marked = True
        self._wake()

    def _append(self, item: Any) -> None:
        items = self._items
        items.append(item)
        if len(items) > self.peak:
            self.peak = len(items)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def _wake(self) -> None:
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def _unpark(self) -> None:
        """Move parked items in while there is room, releasing their producers."""
        parked = self._parked
        while parked and len(self._items) < self.maxsize:
            item, room = parked.popleft()
            self._append(item)
            if not room.done():
                room.set_result(None)

    # The consumer ------------------------------------------------------------------------------

    def __aiter__(self) -> RunQueue:
        return self

    async def __anext__(self) -> Any:
        """The next item; :data:`IDLE` once the items are taken after a mark; stops once the
        stream ended and every item was taken (raising the stream's failure, if any)."""
        items = self._items
        while True:
            if items:
                item = items.popleft()
                if self._parked:
                    self._unpark()
                return item
            if self._marked:
                self._marked = False
                return IDLE
            if self._ended:
                error, self._error = self._error, None
                if error is not None:
                    raise error
                raise StopAsyncIteration
            getter = self._getter = self._loop.create_future()
            try:
                await getter
            finally:
                self._getter = None

    async def aclose(self) -> None:
        """Stop: cancel and await the reader, release waiting producers, drop what is held
        and whatever is offered from now on."""
        self._closed = True
        self._items.clear()
        while self._parked:
            _, room = self._parked.popleft()
            if not room.done():
                room.set_result(None)
        reader = self._reader
        if reader is not None and not reader.done():
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
