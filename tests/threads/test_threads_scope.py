"""Whose thread it is: ``thread_key`` is required, keys are scoped by the wrapper's name and
bounded in length, a one-user server says so, and signed approvals bind the store key.

Every flow runs on both request kinds (protocolVersion "1.0", and absent as CopilotKit's
runtime sends it), through the wrapper and the real runner, on a real SQLite file.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import ResumeEntry, TextMessageContentEvent
from agents import Agent, set_tracing_disabled

from ag_ui_openai_agents import Approvals, ApprovalSigner, OpenAIAgentsAgent, resume_tool_calls
from ag_ui_openai_agents.approvals.verify import APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.threads import (
    MAX_THREAD_KEY_LENGTH,
    THREAD_KEY_CODE,
    SQLiteThreadStore,
    single_user_threads,
)
from ag_ui_openai_agents.threads import runs as thread_runs
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn
from support.threads import PROTOCOLS, Conversation, by_thread_id, shop

set_tracing_disabled(True)

BOTH_KINDS = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])
SECRET = "s" * 32


def answering(name: str, store: SQLiteThreadStore) -> tuple[OpenAIAgentsAgent, Any]:
    """A wrapper named ``name`` whose model answers every turn with its own name."""
    model = ScriptedResponsesModel(lambda request: Turn([Text(f"I am {name}.")]))
    config = dataclasses.replace(
        shop().config, model_provider=ScriptedProvider(model), tracing_disabled=True
    )
    wrapper = OpenAIAgentsAgent(
        Agent(name=name), run_config=config, threads=store, thread_key=by_thread_id
    )
    return wrapper, model


@BOTH_KINDS
async def test_two_agents_sharing_a_store_never_share_a_thread(
    tmp_path: Path, version: str | None
) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    first, _ = answering("agent-a", store)
    second, second_model = answering("agent-b", store)
    a = Conversation(first, version, thread_id="shared")
    b = Conversation(second, version, thread_id="shared")

    said = await a.say("Hello A", "user-1")
    reloaded = await b.send(b.request([]))

    assert said.text == "I am agent-a."
    assert b.shown == [] and second_model.call_count == 0
    assert not any(isinstance(e, TextMessageContentEvent) for e in reloaded.events)
    assert a.shown[0].id == "user-1"


def test_a_store_without_a_thread_key_is_refused(tmp_path: Path) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")

    with pytest.raises(ValueError, match="thread_key"):
        OpenAIAgentsAgent(Agent(name="a"), threads=store)


def test_a_one_user_server_says_so_and_is_warned_about_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(thread_runs._single_user_warning, "given", False)
    store = SQLiteThreadStore(tmp_path / "threads.db")

    with caplog.at_level(logging.WARNING, logger="ag_ui_openai_agents"):
        for name in ("a", "b"):
            OpenAIAgentsAgent(Agent(name=name), threads=store, thread_key=single_user_threads)

    warnings = [r for r in caplog.records if "single_user_threads" in r.getMessage()]
    assert len(warnings) == 1


@BOTH_KINDS
async def test_a_key_over_the_limit_opens_no_thread(tmp_path: Path, version: str | None) -> None:
    s = shop()
    too_long = "k" * (MAX_THREAD_KEY_LENGTH + 1)
    chat = Conversation(
        s.wrapper(SQLiteThreadStore(tmp_path / "t.db"), thread_key=lambda t, r: too_long),
        version,
    )

    run = await chat.say("Refund order 7", "user-1")

    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.run_error.code == THREAD_KEY_CODE and s.model.call_count == 0


@BOTH_KINDS
async def test_a_signed_pause_binds_the_store_key_not_the_thread_id(
    tmp_path: Path, version: str | None
) -> None:
    """The pause is signed for the thread as the store keys it: the same call, approved under
    the bare thread id (another user's or another agent's thread of that id), runs nothing."""
    signer = ApprovalSigner.from_secret(SECRET)
    s = shop()
    store = SQLiteThreadStore(tmp_path / "threads.db")
    chat = Conversation(s.wrapper(store, approvals=Approvals(signer=signer)), version)
    paused = await chat.say("Refund order 7", "user-1")
    [interrupt] = paused.interrupts
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    answer = chat.request(chat.shown, resume=[entry])
    settings = Approvals(signer=signer)

    elsewhere = await resume_tool_calls(s.agent, answer, approvals=settings)
    key = await s.wrapper(store).threads.key(chat.thread_id, None)  # type: ignore[union-attr]
    here = await resume_tool_calls(s.agent, answer, approvals=settings, thread_key=key)

    assert elsewhere.refusal_code == APPROVAL_REFUSED_CODE
    assert not here.refusals and s.refunds == [(interrupt.tool_call_id, "7")]
