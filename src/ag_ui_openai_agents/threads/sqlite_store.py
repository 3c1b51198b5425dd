"""``SQLiteThreadStore``: threads in one SQLite file, for a single machine.

Every call runs the standard library's ``sqlite3`` in a worker thread (``asyncio.to_thread``)
on a connection of its own, so the event loop never waits on the disk. Several processes may
share the file: the locks are rows of the file, taken in ``BEGIN IMMEDIATE`` transactions.

Layout (two tables, created when missing)::

    agui_threads(key TEXT PRIMARY KEY, document TEXT, updated_at REAL, expires_at REAL NULL)
    agui_thread_locks(key TEXT PRIMARY KEY, token TEXT, expires_at REAL)

Times are UNIX seconds. An expired thread reads as unknown and is deleted on its next save or
load.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ag_ui_openai_agents.threads.store import (
    DEFAULT_LOCK_TTL,
    DEFAULT_LOCK_WAIT,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_MESSAGES,
    ThreadLockLostError,
    ThreadSettings,
)

__all__ = ["SQLiteThreadStore"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agui_threads (
    key TEXT PRIMARY KEY, document TEXT NOT NULL, updated_at REAL NOT NULL, expires_at REAL
);
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
    :class:`RedisThreadStore` when replicas run on several machines.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        expire_after: float | None = None,
        lock_ttl: float = DEFAULT_LOCK_TTL,
        lock_wait: float = DEFAULT_LOCK_WAIT,
    ) -> None:
        if str(path) == ":memory:" or not str(path):
            raise ValueError("SQLiteThreadStore needs a file path (each call opens the file)")
        self.path = Path(path)
        self.settings = ThreadSettings(max_messages, max_bytes, expire_after, lock_ttl, lock_wait)
        self._ready = False
        self._setup = threading.Lock()

    def __repr__(self) -> str:
        return f"SQLiteThreadStore({str(self.path)!r})"

    async def load(self, key: str) -> str | None:
        """The thread's document, or None when unknown or expired."""
        return await self._call(lambda db: self._load(db, key))

    async def save(self, key: str, document: str, token: str) -> None:
        """Store the document while ``token`` holds the key's lock."""
        saved = await self._call(lambda db: self._save(db, key, document, token))
        if not saved:
            raise ThreadLockLostError(f"the lock of thread {key!r} is no longer held")

    async def delete(self, key: str) -> None:
        """Forget the thread."""
        await self._call(lambda db: db.execute("DELETE FROM agui_threads WHERE key = ?", (key,)))

    async def acquire(self, key: str, token: str) -> bool:
        """Take the key's lock if it is free or expired."""
        return await self._call(lambda db: self._acquire(db, key, token))

    async def renew(self, key: str, token: str) -> bool:
        """Extend the lock ``token`` holds."""
        expires = time.time() + self.settings.lock_ttl
        sql = "UPDATE agui_thread_locks SET expires_at = ? WHERE key = ? AND token = ?"
        return await self._call(lambda db: db.execute(sql, (expires, key, token)).rowcount == 1)

    async def release(self, key: str, token: str) -> None:
        """Free the lock if ``token`` holds it."""
        sql = "DELETE FROM agui_thread_locks WHERE key = ? AND token = ?"
        await self._call(lambda db: db.execute(sql, (key, token)))

    # ------------------------------------------------------------------ in the worker thread

    async def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self._run, work)

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        try:
            if not self._ready:
                self._prepare(db)
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

    def _load(self, db: sqlite3.Connection, key: str) -> str | None:
        row = db.execute(
            "SELECT document, expires_at FROM agui_threads WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        document, expires_at = row
        if expires_at is not None and expires_at <= time.time():
            db.execute("DELETE FROM agui_threads WHERE key = ?", (key,))
            return None
        return str(document)

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
