"""A pause on more calls than the resume limits can always be answered.

The limits guard what a client sends, not what the server paused on: a model turn that makes
101 gated calls (the limits allow 100) pauses on all of them, and the pause is answered whole:
approved, rejected, or left waiting while the person writes, with a thread store (the store
recorded the pause) and without one on a signed server (each answer carries the signature).
What a client adds beyond the proven pause is still counted. The real runner, a scripted model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Interrupt, ResumeEntry, RunFinishedInterruptOutcome, ToolMessage
from agents import Agent, RunConfig, function_tool, set_tracing_disabled
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
from agents.tool_context import ToolContext

from ag_ui_openai_agents import Approvals, ApprovalSigner, OpenAIAgentsAgent
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE
from ag_ui_openai_agents.threads import SQLiteThreadStore
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

CALLS = 101
"""One more gated call than ``ResumeLimits()`` accepts (100 entries, 100 open calls)."""
SECRET = "a-long-random-secret-for-the-large-pause-tests"


def decide(call: RecordedCall) -> Turn:
    """``Refund all <n>``: n parallel refund calls; their outputs: a count; else an echo."""
    outputs = [i for i in call.input if i.get("type") == "function_call_output"]
    users = [i for i in call.input if i.get("role") == "user"]
    text = str(users[-1].get("content")) if users else ""
    last_user = max((n for n, i in enumerate(call.input) if i.get("role") == "user"), default=-1)
    if any(call.input.index(o) > last_user for o in outputs) or (
        outputs and not text.startswith("Refund all")
    ):
        return Turn([Text(f"{len(outputs)} answered")])
    match = re.match(r"Refund all (\d+)", text)
    if match is None:
        return Turn([Text(f"Echo: {text}")])
    refunds = [
        Call("issue_refund", {"order_id": f"A-{n}"}, call_id=f"call_{n}", id=f"fc_{n}")
        for n in range(int(match.group(1)))
    ]
    return Turn(refunds)


class Shop:
    def __init__(self) -> None:
        self.refunds: list[str] = []

        @function_tool(needs_approval=True)
        def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
            """Refund an order."""
            self.refunds.append(ctx.tool_call_id)
            return f"Refunded {order_id}"

        self.model = ScriptedResponsesModel(decide)
        self.agent = Agent(name="shop", tools=[issue_refund])
        self.config = RunConfig(model_provider=ScriptedProvider(self.model), tracing_disabled=True)

    def wrapper(self, store: SQLiteThreadStore | None, signed: bool = True) -> OpenAIAgentsAgent:
        approvals = (
            Approvals(signer=ApprovalSigner.from_secret(SECRET))
            if signed
            else Approvals(unsigned=True)
        )
        return OpenAIAgentsAgent(
            self.agent,
            run_config=self.config,
            approvals=approvals,
            threads=store,
            thread_key=by_thread_id if store is not None else None,
        )


def answer(interrupts: list[Interrupt], approved: bool) -> list[ResumeEntry]:
    return [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": approved})
        for i in interrupts
    ]


def finished_without_a_pause(run: Any) -> bool:
    return run.types[-1] == "RUN_FINISHED" and not isinstance(
        run.finished.outcome, RunFinishedInterruptOutcome
    )


def results(messages: list[Any]) -> list[str]:
    return [m.content for m in messages if isinstance(m, ToolMessage)]


async def paused(chat: Conversation, stored: bool) -> list[Interrupt]:
    message = user(f"Refund all {CALLS}", "user-1")
    run = await chat.send(chat.request([message] if stored else [*chat.shown, message]))
    assert len(run.interrupts) == CALLS
    return run.interrupts


async def test_a_stored_pause_over_the_limits_is_approved_whole(
    tmp_path: Path, version: str | None
) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "t.db")), version)
    interrupts = await paused(chat, stored=True)

    run = await chat.send(chat.request([], resume=answer(interrupts, True)))

    assert finished_without_a_pause(run)
    assert sorted(s.refunds) == sorted(f"call_{n}" for n in range(CALLS))
    assert results(run.snapshot) == [f"Refunded A-{n}" for n in range(CALLS)]
    assert run.text == f"{CALLS} answered"


async def test_a_stored_pause_over_the_limits_is_rejected_whole(
    tmp_path: Path, version: str | None
) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "t.db")), version)
    interrupts = await paused(chat, stored=True)

    run = await chat.send(chat.request([], resume=answer(interrupts, False)))

    assert finished_without_a_pause(run)
    assert s.refunds == []
    assert results(run.snapshot) == [DEFAULT_APPROVAL_REJECTION_MESSAGE] * CALLS


async def test_a_message_while_a_large_pause_waits_keeps_it_answerable(
    tmp_path: Path, version: str | None
) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "t.db")), version)
    interrupts = await paused(chat, stored=True)

    waiting = await chat.say("Are you still there?", "user-2")
    reloaded = await chat.send(chat.request([]))
    run = await chat.send(chat.request([], resume=answer(reloaded.interrupts, True)))

    assert waiting.interrupts == interrupts and reloaded.interrupts == interrupts
    assert s.model.call_count == 2  # the pause and the answered turn; no waiting turn
    assert len(s.refunds) == CALLS and finished_without_a_pause(run)
    assert results(run.snapshot) == [f"Refunded A-{n}" for n in range(CALLS)]


async def test_a_partial_answer_keeps_the_other_interrupts_as_they_were(
    tmp_path: Path, version: str | None
) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "t.db")), version)
    interrupts = await paused(chat, stored=True)

    first = await chat.send(chat.request([], resume=answer(interrupts[:40], True)))
    rest = await chat.send(chat.request([], resume=answer(first.interrupts, False)))

    assert first.interrupts == interrupts[40:]
    assert sorted(s.refunds) == sorted(f"call_{n}" for n in range(40))
    assert finished_without_a_pause(rest) and rest.text == f"{CALLS} answered"


async def test_a_signed_pause_over_the_limits_is_answered_without_a_store(
    version: str | None,
) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(None), version)
    interrupts = await paused(chat, stored=False)
    answers = answer(interrupts[:50], True) + answer(interrupts[50:], False)

    run = await chat.send(chat.request(chat.shown, resume=answers))

    assert finished_without_a_pause(run)
    assert sorted(s.refunds) == sorted(f"call_{n}" for n in range(50))
    assert results(run.snapshot).count(DEFAULT_APPROVAL_REJECTION_MESSAGE) == CALLS - 50


async def test_entries_beyond_the_proven_pause_still_count(
    tmp_path: Path, version: str | None
) -> None:
    """One answer per paused call is exempt; the same answers sent twice over are not."""
    s = Shop()
    chat = Conversation(s.wrapper(SQLiteThreadStore(tmp_path / "t.db")), version)
    interrupts = await paused(chat, stored=True)
    entries = answer(interrupts, True)

    run = await chat.send(chat.request([], resume=entries * 3))

    assert run.run_error.code == RESUME_LIMIT_CODE
    assert f"{3 * CALLS} resume entries" in run.run_error.message
    assert s.refunds == []


async def test_forged_signatures_do_not_lift_the_limits(version: str | None) -> None:
    s = Shop()
    chat = Conversation(s.wrapper(None), version)
    interrupts = await paused(chat, stored=False)
    forged = [
        ResumeEntry(interrupt_id=i.id[:-4] + "AAAA", status="resolved", payload={"approved": True})
        for i in interrupts
    ]

    run = await chat.send(chat.request(chat.shown, resume=forged))

    assert run.run_error.code == RESUME_LIMIT_CODE
    assert s.refunds == []


async def test_without_a_proof_the_limits_apply(version: str | None) -> None:
    """Unsigned and stateless, nothing proves the pause: the limits hold, as documented."""
    s = Shop()
    chat = Conversation(s.wrapper(None, signed=False), version)
    interrupts = await paused(chat, stored=False)

    run = await chat.send(chat.request(chat.shown, resume=answer(interrupts, True)))

    assert run.run_error.code == RESUME_LIMIT_CODE
    assert s.refunds == []
