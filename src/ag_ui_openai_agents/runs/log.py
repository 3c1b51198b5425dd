"""Internal: the event log of a run that outlives its request: what a reattaching or joining client
catches up on, then follows live.

The run's writer appends its events, each already encoded as the JSON text of one AG-UI
event, in batches (one :meth:`EventLog.append` per flush: whatever was ready when the writer
woke, never one call per event), and calls :meth:`EventLog.end` once the terminal event is
appended. Readers ask for every event after a sequence number: first what is logged, then
the live tail, until the end. Sequence numbers count a run's events from 1 and are given by
the log, so they are the same on every replica reading it (see :mod:`.ids`).

:meth:`EventLog.claim` makes (store key, run id) an idempotency key: the first request with
a run id starts it (``NEW``), the same request sent again reattaches (``SAME``), another body
under a used run id is refused (``CONFLICT``).

Defaults, and why:

- ``max_events`` = 10 000 per run: a long answer streams one event per token delta, so a
  4 000-token answer with a few tool calls is about 5 000 events; 10 000 keep such a run
  whole, so a reload replays it from its start, while bounding a runaway run's log (an
  event is about 100-150 bytes, measured in ``benchmarks/event_log.py``: about 1.5 MB at most
  per run). A longer run is trimmed from its start
  (at least the last ``max_events`` are kept); a reader whose cursor falls before what is
  kept gets :class:`LogExpiredError`.
- ``expire_after`` = 15 minutes after the run's end: long enough for a phone that lost the
  network, a laptop woken from sleep or a page reloaded to come back for the rest, short
  enough that finished runs do not pile up (the finished turn is in the thread store; a
  request after expiry gets the thread's hydration instead).
- ``claim_expire_after`` = 24 hours after the claim: a claim is a few dozen bytes, and must
  outlive the log, so the same request sent again after the log expired is still known (it
  gets the thread's hydration, never a second run).

The protocol's ``read`` is declared ``def ... -> AsyncIterator`` (implementations are async
generators, ``async def`` with ``yield``): ``async for seq, text in log.read(run, after)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ag_ui_openai_agents.silence import SilenceClock

__all__ = [
    "DEFAULT_CLAIM_EXPIRE_AFTER",
    "DEFAULT_EXPIRE_AFTER",
    "DEFAULT_MAX_EVENTS",
    "Claim",
    "EventLog",
    "LogExpiredError",
    "LogMeta",
    "MemoryEventLog",
]

DEFAULT_MAX_EVENTS = 10_000
"""Events kept per run (at least; older ones are trimmed)."""
DEFAULT_EXPIRE_AFTER = 15 * 60.0
"""Seconds a run's log is kept after its end."""
DEFAULT_CLAIM_EXPIRE_AFTER = 24 * 3600.0
"""Seconds a run id's claim (its request fingerprint) is kept."""

READ_BATCH = 256
"""Events a reader takes from the log at a time."""


class LogExpiredError(Exception):
    """The events after the reader's cursor are no longer all in the log: trimmed (the run
    is longer than ``max_events``), expired (``expire_after`` past its end) or never logged."""


class Claim(enum.Enum):
    """What :meth:`EventLog.claim` found for a run's key."""

    NEW = "new"
    """Nobody claimed the key: this caller starts the run."""
    SAME = "same"
    """The key was claimed with the same fingerprint: the same request again (reattach)."""
    CONFLICT = "conflict"
    """The key was claimed with another fingerprint: a run id reused for another request."""


@dataclass(frozen=True)
class LogMeta:
    """What a run's log holds: events ``first`` to ``last`` (``first == last + 1`` when it
    holds none), and whether the run ended."""

    first: int
    last: int
    ended: bool


@runtime_checkable
class EventLog(Protocol):
    """A log of runs' encoded events, keyed by the run's log key (:func:`.ids.log_key`)."""

    async def claim(self, run: str, fingerprint: str) -> Claim:
        """Claim ``run`` for the request whose fingerprint is given (see :class:`Claim`)."""
        ...

    async def append(self, run: str, events: Sequence[str]) -> int:
        """Log ``events`` (JSON texts, in order) as the run's next; return the last seq.
        Readers in this process see them at once; a shared log may send them on later, and
        :meth:`end` waits until it did. Called once per event, it must cost little."""
        ...

    def read(
        self, run: str, after: int = 0, *, idle: float | None = None
    ) -> AsyncIterator[tuple[int, str | None]]:
        """Every ``(seq, event)`` with ``seq > after``, then the live tail, until the run's
        end; :class:`LogExpiredError` when some of them are no longer held. With ``idle``
        (seconds), ``(cursor, None)`` each time the tail was silent that long: the reader's
        turn to write a keepalive (the log's own wait, so a response needs no task of its
        own to time its silences)."""
        ...

    async def end(self, run: str) -> None:
        """The run ended (its terminal event is appended): readers stop after its last event,
        and the log expires ``expire_after`` seconds later. Ending twice does nothing."""
        ...

    async def meta(self, run: str) -> LogMeta | None:
        """What the log holds of ``run``, or None when it holds no log of it."""
        ...


@dataclass(eq=False)
class _Run:
    events: list[str] = field(default_factory=list)
    dropped: int = 0
    ended: bool = False
    gone: bool = False
    waiters: list[asyncio.Future[bool]] = field(default_factory=list)
    """The futures of the readers waiting for news: a notify resolves them True and clears the
    list; a reader whose wait timed out or was cancelled takes its own off."""

    @property
    def last(self) -> int:
        return self.dropped + len(self.events)

    def notify(self) -> None:
        waiters, self.waiters = self.waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)


class _Reader:
    """One reader's waits for news, with its keepalive clock (:class:`.SilenceClock`): a wait
    costs one future and, while events keep coming, no timer."""

    def __init__(self, idle: float | None) -> None:
        self._loop = asyncio.get_running_loop()
        self.clock = SilenceClock(idle, _time_up)

    async def news(self, record: _Run) -> bool:
        """Wait for news of ``record``; False when ``idle`` seconds passed without any."""
        waiter: asyncio.Future[bool] = self._loop.create_future()
        record.waiters.append(waiter)
        self.clock.waiting(waiter)
        try:
            return await waiter
        finally:
            self.clock.done()
            if waiter.cancelled() or not waiter.result():  # not taken off by a notify
                with contextlib.suppress(ValueError):
                    record.waiters.remove(waiter)


def _time_up(waiter: asyncio.Future[Any]) -> None:
    waiter.set_result(False)


class MemoryEventLog:
    """An :class:`EventLog` in this process's memory: for one server process (the SQLite
    thread store's deployment). Replicas share a :class:`.redis_log.RedisEventLog`.

    Expired logs and claims are dropped lazily, on the log's next call. ``clock`` (seconds,
    monotonic) is what expiry is measured with.
    """

    def __init__(
        self,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
        expire_after: float = DEFAULT_EXPIRE_AFTER,
        claim_expire_after: float = DEFAULT_CLAIM_EXPIRE_AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_events < 1:
            raise ValueError("max_events must be at least 1")
        if expire_after < 0 or claim_expire_after < 0:
            raise ValueError("expiry must not be negative")
        self.max_events = max_events
        self.expire_after = expire_after
        self.claim_expire_after = claim_expire_after
        self._clock = clock
        self._slack = max_events // 16
        self._runs: dict[str, _Run] = {}
        self._claims: dict[str, tuple[str, float]] = {}
        self._claim_order: deque[tuple[float, str]] = deque()
        self._ending: deque[tuple[float, str, _Run]] = deque()

    def __repr__(self) -> str:
        return f"MemoryEventLog(runs={len(self._runs)}, max_events={self.max_events})"

    def _sweep(self) -> float:
        now = self._clock()
        while self._ending and self._ending[0][0] <= now:
            _, run, record = self._ending.popleft()
            if self._runs.get(run) is record:
                del self._runs[run]
        while self._claim_order and self._claim_order[0][0] <= now:
            deadline, run = self._claim_order.popleft()
            held = self._claims.get(run)
            if held is not None and held[1] == deadline:
                del self._claims[run]
        return now

    async def claim(self, run: str, fingerprint: str) -> Claim:
        """Claim ``run``; a new claim starts the run's log afresh (readers wait for it)."""
        now = self._sweep()
        held = self._claims.get(run)
        if held is not None:
            return Claim.SAME if held[0] == fingerprint else Claim.CONFLICT
        deadline = now + self.claim_expire_after
        self._claims[run] = (fingerprint, deadline)
        self._claim_order.append((deadline, run))
        await self.drop(run)  # a run id claimed again after its claim expired
        self._runs[run] = _Run()
        return Claim.NEW

    async def append(self, run: str, events: Sequence[str]) -> int:
        """Log ``events`` as the run's next; trim the run's oldest beyond ``max_events``."""
        self._sweep()
        record = self._runs.get(run)
        if record is None:
            record = self._runs[run] = _Run()
        if record.ended:
            raise RuntimeError(f"the run {run!r} has ended: its log takes no more events")
        if not events:
            return record.last
        record.events.extend(events)
        excess = len(record.events) - self.max_events
        if excess > self._slack:
            del record.events[:excess]
            record.dropped += excess
        record.notify()
        return record.last

    async def read(
        self, run: str, after: int = 0, *, idle: float | None = None
    ) -> AsyncIterator[tuple[int, str | None]]:
        """Every ``(seq, event)`` after ``after``, then the live tail, until the end; with
        ``idle``, ``(cursor, None)`` after each ``idle`` seconds without an event."""
        self._sweep()
        record = self._runs.get(run)
        if record is None:
            raise LogExpiredError(f"no log of run {run!r} is held")
        cursor, reader = max(after, 0), _Reader(idle)
        try:
            while True:
                if record.gone:
                    raise LogExpiredError(f"the log of run {run!r} was dropped")
                if cursor < record.dropped:
                    raise LogExpiredError(f"events after {cursor} of run {run!r} were trimmed")
                start = cursor - record.dropped
                if start < len(record.events):
                    for text in record.events[start : start + READ_BATCH]:
                        cursor += 1
                        yield cursor, text
                elif record.ended:
                    return
                elif not await reader.news(record):
                    yield cursor, None
        finally:
            reader.clock.close()

    async def end(self, run: str) -> None:
        """Mark the run ended: wake its readers, expire its log ``expire_after`` later."""
        now = self._sweep()
        record = self._runs.get(run)
        if record is None or record.ended:
            return
        record.ended = True
        record.notify()
        self._ending.append((now + self.expire_after, run, record))

    async def drop(self, run: str) -> None:
        """Forget the run's log now; its readers get :class:`LogExpiredError`."""
        record = self._runs.pop(run, None)
        if record is not None:
            record.gone = True
            record.notify()

    async def meta(self, run: str) -> LogMeta | None:
        """What the log holds of ``run``, or None."""
        self._sweep()
        record = self._runs.get(run)
        if record is None:
            return None
        return LogMeta(first=record.dropped + 1, last=record.last, ended=record.ended)
