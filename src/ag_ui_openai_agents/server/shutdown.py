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
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _ChainedHandler:
    """A signal handler that notes the shutdown, then runs the handler it replaced."""

    def __init__(self, shutdown: ServerShutdown, previous: Callable[[int, FrameType | None], Any]):
        self.shutdown = shutdown
        self.previous = previous

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.shutdown.begin()
        self.previous(signum, frame)


class ServerShutdown:
    """Whether the process is shutting down, and a way for runs to wait for it."""

    def __init__(self) -> None:
        self._began = False
        self._watched = False
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    @property
    def began(self) -> bool:
        """True once the server was told to stop."""
        return self._began

    def begin(self) -> None:
        """Mark the shutdown and wake every watching run (safe from a signal handler)."""
        self._began = True
        for loop, event in list(self._waiters):
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

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


server_shutdown = ServerShutdown()
"""The process's shutdown state, shared by every endpoint."""
