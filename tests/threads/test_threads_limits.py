"""A thread's size limit counts everything stored: edited arguments and reasons of answers,
the request's state, new messages. An answer too large for the thread is refused and its call
stays open; a new turn too large is THREAD_FULL; a resume's oversized state is not taken. A
thread id too long is refused with one RUN_ERROR that does not repeat it, and nothing is
stored. Both request kinds, the real runner, a real SQLite file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import ResumeEntry, RunAgentInput, UserMessage

from ag_ui_openai_agents import Approvals
from ag_ui_openai_agents.errors import THREAD_ANSWER_CODE, THREAD_ID_CODE
from ag_ui_openai_agents.threads import THREAD_FULL_CODE, SQLiteThreadStore, store_key
from ag_ui_openai_agents.threads.runs import MAX_THREAD_ID_LENGTH
from support.http import app_with, asgi_client
from support.invariants import parse_sse
from support.threads import PROTOCOLS, TOOL_NAME, Conversation, Shop, shop, user

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

LIMIT = 20_000
CALL = "call_refund_1"


def answer(payload: dict[str, Any]) -> ResumeEntry:
    return ResumeEntry(interrupt_id=CALL, status="resolved", payload=payload)


async def paused(store: SQLiteThreadStore, version: str | None) -> tuple[Shop, Conversation]:
    s = shop()
    chat = Conversation(s.wrapper(store, approvals=Approvals(editable=(TOOL_NAME,))), version)
    run = await chat.say("Refund order 7", "user-1")
    assert [i.tool_call_id for i in run.interrupts] == [CALL]
    return s, chat


async def stored_bytes(store: SQLiteThreadStore, chat: Conversation) -> int:
    document = await store.load(store_key("shop", chat.thread_id))
    assert document is not None
    return len(document.encode("utf-8"))


async def test_edits_past_the_limit_are_refused_and_the_call_stays_open(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=LIMIT)
    s, chat = await paused(store, version)
    before = await stored_bytes(store, chat)

    # The probe: five resumes, each editing the call with 300 kB of arguments.
    refused = [
        await chat.send(chat.request([], resume=[answer(edits)]))
        for edits in [{"approved": True, "editedArgs": {"order_id": "x" * 300_000}}] * 5
    ]
    reason = {"approved": False, "reason": "no " * 10_000}
    rejected = await chat.send(chat.request([], resume=[answer(reason)]))
    reloaded = await chat.send(chat.request([]))
    approved = await chat.send(chat.request([], resume=[answer({"approved": True})]))

    assert [r.types for r in refused] == [["RUN_STARTED", "RUN_ERROR"]] * 5
    assert {r.run_error.code for r in [*refused, rejected]} == {THREAD_ANSWER_CODE}
    assert [i.tool_call_id for i in reloaded.interrupts] == [CALL]  # still open
    assert s.refunds == [(CALL, "7")]  # only the answer without edits ran
    assert approved.text == f"Result of {CALL}: Refund issued for 7"
    assert before < LIMIT and await stored_bytes(store, chat) < LIMIT
    assert s.model.call_count == 2


async def test_small_edits_within_the_limit_run(tmp_path: Path, version: str | None) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=LIMIT)
    s, chat = await paused(store, version)

    edited = {"approved": True, "editedArgs": {"order_id": "8"}}
    run = await chat.send(chat.request([], resume=[answer(edited)]))

    assert s.refunds == [(CALL, "8")]
    assert run.text == f"Result of {CALL}: Refund issued for 8"


async def test_a_new_turn_with_a_large_state_is_thread_full(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=LIMIT)
    s = shop()
    chat = Conversation(s.wrapper(store), version)
    await chat.say("Hello", "user-1")
    kept = list(chat.shown)
    before = await stored_bytes(store, chat)

    big = {"notes": "n" * 50_000}
    run = await chat.send(chat.request([user("Again", "user-2")], state=big), history=kept)

    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.run_error.code == THREAD_FULL_CODE
    assert s.model.call_count == 1
    assert await stored_bytes(store, chat) == before


async def test_a_resume_does_not_take_a_state_past_the_limit(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=LIMIT)
    s, chat = await paused(store, version)
    kept_state = chat.state

    big = {"notes": "n" * 50_000}
    run = await chat.send(chat.request([], resume=[answer({"approved": True})], state=big))
    reloaded = await chat.send(chat.request([]))

    assert s.refunds == [(CALL, "7")]  # a paused thread can always be decided
    assert run.text == f"Result of {CALL}: Refund issued for 7"
    assert reloaded.states == [kept_state]
    assert await stored_bytes(store, chat) < LIMIT


async def test_a_thread_id_too_long_is_refused_unrepeated_and_unstored(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    s = shop()
    asked: list[int] = []

    def thread_key(thread_id: str, request: Any) -> str:
        asked.append(len(thread_id))
        return thread_id[:10]

    wrapper = s.wrapper(store, thread_key=thread_key)
    huge = "t" * (6 * 1024 * 1024)  # the probe's 6 MB thread id
    request = RunAgentInput(
        thread_id=huge,
        run_id="run-1",
        protocol_version=version,
        messages=[UserMessage(id="user-1", content="Hello")],
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    )

    events = [event async for event in wrapper.run_streamed(request)]
    async with asgi_client(app_with(wrapper)) as client:
        payload = request.model_dump(mode="json", by_alias=True, exclude_none=True)
        response = await client.post("/agent", json=payload)

    assert [e.type.value for e in events] == ["RUN_ERROR"]
    assert getattr(events[0], "code", None) == THREAD_ID_CODE
    assert len(json.dumps([e.model_dump(mode="json") for e in events])) < 1000
    assert response.status_code == 200 and len(response.content) < 1000
    [sent] = parse_sse(response.content)
    assert getattr(sent, "code", None) == THREAD_ID_CODE
    assert asked == [] and s.model.call_count == 0
    assert await store.threads() == []
    ok = request.model_copy(update={"thread_id": "t" * MAX_THREAD_ID_LENGTH})
    assert [e async for e in wrapper.run_streamed(ok)][-1].type.value == "RUN_FINISHED"
