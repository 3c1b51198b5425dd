"""``SQLiteThreadStore``: threads in one SQLite file, for a single machine.

Every call runs the standard library's ``sqlite3`` on a connection of its own in one of the
store's own worker threads (:data:`WORKERS` of them, not asyncio's default executor, which the
SDK's sync function tools share), so the event loop never waits on the disk and busy tools never
hold up a thread's load or save. Several processes may share the file: reads see the last
committed state without a write transaction, and the locks are rows of the file, taken and
renewed in ``BEGIN IMMEDIATE`` transactions whose times are read inside them.

Layout (two tables and an index, created when missing)::

    agui_threads(key TEXT PRIMARY KEY, document TEXT, updated_at REAL, expires_at REAL NULL)
    agui_thread_locks(key TEXT PRIMARY KEY, token TEXT, expires_at REAL)

Times are UNIX seconds. An expired thread reads as unknown; :meth:`SQLiteThreadStore.purge`
deletes expired rows, and a save runs it at most every ``purge_every`` seconds.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from ag_ui_openai_agents.runs.log import MemoryEventLog
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

__all__ = ["DEFAULT_PURGE_EVERY", "WORKERS", "SQLiteThreadStore"]

T = TypeVar("T")

WORKERS = 4
"""Worker threads of one store: reads run side by side (WAL), writes take turns on the file."""
DEFAULT_PURGE_EVERY = 3600.0
"""Seconds between two purges of expired rows (run by a save)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agui_threads (
    key TEXT PRIMARY KEY, document TEXT NOT NULL, updated_at REAL NOT NULL, expires_at REAL
);
CREATE INDEX IF NOT EXISTS agui_threads_expiry ON agui_threads (expires_at);
CREATE TABLE IF NOT EXISTS agui_thread_locks (
    key TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at REAL NOT NULL
);
"""
_BUSY_TIMEOUT = 30.0
_SETUP_ATTEMPTS = 40
"""Tries of the WAL switch while another process holds the new file (about 40 s in all)."""


class SQLiteThreadStore:
    """Keep threads in the SQLite file at ``path`` (created with its tables when missing).

    For one machine: every worker process of the server may open the same file. Use
    :class:`RedisThreadStore` when replicas run on several machines. Its event log (detached
    runs, ``detached_runs``) is in the process's memory: serve it from one process, or turn
    ``detached_runs`` off for several workers.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        expire_after: float | None = DEFAULT_EXPIRE_AFTER,
        lock_ttl: float = DEFAULT_LOCK_TTL,
        lock_wait: float = DEFAULT_LOCK_WAIT,
        inline_media_bytes: int | None = DEFAULT_INLINE_MEDIA_BYTES,
        detached_runs: bool = True,
        max_run_seconds: float = DEFAULT_MAX_RUN_SECONDS,
        shutdown_grace_seconds: float = DEFAULT_SHUTDOWN_GRACE_SECONDS,
        purge_every: float = DEFAULT_PURGE_EVERY,
    ) -> None:
        if str(path) == ":memory:" or not str(path):
            raise ValueError("SQLiteThreadStore needs a file path (each call opens the file)")
        if not purge_every >= 0:
            raise ValueError("purge_every must be zero or more")
        self.path = Path(path)
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
        self.purge_every = purge_every
        self._purged_at: float | None = None
        self._ready = False
        self._setup = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._event_log: MemoryEventLog | None = None

    def __repr__(self) -> str:
        return f"SQLiteThreadStore({str(self.path)!r})"

    def event_log(self) -> MemoryEventLog:
        """The event log of this store's runs, the same on every call: in this process's
        memory, for a deployment of one server process (several worker processes or replicas
        share their runs through :class:`RedisThreadStore`'s)."""
        if self._event_log is None:
            self._event_log = MemoryEventLog()
        return self._event_log

    async def load(self, key: str) -> str | None:
        """The thread's document, or None when unknown or expired."""
        sql = "SELECT document, expires_at FROM agui_threads WHERE key = ?"
        row = await self._call(lambda db: db.execute(sql, (key,)).fetchone(), write=False)
        if row is None or (row[1] is not None and row[1] <= time.time()):
            return None
        return str(row[0])

    async def save(self, key: str, document: str, token: str) -> None:
        """Store the document while ``token`` holds the key's lock."""
        saved = await self._call(lambda db: self._save(db, key, document, token))
        if not saved:
            raise ThreadLockLostError(f"the lock of thread {key!r} is no longer held")
        now = time.monotonic()
        if self._purged_at is None or now - self._purged_at >= self.purge_every:
            self._purged_at = now
            await self.purge()

    async def delete(self, key: str) -> None:
        """Forget the thread."""
        await self._call(lambda db: db.execute("DELETE FROM agui_threads WHERE key = ?", (key,)))

    async def threads(self, prefix: str = "") -> list[str]:
        """The keys of the threads kept (not expired) that start with ``prefix``, sorted."""
        return await self._call(lambda db: _keys(db, prefix, time.time()), write=False)

    async def purge(self) -> int:
        """Delete the expired threads (and expired locks); the number of threads deleted."""
        return await self._call(_purge)

    async def acquire(self, key: str, token: str) -> bool:
        """Take the key's lock if it is free or expired."""
        return await self._call(lambda db: self._acquire(db, key, token))

    async def renew(self, key: str, token: str) -> bool:
        """Extend the lock ``token`` holds, from the moment the renewal is written."""
        sql = "UPDATE agui_thread_locks SET expires_at = ? WHERE key = ? AND token = ?"
        ttl = self.settings.lock_ttl
        return await self._call(
            lambda db: db.execute(sql, (time.time() + ttl, key, token)).rowcount == 1
        )

    async def release(self, key: str, token: str) -> None:
        """Free the lock if ``token`` holds it."""
        sql = "DELETE FROM agui_thread_locks WHERE key = ? AND token = ?"
        await self._call(lambda db: db.execute(sql, (key, token)))

    async def aclose(self) -> None:
        """Stop the store's worker threads once their calls are done (a later call starts
        them again)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False)

    # ------------------------------------------------------------------ in the worker thread

    async def _call(self, work: Callable[[sqlite3.Connection], T], *, write: bool = True) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="agui-sqlite")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, work, write)

    def _run(self, work: Callable[[sqlite3.Connection], T], write: bool) -> T:
        """``work`` on a new connection: in a write transaction (``BEGIN IMMEDIATE``, so the
        times it reads are those of the moment it holds the file), or as a plain read."""
        db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        try:
            if not self._ready:
                self._prepare(db)
            if not write:
                return work(db)
            db.execute("BEGIN IMMEDIATE")
            try:
                value = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return value
        finally:
            db.close()

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Switch the file to WAL and create the tables, once per store object.

        The journal-mode switch takes the whole file and does not wait on the busy timeout:
        the first calls of this process wait for each other here, and a switch another
        process holds (workers starting together on a new file) is tried again.
        """
        with self._setup:
            if self._ready:
                return
            for attempt in range(1, _SETUP_ATTEMPTS + 1):
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.executescript(_SCHEMA)
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or attempt == _SETUP_ATTEMPTS:
                        raise
                    time.sleep(0.05 * attempt)
            self._ready = True

    def _save(self, db: sqlite3.Connection, key: str, document: str, token: str) -> bool:
        now = time.time()
        held = db.execute(
            "SELECT 1 FROM agui_thread_locks WHERE key = ? AND token = ? AND expires_at > ?",
            (key, token, now),
        ).fetchone()
        if held is None:
            return False
        after = self.settings.expire_after
        db.execute(
            "INSERT OR REPLACE INTO agui_threads (key, document, updated_at, expires_at) "
            "VALUES (?, ?, ?, ?)",
            (key, document, now, None if after is None else now + after),
        )
        return True

    def _acquire(self, db: sqlite3.Connection, key: str, token: str) -> bool:
        now = time.time()
        row = db.execute(
            "SELECT token, expires_at FROM agui_thread_locks WHERE key = ?", (key,)
        ).fetchone()
        if row is not None and row[1] > now and row[0] != token:
            return False
        db.execute(
            "INSERT OR REPLACE INTO agui_thread_locks (key, token, expires_at) VALUES (?, ?, ?)",
            (key, token, now + self.settings.lock_ttl),
        )
        return True


def _keys(db: sqlite3.Connection, prefix: str, now: float) -> list[str]:
    """The live keys from ``prefix`` on, in key order, while they start with it."""
    keys: list[str] = []
    rows = db.execute(
        "SELECT key, expires_at FROM agui_threads WHERE key >= ? ORDER BY key", (prefix,)
    )
    for key, expires_at in rows:
        if not key.startswith(prefix):
            break
        if expires_at is None or expires_at > now:
            keys.append(key)
    return keys


def _purge(db: sqlite3.Connection) -> int:
    now = time.time()
    db.execute("DELETE FROM agui_thread_locks WHERE expires_at <= ?", (now,))
    return db.execute("DELETE FROM agui_threads WHERE expires_at <= ?", (now,)).rowcount
