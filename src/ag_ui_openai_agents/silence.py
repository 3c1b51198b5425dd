"""Internal: the silence clock of one waiter: how a long-lived stream knows that nothing came for
a while (a keepalive comment is due) without a timer per wait.

The clock keeps one timer. It is scheduled for the end of the waiter's current wait; when it
fires after that wait ended (something came), it is moved to the end of the wait in progress,
if any, else dropped until the next wait. A wait that ends before its silence costs no timer
operation at all: a stream of events, each waited for, moves the timer at most once per
silence period. Used by the pacing of a run's events (``server/keepalive.py``) and by the
readers of a run's event log (``runs/log.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["SilenceClock"]


class SilenceClock:
    """Calls ``on_silence(waiter)`` when a wait on ``waiter`` lasted ``seconds`` (never with
    None). :meth:`waiting` starts a wait, :meth:`done` ends it, :meth:`close` drops the timer."""

    def __init__(
        self, seconds: float | None, on_silence: Callable[[asyncio.Future[Any]], None]
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._seconds = seconds
        self._on_silence = on_silence
        self._waiter: asyncio.Future[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0

    def waiting(self, waiter: asyncio.Future[Any]) -> None:
        """A wait on ``waiter`` starts now."""
        self._waiter = waiter
        if self._seconds is not None:
            self._due = self._loop.time() + self._seconds
            if self._timer is None:
                self._timer = self._loop.call_at(self._due, self._tick, self._due)

    def done(self) -> None:
        """The wait ended (its timer, if any, stays for the next wait to move)."""
        self._waiter = None

    def _tick(self, due: float) -> None:
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return  # not waiting: the next wait starts the clock again
        if due == self._due:
            self._on_silence(waiter)
        else:
            self._timer = self._loop.call_at(self._due, self._tick, self._due)

    def close(self) -> None:
        """Drop the timer (it would hold the waiter's owner until it fires)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
