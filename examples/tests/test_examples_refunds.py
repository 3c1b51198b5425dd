"""The approval example's refunds: each is made once, and each reports its own result.

A refund is keyed on its thread and its call id: the same approved call sent again is made
once, and a call of another thread with the same id is a refund of its own (real call ids are
unique within a thread only). An approval with edits runs, and reports, the edited refund.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ResumeEntry,
    RunFinishedInterruptOutcome,
    ToolCall,
    UserMessage,
)
from ag_ui_openai_agents import SQLiteThreadStore

from agents_examples import ExampleSettings
from agents_examples import human_in_the_loop_approval as approval_example
from example_client import Chat, Run
from server import create_app

PATH = "/human_in_the_loop_approval"


def approve(interrupt_id: str, edited: dict[str, object] | None = None) -> ResumeEntry:
    payload: dict[str, object] = {"approved": True}
    if edited is not None:
        payload["editedArgs"] = edited
    return ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload=payload)


@pytest.fixture(params=[False, True], ids=["stateless", "thread-store"])
async def refunds_client(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """The example server, stateless or with a thread store, and an empty refund ledger."""
    monkeypatch.setattr(approval_example, "REFUNDS", {})
    threads = SQLiteThreadStore(str(tmp_path / "threads.db")) if request.param else None
    app = create_app(ExampleSettings.offline_demo(threads=threads))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


def the_interrupt(run: Run) -> tuple[str, str]:
    """The interrupt id and call id of the one approval a run paused on."""
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    [interrupt] = outcome.interrupts
    assert interrupt.tool_call_id is not None
    return interrupt.id, interrupt.tool_call_id


async def test_an_edited_refund_reports_its_own_result(
    refunds_client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    """Two threads ask for the same refund; the second approves it with another amount: each
    result reports the refund that was made, whatever the other thread did."""
    results: dict[str, str] = {}
    for thread, edited in (("thread-a", None), ("thread-b", {"order_id": "A-17", "amount": 12.5})):
        chat = Chat(refunds_client, PATH, thread_id=thread, protocol_version=protocol_version)
        interrupt_id, call_id = the_interrupt(await chat.say("Please refund 30 dollars on A-17"))
        run = await chat.send(resume=[approve(interrupt_id, edited)])
        results[thread] = run.results[call_id]
        assert results[thread] in run.text
    assert results == {
        "thread-a": "Refunded 30.00 USD on order A-17.",
        "thread-b": "Refunded 12.50 USD on order A-17.",
    }


async def test_the_same_call_id_in_two_threads_makes_two_refunds(
    monkeypatch: pytest.MonkeyPatch, protocol_version: str | None
) -> None:
    """Stateless, a client's history names the call: the same id in two threads (as two
    conversations of a client that numbers its calls would have) is two refunds."""
    ledger: dict[tuple[str, str], str] = {}
    monkeypatch.setattr(approval_example, "REFUNDS", ledger)
    app = create_app(ExampleSettings.offline_demo())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        results = []
        for thread, amount in (("thread-a", 30), ("thread-b", 45)):
            call = ToolCall(
                id="call_1",
                function=FunctionCall(
                    name="issue_refund", arguments=f'{{"order_id": "A-17", "amount": {amount}}}'
                ),
            )
            chat = Chat(http, PATH, thread_id=thread, protocol_version=protocol_version)
            chat.history = [
                UserMessage(id="user-1", content=f"Refund {amount} dollars on A-17"),
                AssistantMessage(id="assistant-1", tool_calls=[call]),
            ]
            run = await chat.send(resume=[approve("call_1")])
            results.append(run.results["call_1"])
    assert results == ["Refunded 30.00 USD on order A-17.", "Refunded 45.00 USD on order A-17."]
    assert sorted(thread for thread, _ in ledger) == ["shared:thread-a", "shared:thread-b"]


async def test_a_refund_without_an_amount_refunds_the_order(
    refunds_client: httpx.AsyncClient,
) -> None:
    """An amount of null (the AG-UI Dojo's fixture gives none) refunds the whole order."""
    chat = Chat(refunds_client, PATH, thread_id="thread-full", protocol_version=None)
    interrupt_id, call_id = the_interrupt(await chat.say("Please refund order ORD-1001"))
    run = await chat.send(resume=[approve(interrupt_id, {"order_id": "ORD-1001", "amount": None})])
    assert run.results[call_id] == "Refunded in full on order ORD-1001."
