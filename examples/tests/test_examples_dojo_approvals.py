"""The AG-UI Dojo's approval page, over HTTP: its pre-1.0 contract, served by the approval
example as a named opt-in (``AG_UI_DOJO_APPROVALS``) beside the AG-UI 1.0 interrupts.

A request without ``protocolVersion`` that pauses gets a CUSTOM ``approval_request``
(``[{"call_id", "tool_name", "arguments"}]``) before RUN_FINISHED; the page answers with
``forwardedProps.approval = {"call_id", "approve"}``. The answer is taken only against the pause
the thread store recorded, with the signature of the stored interrupt, the ``authorize`` hook
and the store's run-once claim; it cannot edit. A 1.0 request keeps the 1.0 contract only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    PROTOCOL_VERSION,
    CustomEvent,
    EventType,
    ResumeEntry,
    RunErrorEvent,
    RunFinishedInterruptOutcome,
)
from ag_ui_openai_agents import SQLiteThreadStore

from agents_examples import ExampleSettings
from agents_examples import human_in_the_loop_approval as approval_example
from agents_examples.settings import settings_from_env
from example_client import Chat, Run, post_run
from server import create_app

PATH = "/human_in_the_loop_approval"
SECRET = ("example-approval-secret-0123456789",)
ASK = "Please refund 30 dollars on order A-17"


@pytest.fixture
def ledger(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], str]:
    refunds: dict[tuple[str, str], str] = {}
    monkeypatch.setattr(approval_example, "REFUNDS", refunds)
    return refunds


def app_with(tmp_path: Path, *, dojo: bool = True) -> Any:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    settings = ExampleSettings.offline_demo(
        approval_secret=SECRET, threads=store, dojo_approvals=dojo
    )
    return create_app(settings)


@pytest.fixture
async def dojo(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The example server with a store, signing approvals, the Dojo's contract opted in."""
    transport = httpx.ASGITransport(app=app_with(tmp_path))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


def asked(run: Run) -> list[dict[str, Any]]:
    """The ``approval_request`` events of a run (their values)."""
    found = [e for e in run.events if isinstance(e, CustomEvent) and e.name == "approval_request"]
    return [event.value for event in found]


def page(client: httpx.AsyncClient, thread: str = "dojo-thread") -> Chat:
    """The Dojo's page behind CopilotKit's runtime: no protocolVersion."""
    return Chat(client, PATH, thread_id=thread, protocol_version=None)


def answer(chat: Chat, call_id: Any, approve: Any) -> None:
    chat.forwarded_props = {"approval": {"call_id": call_id, "approve": approve}}


async def test_a_pause_asks_the_page_with_a_custom_event_beside_the_interrupt(
    dojo: httpx.AsyncClient,
) -> None:
    run = await page(dojo).say(ASK)
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)  # the 1.0 interrupt is still there
    [interrupt] = outcome.interrupts
    assert asked(run) == [
        [
            {
                "call_id": interrupt.tool_call_id,
                "tool_name": "issue_refund",
                "arguments": {"order_id": "A-17", "amount": 30},
            }
        ]
    ]
    assert run.types.index(EventType.CUSTOM) == len(run.types) - 2  # right before RUN_FINISHED
    assert "." in interrupt.id  # the interrupt is signed; the page's answer needs no signature


@pytest.mark.parametrize(
    ("approve", "result"),
    [(True, "Refunded 30.00 USD on order A-17."), (False, None)],
    ids=["approved", "rejected"],
)
async def test_the_page_s_answer_resumes_the_stored_pause(
    dojo: httpx.AsyncClient,
    ledger: dict[tuple[str, str], str],
    approve: bool,
    result: str | None,
) -> None:
    chat = page(dojo)
    [[request]] = asked(await chat.say(ASK))
    answer(chat, request["call_id"], approve)
    run = await chat.send()
    assert asked(run) == []
    if result is None:
        assert "did not run" in run.results[request["call_id"]] or "did not run" in run.text
        assert ledger == {}
    else:
        assert run.results[request["call_id"]] == result and result in run.text
        assert list(ledger.values()) == [result]
    assert run.finished.outcome is not None and run.finished.outcome.type == "success"

    again = await post_run(dojo, PATH, chat.request())  # the same answer, sent again
    assert again.results == {} and len(ledger) == (1 if approve else 0)


async def test_a_reloaded_page_is_asked_again(dojo: httpx.AsyncClient) -> None:
    chat = page(dojo)
    [[request]] = asked(await chat.say(ASK))
    reload = page(dojo, chat.thread_id)
    run = await reload.send(check=False)
    assert asked(run) == [[request]]


@pytest.mark.parametrize(
    ("call_id", "approve", "code"),
    [
        ("call_never_paused", True, "APPROVAL_REFUSED"),
        (None, True, "INVALID_APPROVAL"),
        ("CALL", "yes", "INVALID_APPROVAL"),
    ],
    ids=["unknown-call", "no-call-id", "approve-not-boolean"],
)
async def test_an_answer_to_no_recorded_pause_runs_nothing(
    dojo: httpx.AsyncClient,
    ledger: dict[tuple[str, str], str],
    call_id: Any,
    approve: Any,
    code: str,
) -> None:
    chat = page(dojo)
    [[request]] = asked(await chat.say(ASK))
    answer(chat, request["call_id"] if call_id == "CALL" else call_id, approve)
    run = await post_run(dojo, PATH, chat.request())
    error = run.events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == code
    assert ledger == {}
    chat.forwarded_props = None
    still = await post_run(dojo, PATH, chat.request())
    assert asked(still) == [[request]]  # the pause is still there, to answer again


async def test_the_authorize_hook_applies_to_the_page_s_answer(
    dojo: httpx.AsyncClient, ledger: dict[tuple[str, str], str]
) -> None:
    chat = page(dojo)
    [[request]] = asked(await chat.say("Please refund 900 dollars on order A-17"))
    assert request["arguments"]["amount"] == 900
    answer(chat, request["call_id"], True)
    run = await post_run(dojo, PATH, chat.request())
    error = run.events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "APPROVAL_DENIED"
    assert ledger == {}


async def test_a_1_0_request_keeps_the_1_0_contract(
    dojo: httpx.AsyncClient, ledger: dict[tuple[str, str], str]
) -> None:
    chat = Chat(dojo, PATH, thread_id="v1-thread", protocol_version=PROTOCOL_VERSION)
    paused = await chat.say(ASK)
    assert asked(paused) == []
    outcome = paused.finished.outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    [interrupt] = outcome.interrupts
    answer(chat, interrupt.tool_call_id, True)  # not how a 1.0 client answers: not taken
    ignored = await chat.send()
    assert isinstance(ignored.finished.outcome, RunFinishedInterruptOutcome) and ledger == {}
    chat.forwarded_props = None
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    run = await chat.send(resume=[entry])
    assert run.results[interrupt.tool_call_id or ""] == "Refunded 30.00 USD on order A-17."


async def test_without_the_opt_in_the_page_s_contract_is_not_served(
    tmp_path: Path, ledger: dict[tuple[str, str], str]
) -> None:
    transport = httpx.ASGITransport(app=app_with(tmp_path, dojo=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        chat = page(http)
        paused = await chat.say(ASK)
        assert asked(paused) == []
        [interrupt] = paused.finished.outcome.interrupts  # type: ignore[union-attr]
        answer(chat, interrupt.tool_call_id, True)
        run = await chat.send()
    assert isinstance(run.finished.outcome, RunFinishedInterruptOutcome) and ledger == {}


def test_the_opt_in_is_named_and_needs_the_store(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    assert settings_from_env({"AG_UI_THREADS_DB": db}).dojo_approvals is False
    named = {"AG_UI_THREADS_DB": db, "AG_UI_DOJO_APPROVALS": "true"}
    assert settings_from_env(named).dojo_approvals is True
    with pytest.raises(ValueError, match="thread store"):
        create_app(ExampleSettings.offline_demo(dojo_approvals=True))
