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
    "ThreadBusyError",
    "ThreadLockLostError",
    "ThreadSettings",
    "ThreadStore",
    "hold_lock",
]

logger = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
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
    expire_after: float | None = None
    """Seconds after its last save when a thread is forgotten (None: kept until deleted)."""
    lock_ttl: float = DEFAULT_LOCK_TTL
    """Seconds a lock lives unless renewed; a run renews its lock every third of it, so the lock
    of a crashed server is free again at most this long after the crash."""
    lock_wait: float = DEFAULT_LOCK_WAIT
    """Seconds a run waits for another run of the same thread to finish (0: fail at once)."""

    def __post_init__(self) -> None:
        if self.max_messages < 1 or self.max_bytes < 1:
            raise ValueError("max_messages and max_bytes must be positive")
        if self.expire_after is not None and not self.expire_after > 0:
            raise ValueError("expire_after must be positive, or None")
        if not self.lock_ttl > 0 or not (self.lock_wait >= 0 and math.isfinite(self.lock_wait)):
            raise ValueError("lock_ttl must be positive and lock_wait zero or more")


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

    async def acquire(self, key: str, token: str) -> bool:
        """Take the key's lock for ``settings.lock_ttl`` seconds if it is free or expired."""
        ...

    async def renew(self, key: str, token: str) -> bool:
        """Extend the lock ``token`` holds by ``settings.lock_ttl``; False if it is not held."""
        ...

    async def release(self, key: str, token: str) -> None:
        """Free the lock if ``token`` still holds it (a lock taken over is left alone)."""
        ...


@contextlib.asynccontextmanager
async def hold_lock(
    store: ThreadStore, key: str, token: str, *, wait: float | None = None
) -> AsyncIterator[None]:
    """Hold the thread's lock for the block: wait up to ``wait`` seconds (default: the store's
    ``lock_wait``) for it, renew it while the block runs, release it at the end. Raises
    :class:`ThreadBusyError` when it stays taken."""
    settings = store.settings
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (settings.lock_wait if wait is None else wait)
    pause = _FIRST_POLL
    while not await store.acquire(key, token):
        left = deadline - loop.time()
        if left <= 0:
            raise ThreadBusyError(f"thread {key!r} is busy with another run")
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, _LAST_POLL)
    renewer = asyncio.create_task(_renew(store, key, token))
    try:
        yield
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer
        await asyncio.shield(_release(store, key, token))


async def _renew(store: ThreadStore, key: str, token: str) -> None:
    while True:
        await asyncio.sleep(store.settings.lock_ttl / 3)
        try:
            held = await store.renew(key, token)
        except Exception:
            logger.exception("Could not renew the lock of thread %r", key)
            continue
        if not held:
            logger.error("The lock of thread %r expired during a run; its save is refused", key)
            return


async def _release(store: ThreadStore, key: str, token: str) -> None:
    try:
        await store.release(key, token)
    except Exception:
        logger.exception("Could not release the lock of thread %r; it expires by itself", key)
