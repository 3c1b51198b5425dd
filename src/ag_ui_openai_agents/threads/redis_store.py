"""``RedisThreadStore``: threads in Redis, shared by every replica of the server.

Needs the ``redis`` extra (``pip install 'ag-ui-openai-agents[redis]'``), whose asyncio client
talks to the server without blocking the event loop.

Layout (``prefix`` defaults to ``agui:``)::

    <prefix>thread:<key>   a string: the thread's JSON document (PX = expire_after, if set)
    <prefix>lock:<key>     a string: the token of the run holding the thread (PX = lock_ttl)
    <prefix>run:{<run>}:*  a run's claim and event log (:meth:`RedisThreadStore.event_log`)

A lock is taken with ``SET NX PX``; renewing, releasing and saving are Lua scripts that act
only while the caller's token is the lock's value, so a run whose lock expired (its server
stalled or crashed) can neither free nor overwrite the thread another run took over.
"""

from __future__ import annotations

import re
from typing import Any

from ag_ui_openai_agents.runs.redis_log import RedisEventLog
from ag_ui_openai_agents.threads.store import (
    DEFAULT_EXPIRE_AFTER,
    DEFAULT_INLINE_MEDIA_BYTES,
    DEFAULT_LOCK_TTL,
    DEFAULT_LOCK_WAIT,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_RUN_SECONDS,
    DEFAULT_SHUTDOWN_GRACE_SECONDS,
    ThreadLockLostError,
    ThreadSettings,
)

__all__ = ["RedisThreadStore"]

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""
_SAVE = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
if ARGV[3] == '' then
  redis.call('set', KEYS[2], ARGV[2])
else
  redis.call('set', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 1
"""


_GLOB = re.compile(r"[\\*?\[\]^-]")
"""The characters a ``SCAN MATCH`` pattern gives a meaning to, escaped in a prefix."""


def _import_redis() -> Any:
    try:
        import redis.asyncio as redis_asyncio
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "RedisThreadStore needs the redis client: pip install 'ag-ui-openai-agents[redis]'"
        ) from exc
    return redis_asyncio


class RedisThreadStore:
    """Keep threads in the Redis server at ``url`` (``redis://host:6379/0``), for replicas.

    ``client`` may be given instead of ``url``: a ``redis.asyncio.Redis`` of the application's
    (connection pool, TLS, auth as it configured them). Keys start with ``prefix``.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        client: Any = None,
        prefix: str = "agui:",
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        expire_after: float | None = DEFAULT_EXPIRE_AFTER,
        lock_ttl: float = DEFAULT_LOCK_TTL,
        lock_wait: float = DEFAULT_LOCK_WAIT,
        inline_media_bytes: int | None = DEFAULT_INLINE_MEDIA_BYTES,
        detached_runs: bool = True,
        max_run_seconds: float = DEFAULT_MAX_RUN_SECONDS,
        shutdown_grace_seconds: float = DEFAULT_SHUTDOWN_GRACE_SECONDS,
    ) -> None:
        if (url is None) == (client is None):
            raise ValueError("give RedisThreadStore either a url or a client")
        self.client: Any = client if client is not None else _import_redis().from_url(url)
        self.prefix = prefix
        self.settings = ThreadSettings(
            max_messages,
            max_bytes,
            expire_after,
            lock_ttl,
            lock_wait,
            inline_media_bytes,
            detached_runs=detached_runs,
            max_run_seconds=max_run_seconds,
            shutdown_grace_seconds=shutdown_grace_seconds,
        )
        self._renew = self.client.register_script(_RENEW)
        self._release = self.client.register_script(_RELEASE)
        self._save = self.client.register_script(_SAVE)
        self._event_log: RedisEventLog | None = None

    def __repr__(self) -> str:
        return f"RedisThreadStore(prefix={self.prefix!r})"

    def event_log(self) -> RedisEventLog:
        """The event log of this store's runs, the same on every call: Redis Streams on the
        store's client and prefix, shared by every replica using the same server."""
        if self._event_log is None:
            self._event_log = RedisEventLog(client=self.client, prefix=self.prefix)
        return self._event_log

    def _thread(self, key: str) -> str:
        return f"{self.prefix}thread:{key}"

    def _lock(self, key: str) -> str:
        return f"{self.prefix}lock:{key}"

    def _ttl_ms(self) -> int:
        return max(1, int(self.settings.lock_ttl * 1000))

    async def load(self, key: str) -> str | None:
        """The thread's document, or None when unknown or expired."""
        value = await self.client.get(self._thread(key))
        if value is None:
            return None
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    async def save(self, key: str, document: str, token: str) -> None:
        """Store the document while ``token`` holds the key's lock."""
        after = self.settings.expire_after
        expiry = "" if after is None else str(max(1, int(after * 1000)))
        keys = [self._lock(key), self._thread(key)]
        if not await self._save(keys=keys, args=[token, document, expiry]):
            raise ThreadLockLostError(f"the lock of thread {key!r} is no longer held")

    async def delete(self, key: str) -> None:
        """Forget the thread."""
        await self.client.delete(self._thread(key))

    async def threads(self, prefix: str = "") -> list[str]:
        """The keys of the threads kept (not expired) that start with ``prefix``, sorted
        (``SCAN``: it does not block the server, and walks every key of its database)."""
        start = self._thread("")
        pattern = _GLOB.sub(r"\\\g<0>", self._thread(prefix)) + "*"
        keys: set[str] = set()
        async for found in self.client.scan_iter(match=pattern, count=1000):
            name = found.decode("utf-8") if isinstance(found, bytes) else str(found)
            keys.add(name[len(start) :])
        return sorted(keys)

    async def acquire(self, key: str, token: str) -> bool:
        """Take the key's lock if it is free or expired (``SET NX PX``)."""
        return bool(await self.client.set(self._lock(key), token, nx=True, px=self._ttl_ms()))

    async def renew(self, key: str, token: str) -> bool:
        """Extend the lock ``token`` holds."""
        return bool(await self._renew(keys=[self._lock(key)], args=[token, self._ttl_ms()]))

    async def release(self, key: str, token: str) -> None:
        """Free the lock if ``token`` holds it."""
        await self._release(keys=[self._lock(key)], args=[token])

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self.client.aclose()
