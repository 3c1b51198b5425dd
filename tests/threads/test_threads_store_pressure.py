"""A thread's store under pressure: six slow sync tools filling asyncio's default executor do
not hold up another thread's load and save; a run whose lock another run took stops at once
with THREAD_LOCK_LOST; a turn loads its thread once; documents are read and written off the
event loop. Both request kinds, the real runner, a real SQLite file.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import ResumeEntry
from agents import Agent, RunConfig, function_tool

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import THREAD_LOST_CODE, SQLiteThreadStore, ThreadLockLostError
from ag_ui_openai_agents.threads.record import StoredThread
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)
from support.threads import PROTOCOLS, Conversation, by_thread_id, shop

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

SYNC_TOOLS = 6
"""The probe machine's default executor: six workers."""


def wrapper(store: SQLiteThreadStore, tools: list[Any], turns: Any) -> OpenAIAgentsAgent:
    model = ScriptedResponsesModel(turns)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = Agent(name="worker", tools=tools)
    return OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)


class SlowTools:
    """Sync tools that block their executor thread until the test lets them go."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.entered = 0
        self.all_in = asyncio.Event()
        self.release = threading.Event()
        self._count = threading.Lock()

    def enter(self) -> None:
        with self._count:
            self.entered += 1
            if self.entered == SYNC_TOOLS:
                self.loop.call_soon_threadsafe(self.all_in.set)
        self.release.wait(timeout=300)


def report_turn(call: RecordedCall) -> Turn:
    """``report`` calls the slow tool six times at once; anything else is echoed."""
    users = [item for item in call.input if item.get("role") == "user"]
    text = str(users[-1]["content"]) if users else ""
    if text == "report" and call.input[-1].get("type") != "function_call_output":
        calls = [Call("slow_part", {"part": n}, call_id=f"call_part_{n}") for n in range(6)]
        return Turn(calls)
    return Turn([Text(f"Echo: {text}", id=f"msg_echo_{len(call.input)}")])


async def test_slow_sync_tools_do_not_hold_up_a_threads_load_and_save(
    tmp_path: Path, version: str | None
) -> None:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(SYNC_TOOLS))  # where sync function tools run
    slow = SlowTools(loop)

    @function_tool
    def slow_part(part: int) -> str:
        """Compute one part of the report (slowly, blocking)."""
        slow.enter()
        return f"part {part}"

    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapped = wrapper(store, [slow_part], report_turn)
    busy = Conversation(wrapped, version, thread_id="thread-busy")
    other = Conversation(wrapped, version, thread_id="thread-other")
    reporting = asyncio.create_task(busy.say("report", "user-1"))
    try:
        # Bounded only so that a regression fails instead of hanging.
        await asyncio.wait_for(slow.all_in.wait(), timeout=120)
        answered = await asyncio.wait_for(other.say("hello", "user-1"), timeout=120)
        reloaded = await asyncio.wait_for(other.send(other.request([])), timeout=120)
        still_blocked = not reporting.done() and not slow.release.is_set()
    finally:
        slow.release.set()
    reported = await reporting

    assert still_blocked and slow.entered == SYNC_TOOLS
    assert answered.text == "Echo: hello"
    assert [m.id for m in reloaded.snapshot] == [m.id for m in answered.snapshot]
    assert reported.finished is not None
    assert {m.content for m in reported.snapshot if m.role == "tool"} == {
        f"part {n}" for n in range(6)
    }


class Watched(SQLiteThreadStore):
    """The SQLite store, telling the test when a renewal found the lock taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lost = asyncio.Event()
        self.loads = 0

    async def renew(self, key: str, token: str) -> bool:
        held = await super().renew(key, token)
        if not held:
            self.lost.set()
        return held

    async def load(self, key: str) -> str | None:
        self.loads += 1
        return await super().load(key)


async def test_a_run_whose_lock_is_taken_stops_with_thread_lock_lost(
    tmp_path: Path, version: str | None
) -> None:
    path = tmp_path / "threads.db"
    store = Watched(path, lock_ttl=0.3)
    ran: list[str] = []

    @function_tool
    async def long_task(what: str) -> str:
        """Work for a long time."""
        ran.append(what)
        with sqlite3.connect(path) as db:  # meanwhile another server took the thread over
            db.execute("UPDATE agui_thread_locks SET token = 'another-run'")
        await store.lost.wait()
        return "done"

    turns = [
        Turn([Call("long_task", {"what": "x"}, call_id="call_long")]),
        Turn([Text("All done.")]),
    ]
    chat = Conversation(wrapper(store, [long_task], turns), version)

    run = await chat.say("work", "user-1")

    assert run.types[-1] == "RUN_ERROR" and run.run_error.code == THREAD_LOST_CODE
    assert "TEXT_MESSAGE_CONTENT" not in run.types  # stopped before the model's next turn
    assert isinstance(run.error, ThreadLockLostError)
    assert ran == ["x"]
    assert await store.load("worker/" + chat.thread_id) is None  # nothing of the run kept


async def test_a_turn_loads_its_thread_once(tmp_path: Path, version: str | None) -> None:
    store = Watched(tmp_path / "threads.db")
    s = shop()
    chat = Conversation(s.wrapper(store), version)
    loads: list[int] = []

    async def counted(send: Any) -> Any:
        before = store.loads
        run = await send
        loads.append(store.loads - before)
        return run

    await counted(chat.say("Refund order 7", "user-1"))  # pauses
    approve = ResumeEntry(
        interrupt_id="call_refund_1", status="resolved", payload={"approved": True}
    )
    await counted(chat.send(chat.request([], resume=[approve])))
    await counted(chat.say("Thanks", "user-3", resend=True))  # the whole history again
    await counted(chat.send(chat.request([])))  # a reload
    await counted(chat.send(chat.request(list(chat.shown))))  # a reconnect, nothing new

    assert s.refunds == [("call_refund_1", "7")]
    assert loads == [1, 1, 1, 1, 1]


async def test_documents_are_read_and_written_off_the_loop(
    tmp_path: Path, version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[int] = []
    read, write = StoredThread.from_json, StoredThread.to_json

    def from_json(cls: type[StoredThread], text: str | bytes) -> StoredThread:
        threads.append(threading.get_ident())
        return read(text)

    def to_json(self: StoredThread) -> str:
        threads.append(threading.get_ident())
        return write(self)

    monkeypatch.setattr(StoredThread, "from_json", classmethod(from_json))
    monkeypatch.setattr(StoredThread, "to_json", to_json)
    s = shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "threads.db")), version)
    await chat.say("Hello " * 5_000, "user-1")  # a document of some size (any goes off the loop)
    await chat.say("Again", "user-2")
    await chat.send(chat.request([]))

    assert len(threads) >= 4  # two saves, two loads at least
    assert threading.get_ident() not in threads
