"""The examples behind the Dojo's reasoning, multimodal, generative-UI, shared-state and
subgraphs pages, driven over HTTP on the demo model as their pages drive them: each turn built
from the previous MESSAGES_SNAPSHOT and STATE_SNAPSHOT, checked by the stream checker, for a 1.0
client and for one that sends no ``protocolVersion``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    EventType,
    ReasoningMessage,
    ReasoningMessageContentEvent,
    RunFinishedSuccessOutcome,
    SubagentStartedEvent,
    ToolMessage,
    UserMessage,
)

from agents_examples import ExampleSettings, agentic_generative_ui, settings_from_env
from agents_examples.agentic_chat_multimodal import MAX_REQUEST_BYTES
from agents_examples.agentic_chat_reasoning import build_agent as reasoning_agent
from dojo_pages import (
    CHANGE_BACKGROUND,
    RECIPE_STATE,
    TRAVEL_STATE,
    attachment_message,
    b64,
    png,
)
from example_client import Chat, Run


def success(run: Run) -> RunFinishedSuccessOutcome:
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome), outcome
    return outcome


def first(run: Run, kind: EventType) -> int:
    return run.types.index(kind)


# --- agentic_chat_reasoning ----------------------------------------------------------------------


async def test_reasoning_streams_before_the_answer_and_returns_with_the_history(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/agentic_chat_reasoning", protocol_version=protocol_version)
    run = await chat.say("What is the best car to buy?")
    assert first(run, EventType.REASONING_START) < first(run, EventType.TEXT_MESSAGE_START)
    reasoning = "".join(e.delta for e in run.events if isinstance(e, ReasoningMessageContentEvent))
    assert reasoning.startswith("No tool fits this request")
    assert "best car to buy" in run.text
    kept = [m for m in run.snapshot.messages if isinstance(m, ReasoningMessage)]
    assert kept and kept[0].encrypted_value, "the encrypted reasoning comes back next turn"
    success(run)

    second = await chat.say("Explain step by step")
    assert first(second, EventType.REASONING_START) < first(second, EventType.TEXT_MESSAGE_START)
    assert "Explain step by step" in second.text
    success(second)


def test_reasoning_agent_asks_the_reasoning_model_for_summaries() -> None:
    agent = reasoning_agent(ExampleSettings(reasoning_model="o4-mini"))
    assert agent.model == "o4-mini"
    reasoning = agent.model_settings.reasoning
    assert reasoning is not None and reasoning.summary == "auto"
    assert agent.model_settings.response_include == ["reasoning.encrypted_content"]
    assert settings_from_env({}).reasoning_model == "gpt-5-mini"
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_REASONING_MODEL": "o3"}
    assert settings_from_env(env).reasoning_model == "o3"


@pytest.mark.parametrize("path", ["/agentic_chat_reasoning", "/agentic_chat_multimodal"])
async def test_change_background_is_left_to_the_page(
    client: httpx.AsyncClient, protocol_version: str | None, path: str
) -> None:
    chat = Chat(client, path, tools=[CHANGE_BACKGROUND], protocol_version=protocol_version)
    run = await chat.say("Change the background to something new.")
    [(call_id, name, args)] = run.tool_calls
    assert name == "change_background" and isinstance(args["background"], str)
    assert run.results == {}
    if protocol_version is not None:
        assert success(run).pending_tool_call_ids == [call_id]
    answer = "Background changed to linear-gradient(#fde, #def)."
    second = await chat.send(
        ToolMessage(id="tool-1", role="tool", content=answer, tool_call_id=call_id)
    )
    assert second.text == "Done: the chat's background is now linear-gradient(#fde, #def)."
    success(second)


# --- agentic_chat_multimodal ---------------------------------------------------------------------


async def test_attachments_reach_the_model_and_are_sent_again_with_the_history(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/agentic_chat_multimodal", protocol_version=protocol_version)
    image = png(64, 48)
    run = await chat.say_message(attachment_message("user-1", "Describe what you see", image=image))
    # The demo model says what it was given: the image (a PNG, its size, its dimensions) and
    # the document with its name and first words, so both parts reached the model.
    assert f"an image (image/png, {len(image)} bytes, 64 x 48 pixels)" in run.text
    assert "a document “notes.txt” (text/plain" in run.text
    assert "begins “Shopping list: eggs, flour, milk," in run.text
    user = run.snapshot.messages[0]
    assert isinstance(user, UserMessage) and isinstance(user.content, list)
    assert [part.type for part in user.content] == ["text", "image", "document"]
    success(run)

    second = await chat.say("Which file was the text?")
    assert len(second.input.messages[0].content) == 3  # type: ignore[arg-type]
    assert "Which file was the text?" in second.text
    assert "You attached" not in second.text  # Only the last message's files are described.
    success(second)


def _body_with_document(size: int) -> dict[str, Any]:
    data = b64(b"x" * size)
    return {
        "threadId": "t",
        "runId": "r",
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "messages": [
            {
                "id": "u",
                "role": "user",
                "content": [
                    {"type": "text", "text": "Summarise this"},
                    {
                        "type": "document",
                        "source": {"type": "data", "value": data, "mimeType": "text/plain"},
                    },
                ],
            }
        ],
    }


async def test_the_multimodal_route_takes_larger_bodies_than_the_default(
    client: httpx.AsyncClient,
) -> None:
    nine_mib = json.dumps(_body_with_document(7 * 1024 * 1024))  # Over 9 MiB in base64.
    assert len(nine_mib) > 8 * 1024 * 1024
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    accepted = await client.post("/agentic_chat_multimodal", content=nine_mib, headers=headers)
    assert accepted.status_code == 200
    assert "RUN_FINISHED" in accepted.text
    refused = await client.post("/agentic_chat", content=nine_mib, headers=headers)
    assert refused.status_code == 413
    too_big = json.dumps(_body_with_document(MAX_REQUEST_BYTES * 3 // 4 + 1024))
    over = await client.post("/agentic_chat_multimodal", content=too_big, headers=headers)
    assert over.status_code == 413


# --- agentic_generative_ui -----------------------------------------------------------------------


@pytest.fixture
def instant_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agentic_generative_ui, "STEP_SECONDS", 0)


@pytest.mark.usefixtures("instant_steps")
async def test_plan_steps_complete_one_by_one_in_the_state(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/agentic_generative_ui", protocol_version=protocol_version)
    run = await chat.say("Please build a plan to make brownies in 4 steps")
    [(call_id, name, args)] = run.tool_calls
    assert name == "generate_task_steps_generative_ui"
    assert [step["status"] for step in args["steps"]] == ["pending"] * 4
    descriptions = [step["description"] for step in args["steps"]]
    # A snapshot first, then each completed step as a patch of one status (state_deltas).
    kinds = [EventType.STATE_SNAPSHOT] + [EventType.STATE_DELTA] * 4
    assert run.state_kinds == kinds
    deltas = [e.delta for e in run.events if e.type == EventType.STATE_DELTA]  # type: ignore[attr-defined]
    assert [[op.model_dump() for op in delta] for delta in deltas] == [
        [{"op": "replace", "path": f"/steps/{index}/status", "value": "completed"}]
        for index in range(4)
    ]
    states = run.states({})
    for done, state in enumerate(states):
        assert [s["description"] for s in state["steps"]] == descriptions
        statuses = [s["status"] for s in state["steps"]]
        assert statuses == ["completed"] * done + ["pending"] * (4 - done)
    kinds_set = {EventType.STATE_SNAPSHOT, EventType.STATE_DELTA}
    positions = [i for i, e in enumerate(run.events) if e.type in kinds_set]
    result = next(
        i
        for i, e in enumerate(run.events)
        if e.type == EventType.TOOL_CALL_RESULT and e.tool_call_id == call_id  # type: ignore[attr-defined]
    )
    assert all(position < result for position in positions), "progress comes while it runs"
    assert run.text.startswith("✅ Done! All 4 steps are complete, from ")
    success(run)

    second = await chat.say("Thanks, that is all")
    assert second.tool_calls == [] and second.state_kinds == []
    assert second.input.state == states[-1]  # The page sends its state back.
    success(second)


# --- shared_state --------------------------------------------------------------------------------


async def test_the_recipe_is_shared_both_ways(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/shared_state", state=RECIPE_STATE, protocol_version=protocol_version)
    run = await chat.say("Create a delicious Italian pasta recipe.")
    [(call_id, name, args)] = run.tool_calls
    assert name == "updateWorkingMemory"
    recipe = args["memory"]["recipe"]
    assert recipe["title"] == "Garlic Tomato Pasta"
    assert set(recipe) == set(RECIPE_STATE["recipe"])
    assert all(set(i) == {"icon", "name", "amount"} for i in recipe["ingredients"])
    [snapshot] = run.state_snapshots
    assert snapshot == {"recipe": recipe}
    assert run.types.index(EventType.STATE_SNAPSHOT) < run.types.index(EventType.TOOL_CALL_RESULT)
    summary = "The recipe “Garlic Tomato Pasta” now has 6 ingredients and 5 steps."
    assert run.results[call_id] == summary
    success(run)

    # The person edits the card; the agent works on what it shows.
    chat.state = {"recipe": {**recipe, "skill_level": "Advanced", "title": "Nonna's pasta"}}
    second = await chat.say("Improve the recipe for a beginner and make it spicy")
    [(_, _, improved)] = second.tool_calls
    changed = improved["memory"]["recipe"]
    assert changed["skill_level"] == "Beginner" and changed["special_preferences"] == ["Spicy"]
    assert changed["ingredients"] == recipe["ingredients"]  # Still the pasta it was shown.
    assert second.state_snapshots[-1]["recipe"]["skill_level"] == "Beginner"

    third = await chat.say("What are the ingredients?")
    assert third.tool_calls == [] and third.state_snapshots == []
    assert third.input.state == chat.state
    success(third)


# --- subgraphs -----------------------------------------------------------------------------------


def _active_agents(run: Run) -> list[str]:
    seen: list[str] = []
    for state in run.states(run.input.state):
        if not seen or seen[-1] != state["active_agent"]:
            seen.append(state["active_agent"])
    return seen


async def test_the_supervisor_builds_the_itinerary_through_three_subagents(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/subgraphs", state=TRAVEL_STATE, protocol_version=protocol_version)
    run = await chat.say("Plan a trip to San Francisco")
    assert [name for _, name, _ in run.tool_calls] == [
        "flights_agent",
        "hotels_agent",
        "experiences_agent",
    ]
    started = [e.name for e in run.events if isinstance(e, SubagentStartedEvent)]
    # Subagent events go to AG-UI 1.0 clients only (the Dojo's 0.0.57 client rejects them);
    # the page follows the specialists through the state's active_agent either way.
    shown = ["Flights agent", "Hotels agent", "Experiences agent"] if protocol_version else []
    assert started == shown
    assert _active_agents(run) == [
        "flights",
        "supervisor",
        "hotels",
        "supervisor",
        "experiences",
        "supervisor",
    ]
    state = chat.state
    assert state["itinerary"]["flight"]["airline"] == "KLM"  # The recommendation.
    assert state["itinerary"]["hotel"]["name"] == "Hotel Zoe"
    assert (len(state["flights"]), len(state["hotels"]), len(state["experiences"])) == (2, 3, 4)
    assert state["planning_step"] == "experiences_done"
    success(run)

    second = await chat.say("Book the United flight instead")
    assert second.tool_calls[0][1] == "flights_agent"
    assert chat.state["itinerary"]["flight"]["airline"] == "United"
    assert chat.state["itinerary"]["hotel"]["name"] == "Hotel Zoe"  # The rest is kept.
    success(second)


# --- v1_agentic_chat -----------------------------------------------------------------------------


async def test_the_v1_chat_page_reaches_agentic_chat(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    run = await Chat(client, "/v1_agentic_chat/", protocol_version=protocol_version).say("Hello")
    assert run.text == "Hello! I'm glad you're here. What can I do for you today?"
    success(run)
    assert (await client.get("/v1_agentic_chat/health")).json()["status"] == "ok"
