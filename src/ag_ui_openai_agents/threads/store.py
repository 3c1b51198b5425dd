"""The thread store protocol, its settings, and the lease lock every run of a thread holds.

A store keeps one JSON document per thread key (written and read by the package, opaque to
the store) and a lease lock per key. :class:`SQLiteThreadStore` and :class:`RedisThreadStore`
implement it; an application may write its own for another database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = [
    "Lease",
    "ThreadBusyError",
    "ThreadLockLostError",
    "ThreadSettings",
    "ThreadStore",
    "hold_lock",
    "wait_for_lock",
]

logger = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
DEFAULT_EXPIRE_AFTER = 30 * 24 * 3600.0
"""Thirty days: a conversation left that long is rarely taken up again, every save starts the
time anew (a thread in use never expires), and a store's size is then bounded by what its users
did in a month rather than by everything they ever did."""
DEFAULT_INLINE_MEDIA_BYTES = 256 * 1024
DEFAULT_MAX_LIVE_RUNS_PER_KEY = 3
"""A thread runs one turn at a time (its lock): room for that turn, one waiting for the lock,
and one being stopped; a client that starts more on one thread is refused."""
DEFAULT_MAX_LIVE_RUNS = 1000
"""Live runs of one server process: each holds a model stream and its turn in memory (tens to
hundreds of KB), so a thousand stay within a few hundred MB; runs past it are refused."""
DEFAULT_MAX_RUN_SECONDS = 30 * 60.0
"""Thirty minutes: far longer than an interactive answer, tools included, and shorter than the
hour a live run's Redis log lives without news, so a run never outlives its log; a run past
it is stopped and its turn saved."""
DEFAULT_SHUTDOWN_GRACE_SECONDS = 20.0
"""On SIGTERM, live runs get twenty seconds to finish: most answers in progress complete, and
a run cut off then still saves its turn and logs its end well within the 30 s most platforms
wait before they kill the process (Kubernetes' ``terminationGracePeriodSeconds``, gunicorn's
``graceful_timeout``); set it lower where the platform waits less (``docker stop``: 10 s)."""
DEFAULT_LOCK_TTL = 30.0
DEFAULT_LOCK_WAIT = 10.0
_FIRST_POLL = 0.02
_LAST_POLL = 0.25


class ThreadBusyError(Exception):
    """Another run holds the thread's lock and did not release it in time."""


class ThreadLockLostError(Exception):
    """The run's lock expired and another run took the thread: this run's save was refused."""


@dataclass(frozen=True)
class ThreadSettings:
    """Limits, expiry and locking of a thread store."""

    max_messages: int = DEFAULT_MAX_MESSAGES
    """A thread holding this many messages takes no new turn (``THREAD_FULL``)."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """A thread whose document is this large takes no new turn (``THREAD_FULL``)."""
    expire_after: float | None = DEFAULT_EXPIRE_AFTER
    """Seconds after its last save when a thread is forgotten (30 days; None: kept until
    deleted)."""
    lock_ttl: float = DEFAULT_LOCK_TTL
    """Seconds a lock lives unless renewed; a run renews its lock every third of it, so the lock
    of a crashed server is free again at most this long after the crash."""
    lock_wait: float = DEFAULT_LOCK_WAIT
    """Seconds a run waits for another run of the same thread to finish (0: fail at once)."""
    inline_media_bytes: int | None = DEFAULT_INLINE_MEDIA_BYTES
    """Inline data of a tool result's image or file (base64 characters) above which a 1.0
    client gets it by reference, kept in this store and served from ``{path}/media/{id}``
    (None: always inline). docs/media.md says why 256 KiB."""
    detached_runs: bool = True
    """A run belongs to the server, not to the request that started it: it goes on when its
    client goes away, its events are logged so the client can reattach (docs/runs.md), and
    its turn is saved whole. False: a disconnect cancels the run (its turn saved as far as it
    got). Served by ``add_openai_agents_fastapi_endpoint`` with a store that gives an event
    log (``SQLiteThreadStore``, ``RedisThreadStore``)."""
    max_live_runs_per_key: int = DEFAULT_MAX_LIVE_RUNS_PER_KEY
    """Detached runs of one thread (one store key) live at once; more are refused
    (``LIVE_RUNS_LIMIT``)."""
    max_live_runs: int = DEFAULT_MAX_LIVE_RUNS
    """Detached runs live at once in one server process; more are refused."""
    max_run_seconds: float = DEFAULT_MAX_RUN_SECONDS
    """Seconds a detached run may last; then it is stopped (``RUN_TIME_LIMIT``), its turn
    saved as far as it got."""
    shutdown_grace_seconds: float = DEFAULT_SHUTDOWN_GRACE_SECONDS
    """On SIGTERM (or SIGINT), seconds the server's live runs may take to finish before it
    exits; a run still going then ends with RUN_ERROR ``SERVER_SHUTTING_DOWN``, its turn saved
    as far as it got (0: at once). Readers on other replicas follow it through Redis."""

    def __post_init__(self) -> None:
        if self.max_messages < 1 or self.max_bytes < 1:
            raise ValueError("max_messages and max_bytes must be positive")
        if self.expire_after is not None and not self.expire_after > 0:
            raise ValueError("expire_after must be positive, or None")
        if self.inline_media_bytes is not None and self.inline_media_bytes < 0:
            raise ValueError("inline_media_bytes must be zero or more, or None")
        if not self.lock_ttl > 0 or not (self.lock_wait >= 0 and math.isfinite(self.lock_wait)):
            raise ValueError("lock_ttl must be positive and lock_wait zero or more")
        if min(self.max_live_runs_per_key, self.max_live_runs) < 1:
            raise ValueError("max_live_runs_per_key and max_live_runs must be positive")
        if not (self.max_run_seconds > 0 and math.isfinite(self.max_run_seconds)):
            raise ValueError("max_run_seconds must be positive")
        if not (self.shutdown_grace_seconds >= 0 and math.isfinite(self.shutdown_grace_seconds)):
            raise ValueError("shutdown_grace_seconds must be zero or more")


@runtime_checkable
class ThreadStore(Protocol):
    """Where threads are kept: one JSON document and one lease lock per thread key.

    Every method is a coroutine that must not block the event loop. Keys are the application's
    (see ``OpenAIAgentsAgent(thread_key=...)``); documents are opaque text.
    """

    settings: ThreadSettings
    """Limits, expiry and locking."""

    async def load(self, key: str) -> str | None:
        """The thread's document, or None when the thread is unknown or expired."""
        ...

    async def save(self, key: str, document: str, token: str) -> None:
        """Store the document, only while ``token`` holds the key's lock; otherwise raise
        :class:`ThreadLockLostError`. Starts the expiry anew."""
        ...

    async def delete(self, key: str) -> None:
        """Forget the thread."""
        ...

    async def threads(self, prefix: str = "") -> list[str]:
        """The keys of the threads kept (not expired) that start with ``prefix``, sorted."""
        ...

    async def acquire(self, key: str, token: str) -> bool:
        """Take the key's lock for ``settings.lock_ttl`` seconds if it is free or expired."""
        ...

    async def renew(self, key: str, token: str) -> bool:
        """Extend the lock ``token`` holds by ``settings.lock_ttl``; False if it is not held."""
        ...

    async def release(self, key: str, token: str) -> None:
        """Free the lock if ``token`` still holds it (a lock taken over is left alone)."""
        ...


class Lease:
    """The lock a run holds, as its renewals found it."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.lost = False
        """Whether the lock was found taken by another run, or not renewed for ``lock_ttl``."""

    def check(self) -> None:
        """Raise :class:`ThreadLockLostError` once the lock is lost."""
        if self.lost:
            raise ThreadLockLostError(f"the lock of thread {self.key!r} was lost during the run")


async def wait_for_lock(
    store: ThreadStore, key: str, token: str, *, wait: float | None = None
) -> None:
    """Take the thread's lock, waiting up to ``wait`` seconds (default: the store's
    ``lock_wait``) while another run holds it. Raises :class:`ThreadBusyError` when it stays
    taken."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (store.settings.lock_wait if wait is None else wait)
    pause = _FIRST_POLL
    while not await store.acquire(key, token):
        left = deadline - loop.time()
        if left <= 0:
            raise ThreadBusyError(f"thread {key!r} is busy with another run")
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, _LAST_POLL)


@contextlib.asynccontextmanager
async def hold_lock(
    store: ThreadStore, key: str, token: str, *, wait: float | None = None, taken: bool = False
) -> AsyncIterator[Lease]:
    """Hold the thread's lock for the block: wait up to ``wait`` seconds (default: the store's
    ``lock_wait``) for it (unless the caller has ``taken`` it already), renew it while the block
    runs, release it at the end. Raises :class:`ThreadBusyError` when it stays taken.

    The block is given the :class:`Lease`: ``lease.check()`` raises
    :class:`ThreadLockLostError` once a renewal found the lock lost."""
    if not taken:
        await wait_for_lock(store, key, token, wait=wait)
    lease = Lease(key)
    renewer = asyncio.create_task(_renew(store, lease, token))
    try:
        yield lease
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer
        await asyncio.shield(_release(store, key, token))


async def _renew(store: ThreadStore, lease: Lease, token: str) -> None:
    """Renew every third of ``lock_ttl``; the lease is lost when a renewal finds another holder,
    or when no renewal succeeded for ``lock_ttl`` (the lock has expired by then)."""
    loop = asyncio.get_running_loop()
    ttl = store.settings.lock_ttl
    renewed = loop.time()
    while True:
        await asyncio.sleep(ttl / 3)
        attempt = loop.time()  # the lock lives at least ttl from here if this renewal holds
        try:
            held = await store.renew(lease.key, token)
        except Exception:
            logger.exception("Could not renew the lock of thread %r", lease.key)
            if loop.time() - renewed < ttl:
                continue
            held = False
        if not held:
            lease.lost = True
            logger.error("The lock of thread %r was lost during a run; the run stops", lease.key)
            return
        renewed = attempt


async def _release(store: ThreadStore, key: str, token: str) -> None:
    try:
        await store.release(key, token)
    except Exception:
        logger.exception("Could not release the lock of thread %r; it expires by itself", key)
