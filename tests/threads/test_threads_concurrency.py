"""Two runs on one thread at once: the second waits for the first (or, with ``lock_wait=0``,
is refused at once with THREAD_BUSY), so neither loses the other's messages; a lock left by a
crashed server expires. A page reloaded while a run is going on is answered from the store
without waiting. Both request kinds, the real runner, a real SQLite file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, ResumeEntry, RunFinishedSuccessOutcome, ToolCallStartEvent
from agents import Agent, RunConfig, function_tool, set_tracing_disabled

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import THREAD_BUSY_CODE, SQLiteThreadStore
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)
from support.threads import PROTOCOLS, Conversation, by_thread_id, user

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])


def decide(call: RecordedCall) -> Turn:
    """``look up <x>`` calls the slow tool once; anything else is echoed."""
    users = [item for item in call.input if item.get("role") == "user"]
    turn = len(users)
    text = str(users[-1]["content"]) if users else ""
    last = call.input[-1]
    if text.startswith("look up") and last.get("type") != "function_call_output":
        return Turn([Call("slow_lookup", {"what": text[8:]}, call_id=f"call_lookup_{turn}")])
    return Turn([Text(f"Echo {turn}: {text}", id=f"msg_echo_{turn}_{len(call.input)}")])


class Gate:
    """Holds the slow tool until the test opens it; tells the test the tool started."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.open = asyncio.Event()


def wrapper(store: SQLiteThreadStore, gate: Gate) -> tuple[OpenAIAgentsAgent, Any]:
    @function_tool
    async def slow_lookup(what: str) -> str:
        """Look something up (slowly)."""
        gate.entered.set()
        await gate.open.wait()
        return f"found {what}"

    model = ScriptedResponsesModel(decide)
    agent = Agent(name="looker", tools=[slow_lookup])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    return OpenAIAgentsAgent(
        agent, run_config=config, threads=store, thread_key=by_thread_id
    ), model


class WatchedStore(SQLiteThreadStore):
    """The SQLite store, telling the test when a run found the thread's lock taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused = asyncio.Event()

    async def acquire(self, key: str, token: str) -> bool:
        taken = await super().acquire(key, token)
        if not taken:
            self.refused.set()
        return taken


async def collect(wrapped: OpenAIAgentsAgent, request: Any) -> list[BaseEvent]:
    return [event async for event in wrapped.run_streamed(request)]


async def test_a_second_run_waits_and_sees_the_first(tmp_path: Path, version: str | None) -> None:
    gate = Gate()
    store = WatchedStore(tmp_path / "t.db")
    wrapped, model = wrapper(store, gate)
    chat = Conversation(wrapped, version)
    first = asyncio.create_task(collect(wrapped, chat.request([user("look up tea", "user-1")])))
    await gate.entered.wait()
    second = asyncio.create_task(collect(wrapped, chat.request([user("and coffee?", "user-2")])))
    await store.refused.wait()  # the second run is waiting for the lock
    gate.open.set()

    await first
    late = await second

    final = await chat.send(chat.request([]), history=[])  # checked below, not against history
    ids = [m.id for m in final.snapshot]
    assert ids.index("user-1") < ids.index("call_lookup_1-result") < ids.index("user-2")
    assert [i.get("content") for i in model.calls[-1].input if i.get("role") == "user"] == [
        "look up tea",
        "and coffee?",
    ]
    assert late[-1].type.value == "RUN_FINISHED"


async def test_with_no_wait_the_second_run_is_refused(tmp_path: Path, version: str | None) -> None:
    gate = Gate()
    store = SQLiteThreadStore(tmp_path / "t.db", lock_wait=0)
    wrapped, _model = wrapper(store, gate)
    chat = Conversation(wrapped, version)
    first = asyncio.create_task(collect(wrapped, chat.request([user("look up tea", "user-1")])))
    await gate.entered.wait()

    busy = await chat.send(chat.request([user("and coffee?", "user-2")]), history=[])
    gate.open.set()
    await first
    final = await chat.send(chat.request([]), history=chat.shown)

    assert busy.types == ["RUN_STARTED", "RUN_ERROR"]
    assert busy.run_error.code == THREAD_BUSY_CODE
    assert "user-2" not in {m.id for m in final.snapshot}
    assert "call_lookup_1-result" in {m.id for m in final.snapshot}


async def test_a_reload_during_a_run_is_answered_at_once(
    tmp_path: Path, version: str | None
) -> None:
    gate = Gate()
    wrapped, _model = wrapper(SQLiteThreadStore(tmp_path / "t.db"), gate)
    chat = Conversation(wrapped, version)
    await chat.say("hello", "user-1")
    shown = list(chat.shown)
    first = asyncio.create_task(collect(wrapped, chat.request([user("look up tea", "user-2")])))
    await gate.entered.wait()

    reload = await chat.send(chat.request([]), history=shown)
    gate.open.set()
    events = await first

    assert reload.snapshot == shown
    assert any(isinstance(e, ToolCallStartEvent) for e in events)


async def test_a_lock_left_by_a_crashed_server_expires(tmp_path: Path, version: str | None) -> None:
    path = tmp_path / "t.db"
    crashed = SQLiteThreadStore(path, lock_ttl=0.05)
    chat_id = "thread-9f2c1e4b7a6d4c0e8b1f"
    assert await crashed.acquire(chat_id, "token-of-a-server-that-died")
    wrapped, _ = wrapper(SQLiteThreadStore(path, lock_wait=30), Gate())
    chat = Conversation(wrapped, version, thread_id=chat_id)

    run = await chat.say("hello", "user-1")

    assert run.text == "Echo 1: hello"


async def test_a_reload_while_an_approved_call_runs_shows_it_running(
    tmp_path: Path, version: str | None
) -> None:
    gate = Gate()

    @function_tool(needs_approval=True)
    async def slow_refund(order_id: str) -> str:
        """Refund an order, slowly."""
        gate.entered.set()
        await gate.open.wait()
        return f"Refunded {order_id}"

    model = ScriptedResponsesModel(
        [
            Turn([Call("slow_refund", {"order_id": "7"}, call_id="call_slow")]),
            Turn([Text("Done.", id="msg_done")]),
        ]
    )
    agent = Agent(name="refunds", tools=[slow_refund])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    store = SQLiteThreadStore(tmp_path / "t.db", lock_wait=30)
    wrapped = OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)
    chat = Conversation(wrapped, version)
    await chat.say("Refund order 7", "user-1")
    shown = list(chat.shown)
    resume = ResumeEntry(interrupt_id="call_slow", status="resolved", payload={"approved": True})
    running = asyncio.create_task(collect(wrapped, chat.request([], resume=[resume])))
    await gate.entered.wait()

    # Bounded only so that a regression fails instead of hanging: the reload must not wait.
    reload = await asyncio.wait_for(chat.send(chat.request([]), history=shown), timeout=60)
    gate.open.set()
    done = await running

    assert reload.types == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert reload.snapshot == shown  # the call, no result yet
    assert isinstance(reload.finished.outcome, RunFinishedSuccessOutcome)  # and no interrupt
    assert done[-1].type.value == "RUN_FINISHED"
    final = await chat.send(chat.request([]), history=[])
    assert [m.content for m in final.snapshot if m.role == "tool"] == ["Refunded 7"]
