"""Knowing that the server process is stopping, so runs in flight can end cleanly.

ASGI tells an application nothing when its server starts a graceful shutdown: uvicorn (and
gunicorn's uvicorn workers) stop accepting connections, then wait for open responses to end.
An SSE stream in the middle of a long run would keep the process alive until it is killed,
and the client would see its stream cut. The server learns it must stop from SIGTERM or
SIGINT, so :meth:`ServerShutdown.watch_signals` puts a handler in front of the one the server
installed: it marks the shutdown, wakes every run waiting on :meth:`ServerShutdown.watching`,
then calls the server's own handler as before. The endpoint chains it once per process, when
the first run starts in the main thread (:meth:`ServerShutdown.watch_signals_once`): the server
has installed its handlers by then.

Only the main thread can handle signals; elsewhere (a server run in a thread, as in tests)
nothing is installed and :meth:`ServerShutdown.begin` can be called directly.

Runs the server owns (detached runs) outlive their responses, so the server's wait for open
responses does not wait for them. Their owner registers a *drain* (:meth:`ServerShutdown.drain`):
the shutdown starts it, and the chained handler calls the server's own handler only once every
drain is over (a drain lets its runs finish within a grace period, then stops the rest). A
second signal while drains run calls the server's handler at once.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _ChainedHandler:
    """A signal handler that notes the shutdown, then runs the handler it replaced: at once,
    or, for the first signal while drains run, once they are over."""

    def __init__(self, shutdown: ServerShutdown, previous: Callable[[int, FrameType | None], Any]):
        self.shutdown = shutdown
        self.previous = previous

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        first = not self.shutdown.began
        self.shutdown.begin()
        drained = self.shutdown.drained() if first else None
        if drained is None:
            self.previous(signum, frame)
            return
        drained.add_done_callback(lambda _: self.previous(signum, frame))


class ServerShutdown:
    """Whether the process is shutting down, and a way for runs to wait for it."""

    def __init__(self) -> None:
        self._began = False
        self._watched = False
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._drains: dict[object, tuple[asyncio.AbstractEventLoop, Drain]] = {}
        self._draining: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def began(self) -> bool:
        """True once the server was told to stop."""
        return self._began

    def begin(self) -> None:
        """Mark the shutdown and wake every watching run (safe from a signal handler)."""
        if not self._began:
            for loop, drain in list(self._drains.values()):
                if not loop.is_closed():
                    future: asyncio.Future[None] = loop.create_future()
                    self._draining.append((loop, future))
                    loop.call_soon_threadsafe(_start_drain, loop, drain, future)
        self._began = True
        for loop, event in list(self._waiters):
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    def drain(self, owner: object, drain: Drain) -> None:
        """Have ``drain`` (a coroutine function, run on the current event loop) started when
        the shutdown begins; the server's signal handler waits for it. One per ``owner``."""
        self._drains[owner] = (asyncio.get_running_loop(), drain)

    def drained(self) -> asyncio.Future[Any] | None:
        """A future done once every drain started so far is over (None when none runs)."""
        pending = [future for _, future in self._draining if not future.done()]
        if not pending:
            return None
        return asyncio.gather(*pending)

    def watch_signals(self) -> None:
        """Chain a handler in front of the current SIGTERM and SIGINT handlers.

        Called once the server serves, so it sees the handlers the server installed.
        Handlers already chained are left alone; a new server (new handlers) starts afresh.
        Default and ignored dispositions are not chained: there is no server to wait for.
        """
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in STOP_SIGNALS:
            current = signal.getsignal(signum)
            if isinstance(current, _ChainedHandler) or not callable(current):
                continue
            signal.signal(signum, _ChainedHandler(self, current))
            self._began = False

    def watch_signals_once(self) -> None:
        """:meth:`watch_signals` the first time it is called in the main thread; then nothing."""
        if self._watched or threading.current_thread() is not threading.main_thread():
            return
        self._watched = True
        self.watch_signals()

    @contextmanager
    def watching(self, event: asyncio.Event | None = None) -> Iterator[asyncio.Event]:
        """An event set when the shutdown begins (at once if it already has): ``event`` when
        given (it may be set for other reasons too), else a new one."""
        event = event if event is not None else asyncio.Event()
        if self._began:
            event.set()
        entry = (asyncio.get_running_loop(), event)
        self._waiters.add(entry)
        try:
            yield event
        finally:
            self._waiters.discard(entry)


Drain = Callable[[], Awaitable[None]]
"""What the shutdown waits for besides open responses: runs the server owns."""


def _start_drain(
    loop: asyncio.AbstractEventLoop, drain: Drain, future: asyncio.Future[None]
) -> None:
    async def run() -> None:
        try:
            await drain()
        finally:
            if not future.done():
                future.set_result(None)

    loop.create_task(run())


server_shutdown = ServerShutdown()
"""The process's shutdown state, shared by every endpoint."""
