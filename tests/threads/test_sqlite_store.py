"""``SQLiteThreadStore`` holds the store contract on a real file; its calls leave the event
loop free; it refuses what it cannot be."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
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


def test_it_is_a_thread_store(tmp_path: Path) -> None:
    assert isinstance(SQLiteThreadStore(tmp_path / "t.db"), ThreadStore)


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
