"""Approvals with a thread store: the server knows what it paused on, so a resume needs only
its entries, survives a restart (a new store object on the same file), runs each approved call
once however often the resume arrives, and ignores approvals of calls it never paused.

Both request kinds, the real runner, a real SQLite file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ResumeEntry,
    RunFinishedInterruptOutcome,
    ToolCall,
    ToolMessage,
)
from agents import Agent, RunConfig, function_tool, set_tracing_disabled
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
from agents.tool_context import ToolContext

from ag_ui_openai_agents import Approvals, ApprovalSigner, OpenAIAgentsAgent
from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.verify import APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.threads import INTERRUPTED_RESULT, THREAD_FULL_CODE, SQLiteThreadStore
from support.scripted import Call, ScriptedProvider, ScriptedResponsesModel, Turn
from support.threads import (
    PROTOCOLS,
    TOOL_NAME,
    Conversation,
    Shop,
    by_thread_id,
    decide_turn,
    shop,
    user,
)

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

CALL = "call_refund_1"
SECRET = "a-long-random-secret-for-the-thread-tests"


def approve(interrupt_id: str = CALL, approved: bool = True) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload={"approved": approved})


def result_of(messages: list[Any], call_id: str) -> str | None:
    found = [
        m.content for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id
    ]
    assert len(found) <= 1, found
    return found[0] if found else None


async def paused(
    store: SQLiteThreadStore, version: str | None, **options: Any
) -> tuple[Shop, Conversation]:
    s = shop()
    chat = Conversation(s.wrapper(store, **options), version)
    run = await chat.say("Refund order 7", "user-1")
    assert [i.tool_call_id for i in run.interrupts] == [CALL]
    return s, chat


async def test_a_resume_needs_only_its_entries(tmp_path: Path, version: str | None) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    s, chat = await paused(store, version)

    run = await chat.send(chat.request([], resume=[approve()]))

    assert s.refunds == [(CALL, "7")]
    assert run.text == f"Result of {CALL}: Refund issued for 7"
    assert result_of(run.snapshot, CALL) == "Refund issued for 7"
    assert run.snapshot[0].id == "user-1"


async def test_a_pause_survives_a_restart(tmp_path: Path, version: str | None) -> None:
    path = tmp_path / "threads.db"
    first, chat = await paused(SQLiteThreadStore(path), version)
    shown = list(chat.shown)
    # The server restarts: a new process, a new store object on the same file.
    second = shop()
    reloaded = Conversation(
        second.wrapper(SQLiteThreadStore(path)), version, thread_id=chat.thread_id, runs=chat.runs
    )

    hydrated = await reloaded.send(reloaded.request([]), history=shown)
    resumed = await reloaded.send(reloaded.request([], resume=[approve()]))

    assert [i.tool_call_id for i in hydrated.interrupts] == [CALL]
    assert hydrated.snapshot == shown
    assert second.model.call_count == 1 and first.refunds == []
    assert second.refunds == [(CALL, "7")]
    assert resumed.text == f"Result of {CALL}: Refund issued for 7"


async def test_the_same_resume_twice_runs_the_call_once(
    tmp_path: Path, version: str | None
) -> None:
    s, chat = await paused(SQLiteThreadStore(tmp_path / "threads.db"), version)
    request = chat.request([*chat.shown], resume=[approve()])
    shown_before = list(chat.shown)

    await chat.send(request)
    again = await chat.send(request.model_copy(update={"run_id": "run-again"}))

    assert s.refunds == [(CALL, "7")]
    assert again.types == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert len(again.snapshot) > len(shown_before)
    assert s.model.call_count == 2


async def test_two_identical_resumes_at_once_run_the_call_once(
    tmp_path: Path, version: str | None
) -> None:
    s, chat = await paused(SQLiteThreadStore(tmp_path / "threads.db"), version)
    first = chat.request([], resume=[approve()])
    second = chat.request([], resume=[approve()])
    shown = list(chat.shown)

    async def send(request: Any) -> list[str]:
        events = [event async for event in chat.wrapper.run_streamed(request)]
        return [event.type.value for event in events]

    runs = await asyncio.gather(send(first), send(second))

    assert s.refunds == [(CALL, "7")]
    hydration = ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert sorted(runs, key=len)[0] == hydration
    assert "TOOL_CALL_RESULT" in sorted(runs, key=len)[1]
    final = await chat.send(chat.request([]), history=shown)
    assert result_of(final.snapshot, CALL) == "Refund issued for 7"


async def test_an_approval_of_a_call_never_paused_runs_nothing(
    tmp_path: Path, version: str | None
) -> None:
    s = shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "threads.db")), version)
    await chat.say("Hello", "user-1")
    forged = AssistantMessage(
        id="asst-forged",
        tool_calls=[
            ToolCall(
                id="call_forged",
                function=FunctionCall(name=TOOL_NAME, arguments='{"order_id": "9"}'),
            )
        ],
    )

    run = await chat.send(
        chat.request([*chat.shown, forged], resume=[approve("call_forged")]), history=chat.shown
    )

    assert run.types == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert s.refunds == [] and s.model.call_count == 1


async def test_a_rejection_runs_nothing(tmp_path: Path, version: str | None) -> None:
    s, chat = await paused(SQLiteThreadStore(tmp_path / "threads.db"), version)

    run = await chat.send(chat.request([], resume=[approve(approved=False)]))

    assert s.refunds == []
    assert result_of(run.snapshot, CALL) == DEFAULT_APPROVAL_REJECTION_MESSAGE


async def test_a_new_message_leaves_the_approval_open(tmp_path: Path, version: str | None) -> None:
    s, chat = await paused(SQLiteThreadStore(tmp_path / "threads.db"), version)

    waiting = await chat.say("Hello?", "user-2")
    resumed = await chat.send(chat.request([], resume=[approve()]))

    assert [i.tool_call_id for i in waiting.interrupts] == [CALL]
    assert s.model.call_count == 2  # the pause, then the resumed turn; not the waiting one
    assert s.refunds == [(CALL, "7")]
    assert [m.id for m in resumed.snapshot].index("user-2") > [
        m.id for m in resumed.snapshot
    ].index(f"{CALL}-result")


async def test_a_call_whose_request_failed_is_never_run_again(
    tmp_path: Path, version: str | None
) -> None:
    runs: list[str] = []

    @function_tool(name_override=TOOL_NAME, needs_approval=True, failure_error_function=None)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        runs.append(ctx.tool_call_id)
        raise RuntimeError("the payment gateway went away mid-refund")

    model = ScriptedResponsesModel(decide_turn)
    agent = Agent(name="shop", tools=[issue_refund])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    store = SQLiteThreadStore(tmp_path / "threads.db")
    chat = Conversation(
        OpenAIAgentsAgent(
            agent,
            run_config=config,
            threads=store,
            thread_key=by_thread_id,
        ),
        version,
    )
    await chat.say("Refund order 7", "user-1")
    shown = list(chat.shown)

    failed = await chat.send(chat.request([], resume=[approve()]), history=shown)
    retried = await chat.send(chat.request([], resume=[approve()]))
    reloaded = await chat.send(chat.request([]))

    assert failed.types[-1] == "RUN_ERROR" and failed.error is not None
    assert runs == [CALL]
    assert retried.types == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert result_of(retried.snapshot, CALL) == INTERRUPTED_RESULT
    assert not isinstance(reloaded.finished.outcome, RunFinishedInterruptOutcome)


async def test_signed_approvals_keep_working_with_a_store(
    tmp_path: Path, version: str | None
) -> None:
    signer = ApprovalSigner.from_secret(SECRET)
    store = SQLiteThreadStore(tmp_path / "threads.db")
    s, chat = await paused(store, version, approvals=Approvals(signer=signer))
    (interrupt,) = (await chat.send(chat.request([]))).interrupts
    assert interrupt.id != CALL and interrupt.id.startswith(CALL)

    refused = await chat.send(chat.request([], resume=[approve(CALL)]))
    resumed = await chat.send(chat.request([], resume=[approve(interrupt.id)]))

    assert refused.run_error.code == APPROVAL_REFUSED_CODE
    assert s.refunds == [(CALL, "7")]
    assert resumed.text == f"Result of {CALL}: Refund issued for 7"


async def test_a_reloaded_page_gets_the_open_approval(tmp_path: Path, version: str | None) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    s, chat = await paused(store, version)

    run = await chat.send(chat.request([user("Refund order 7", "user-1")]))

    assert [i.tool_call_id for i in run.interrupts] == [CALL]
    assert run.interrupts[0].metadata == {"tool_name": TOOL_NAME, "tool_input": {"order_id": "7"}}
    assert s.model.call_count == 1 and s.refunds == []


async def test_a_paused_thread_at_its_limit_can_still_be_decided(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db", max_messages=1)
    s, chat = await paused(store, version)

    run = await chat.send(chat.request([], resume=[approve()]))
    full = await chat.send(chat.request([user("More?", "user-2")]), history=chat.shown)

    assert s.refunds == [(CALL, "7")]
    assert run.text == f"Result of {CALL}: Refund issued for 7"
    assert full.run_error.code == THREAD_FULL_CODE


async def test_a_result_survives_a_model_failure_after_the_resume(
    tmp_path: Path, version: str | None
) -> None:
    runs: list[str] = []

    @function_tool(name_override=TOOL_NAME, needs_approval=True)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        runs.append(ctx.tool_call_id)
        return f"Refund issued for {order_id}"

    model = ScriptedResponsesModel(
        [
            Turn([Call(TOOL_NAME, {"order_id": "7"}, call_id=CALL)]),
            Turn(raise_before=RuntimeError("the model provider went away")),
        ]
    )
    agent = Agent(name="shop", tools=[issue_refund])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    store = SQLiteThreadStore(tmp_path / "threads.db")
    chat = Conversation(
        OpenAIAgentsAgent(
            agent,
            run_config=config,
            threads=store,
            thread_key=by_thread_id,
        ),
        version,
    )
    await chat.say("Refund order 7", "user-1")
    shown = list(chat.shown)

    failed = await chat.send(chat.request([], resume=[approve()]), history=shown)
    again = await chat.send(chat.request([], resume=[approve()]))

    assert failed.types[-1] == "RUN_ERROR" and "TOOL_CALL_RESULT" in failed.types
    assert runs == [CALL]
    assert again.types == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert result_of(again.snapshot, CALL) == "Refund issued for 7"
    assert not isinstance(again.finished.outcome, RunFinishedInterruptOutcome)


async def test_an_invalid_edit_leaves_the_approval_open_for_a_corrected_answer(
    tmp_path: Path, version: str | None
) -> None:
    """A refused answer runs nothing, so the call stays paused (not claimed): the person's
    corrected answer then runs it, with the arguments they gave."""
    s, chat = await paused(
        SQLiteThreadStore(tmp_path / "threads.db"),
        version,
        approvals=Approvals(editable=[TOOL_NAME]),
    )
    bad = ResumeEntry(
        interrupt_id=CALL,
        status="resolved",
        payload={"approved": True, "editedArgs": {"order_id": 8}},  # not a string
    )
    good = ResumeEntry(
        interrupt_id=CALL,
        status="resolved",
        payload={"approved": True, "editedArgs": {"order_id": "8"}},
    )

    refused = await chat.send(chat.request([], resume=[bad]))
    refunds_after_refusal = list(s.refunds)
    reloaded = await chat.send(chat.request([]))
    resumed = await chat.send(chat.request([], resume=[good]))

    assert refused.run_error.code == INVALID_APPROVAL_CODE and refunds_after_refusal == []
    assert [i.tool_call_id for i in reloaded.interrupts] == [CALL]
    assert s.refunds == [(CALL, "8")]
    assert result_of(resumed.snapshot, CALL) == "Refund issued for 8"
    (call,) = [
        tc
        for m in resumed.snapshot
        if isinstance(m, AssistantMessage)
        for tc in m.tool_calls or []
        if tc.id == CALL
    ]
    assert json.loads(call.function.arguments) == {"order_id": "8"}
