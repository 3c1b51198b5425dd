"""A paused approval asked again keeps the signature of its pause.

On a signed deployment with a thread store, a user who types while a refund waits for approval,
then reloads, is shown the interrupt the server paused with (same id, same signature, same
expiry), and approving it runs the refund. Both request kinds, the real runner, a real SQLite
file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Interrupt, ResumeEntry, ToolMessage
from agents import set_tracing_disabled

from ag_ui_openai_agents import Approvals, ApprovalSigner
from ag_ui_openai_agents.approvals.signing import split_interrupt_id
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.threads import PROTOCOLS, Conversation, Shop, shop

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

CALL = "call_refund_1"
SECRET = "a-long-random-secret-for-the-re-ask-tests"


def approve(interrupt: Interrupt) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})


def results(messages: list[Any], call_id: str) -> list[Any]:
    return [m.content for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id]


async def signed_pause(tmp_path: Path, version: str | None) -> tuple[Shop, Conversation, Interrupt]:
    s = shop()
    signer = ApprovalSigner.from_secret(SECRET)
    store = SQLiteThreadStore(tmp_path / "threads.db")
    chat = Conversation(s.wrapper(store, approvals=Approvals(signer=signer)), version)
    (paused,) = (await chat.say("Refund order 7", "user-1")).interrupts
    assert split_interrupt_id(paused.id) != (CALL, None)
    return s, chat, paused


async def test_a_message_then_a_reload_keeps_the_signed_interrupt(
    tmp_path: Path, version: str | None
) -> None:
    s, chat, paused = await signed_pause(tmp_path, version)

    typed = await chat.say("Hello? Is my refund coming?", "user-2")
    reloaded = await chat.send(chat.request([]))
    (asked,) = reloaded.interrupts
    resumed = await chat.send(chat.request([], resume=[approve(asked)]))

    assert [i.id for i in typed.interrupts] == [paused.id]
    assert asked == paused  # the same id, signature, expiry and metadata
    assert resumed.types[-1] == "RUN_FINISHED"
    assert s.refunds == [(CALL, "7")]
    assert results(resumed.snapshot, CALL) == ["Refund issued for 7"]


async def test_every_message_while_paused_re_asks_the_same_interrupt(
    tmp_path: Path, version: str | None
) -> None:
    s, chat, paused = await signed_pause(tmp_path, version)

    asked = [(await chat.say(f"Still there? {n}", f"user-{n}")).interrupts for n in (2, 3, 4)]
    resumed = await chat.send(chat.request([], resume=[approve(paused)]))

    assert asked == [[paused]] * 3
    assert s.model.call_count == 2  # the pause and the resumed turn; no waiting turn
    assert s.refunds == [(CALL, "7")]
    assert results(resumed.snapshot, CALL) == ["Refund issued for 7"]


async def test_a_pause_past_its_age_is_asked_again_freshly_signed(
    tmp_path: Path, version: str | None
) -> None:
    """The store proves the pause, so once its signature expired the call is asked again
    with a fresh one (a client refuses an interrupt past its expiresAt)."""
    now = [1_800_000_000.0]
    signer = ApprovalSigner.from_secret(SECRET, max_age=60, clock=lambda: now[0])
    s = shop()
    store = SQLiteThreadStore(tmp_path / "threads.db")
    chat = Conversation(s.wrapper(store, approvals=Approvals(signer=signer)), version)
    (paused,) = (await chat.say("Refund order 7", "user-1")).interrupts

    now[0] += 61
    (asked,) = (await chat.say("Sorry, I was away.", "user-2")).interrupts
    (reloaded,) = (await chat.send(chat.request([]))).interrupts
    resumed = await chat.send(chat.request([], resume=[approve(asked)]))

    assert asked.tool_call_id == CALL and asked.id != paused.id
    assert asked.expires_at is not None and paused.expires_at is not None
    assert asked.expires_at > paused.expires_at
    assert reloaded == asked
    assert s.refunds == [(CALL, "7")]
    assert results(resumed.snapshot, CALL) == ["Refund issued for 7"]
