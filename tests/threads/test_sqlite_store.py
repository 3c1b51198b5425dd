"""``SQLiteThreadStore`` holds the store contract on a real file; its calls leave the event
loop free; it refuses what it cannot be."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ag_ui_openai_agents.threads import SQLiteThreadStore, ThreadStore
from support.store_contract import CONTRACT, Factory


@pytest.fixture
def make(tmp_path: Path) -> Factory:
    def factory(**settings: Any) -> ThreadStore:
        return SQLiteThreadStore(tmp_path / "threads.db", **settings)

    return factory


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_store_contract(make: Factory, rule: Any) -> None:
    await rule(make)


def test_it_needs_a_file() -> None:
    with pytest.raises(ValueError):
        SQLiteThreadStore(":memory:")


async def test_its_calls_run_off_the_event_loop(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path)
    assert await store.load("t") is None  # the tables exist
    loop_thread = threading.get_ident()
    ticks = 0
    # Another connection holds the write lock: the store's next call waits on the file.
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    blocked = asyncio.create_task(store.acquire("t", "a"))
    while ticks < 20:  # the loop keeps running while the store waits
        await asyncio.sleep(0)
        ticks += 1
        assert threading.get_ident() == loop_thread
    assert not blocked.done()
    blocker.execute("COMMIT")
    blocker.close()
    assert await blocked


def test_settings_are_checked(tmp_path: Path) -> None:
    for bad in ({"max_messages": 0}, {"expire_after": 0}, {"lock_ttl": 0}, {"lock_wait": -1}):
        with pytest.raises(ValueError):
            SQLiteThreadStore(tmp_path / "t.db", **bad)


async def test_the_first_calls_on_a_new_file_all_succeed(tmp_path: Path) -> None:
    """Many requests at once on a store whose file does not exist yet (a fresh deployment's
    first requests): none fails while the file is switched to WAL."""
    for trial in range(30):
        store = SQLiteThreadStore(tmp_path / f"fresh-{trial}.db")
        results = await asyncio.gather(
            *(store.load(f"thread-{n}") for n in range(30)), return_exceptions=True
        )
        assert [r for r in results if isinstance(r, BaseException)] == []


@pytest.mark.slow
def test_worker_processes_starting_on_a_new_file_all_succeed(tmp_path: Path) -> None:
    """Four processes, as ``uvicorn --workers 4`` starts them, each making their first call on
    the same new file at once (five new files: the processes start once, and each file is
    given to all four at the same moment)."""
    script = (
        "import asyncio, sys\n"
        "from ag_ui_openai_agents.threads import SQLiteThreadStore\n"
        "for line in sys.stdin:\n"
        "    asyncio.run(SQLiteThreadStore(line.strip()).load('thread-1'))\n"
        "    print('ok', flush=True)\n"
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    answers: list[list[str]] = []
    try:
        for trial in range(5):
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write(f"{tmp_path / f'shared-{trial}.db'}\n")
                worker.stdin.flush()
            answers.append([w.stdout.readline() if w.stdout else "" for w in workers])
            if answers[-1] != ["ok\n"] * 4:
                break
    finally:
        errors = [worker.communicate(timeout=120)[1] for worker in workers]
    assert [w.returncode for w in workers] == [0] * 4, errors
    assert answers == [["ok\n"] * 4] * 5, errors


def held_file(path: Path) -> sqlite3.Connection:
    """Another connection holding the file's write lock (until it commits)."""
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    return blocker


async def test_reads_need_no_write_transaction(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path)
    assert await store.acquire("t", "a")
    await store.save("t", "{}", "a")
    blocker = held_file(path)
    try:
        # A writer holds the file: reads still answer (before: they waited for it, then failed).
        assert await store.load("t") == "{}"
        assert await store.threads() == ["t"]
    finally:
        blocker.execute("COMMIT")
        blocker.close()


async def test_a_renewal_that_waited_writes_an_expiry_from_when_it_wrote(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path, lock_ttl=30)
    assert await store.acquire("t", "a")
    blocker = held_file(path)
    renewal = asyncio.create_task(store.renew("t", "a"))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not renewal.done()  # waiting for the file
    freed_at = time.time()
    blocker.execute("COMMIT")
    blocker.close()

    assert await renewal
    check = sqlite3.connect(path)
    [(expires_at,)] = check.execute("SELECT expires_at FROM agui_thread_locks").fetchall()
    check.close()
    assert expires_at >= freed_at + 30


def rows(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [key for (key,) in db.execute("SELECT key FROM agui_threads ORDER BY key")]


def expire(path: Path, key: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE agui_threads SET expires_at = 1 WHERE key = ?", (key,))


async def test_purge_deletes_expired_rows(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteThreadStore(path)
    for key in ("old", "new", "kept"):
        assert await store.acquire(key, "a")
        await store.save(key, "{}", "a")
    expire(path, "old")

    assert await store.load("old") is None
    assert rows(path) == ["kept", "new", "old"]  # a read deletes nothing
    assert await store.purge() == 1
    assert rows(path) == ["kept", "new"]


async def test_saves_purge_expired_rows_every_so_often(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    every_save, hourly = SQLiteThreadStore(path, purge_every=0), SQLiteThreadStore(path)
    assert await hourly.acquire("a", "a") and await hourly.acquire("b", "b")
    await hourly.save("a", "{}", "a")  # its first save purges; the next not before an hour
    expire(path, "a")
    await hourly.save("b", "{}", "b")
    assert rows(path) == ["a", "b"]

    assert await every_save.acquire("c", "c")
    await every_save.save("c", "{}", "c")
    assert rows(path) == ["b", "c"]
