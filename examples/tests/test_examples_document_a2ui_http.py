"""The examples behind the Dojo's predictive-state and A2UI pages, driven over HTTP on the demo
model as their pages drive them (the document editor's frontend tools and state; requests marked
as ``@ag-ui/a2ui-middleware`` marks them), each turn built from the previous MESSAGES_SNAPSHOT
and state, checked by the stream checker, for a 1.0 client and for one that sends no
``protocolVersion``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    EventType,
    FunctionCall,
    RunFinishedSuccessOutcome,
    SubagentStartedEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from agents import RunConfig
from support.scripted import Call, ScriptedProvider, ScriptedResponsesModel, Turn

from agents_examples import ExampleSettings
from dojo_pages import (
    A2UI_CONTEXT,
    A2UI_MARK,
    CONFIRM_CHANGES,
    DOCUMENT_STATE,
    RENDER_A2UI,
    WRITE_DOCUMENT,
)
from example_client import Chat, Run
from server import create_app


def success(run: Run) -> RunFinishedSuccessOutcome:
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome), outcome
    return outcome


def answer(call_id: str, accepted: bool) -> ToolMessage:
    content = json.dumps({"accepted": accepted})
    return ToolMessage(id=f"answer-{call_id}", role="tool", content=content, tool_call_id=call_id)


# --- predictive_state_updates --------------------------------------------------------------------


def _editor(client: httpx.AsyncClient, version: str | None) -> Chat:
    tools = [WRITE_DOCUMENT, CONFIRM_CHANGES]
    return Chat(
        client,
        "/predictive_state_updates",
        tools=tools,
        state=DOCUMENT_STATE,
        protocol_version=version,
    )


async def test_the_document_streams_into_the_state_then_waits_for_confirmation(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = _editor(client, protocol_version)
    run = await chat.say("Please write a story about a pirate named Candy Beard.")
    [(write_id, write, args), (confirm_id, confirm, confirm_args)] = run.tool_calls
    assert (write, confirm, confirm_args) == ("write_document_local", "confirm_changes", {})
    document = args["document"]
    assert document.startswith("# Candy Beard the Pirate\n\nOnce upon a time")
    # CopilotKit's PredictState comes just before the call it is about ...
    predict = run.custom("PredictState")
    start = next(e for e in run.events if isinstance(e, ToolCallStartEvent))
    assert run.events.index(start) == run.events.index(predict) + 1
    assert predict.value == [
        {"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}
    ]
    # ... the argument streams in many chunks, which the page parses into state.document ...
    chunks = [
        e for e in run.events if isinstance(e, ToolCallArgsEvent) and e.tool_call_id == write_id
    ]
    assert len(chunks) > 10
    # ... and once complete the server's state holds it too, before the call ends.
    assert run.state_kinds == [EventType.STATE_SNAPSHOT]
    assert chat.state == {"document": document}
    ends = [i for i, e in enumerate(run.events) if e.type == EventType.TOOL_CALL_END]
    assert run.types.index(EventType.STATE_SNAPSHOT) < ends[0]
    assert confirm_id not in run.results  # The page answers it.
    if protocol_version is not None:
        assert success(run).pending_tool_call_ids == [confirm_id]

    accepted = await chat.send(answer(confirm_id, True))
    assert accepted.text == "You accepted the changes: the document is updated."
    assert accepted.tool_calls == [] and accepted.state_kinds == []
    success(accepted)

    # The agent edits the document the page sent back.
    edit = await chat.say("Please add a character named Courage.")
    [(_, _, edited), (confirm_id, _, _)] = edit.tool_calls
    assert edited["document"].startswith(document)
    assert "a stranger named Courage arrived" in edited["document"]
    assert chat.state == {"document": edited["document"]}

    # Rejected: the page puts its previous document back, and the agent says so.
    chat.state = {"document": document}
    rejected = await chat.send(answer(confirm_id, False))
    assert rejected.text == "You rejected the changes, so the document stays as it was."
    assert rejected.input.state == {"document": document}
    success(rejected)


async def test_the_fixtures_rename_edits_the_story_in_place(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = _editor(client, protocol_version)
    first = await chat.say("Write a story about a dragon called Atlantis")
    story = first.tool_calls[0][2]["document"]
    await chat.send(answer(first.tool_calls[1][0], True))
    run = await chat.say("Change dragon name to Lola")
    renamed = run.tool_calls[0][2]["document"]
    assert renamed == story.replace("Atlantis", "Lola")
    assert chat.state == {"document": renamed}


async def test_a_call_of_the_pages_own_write_document_also_streams_into_the_state(
    protocol_version: str | None,
) -> None:
    """A model that calls the page's frontend tool instead (scripted: the demo model prefers
    the backend one): the document is predicted from it too, and the call is left to the page."""
    document = "# The Sea\n\nWaves fold into foam; the gulls argue with the wind."
    model = ScriptedResponsesModel(
        [Turn([Call("write_document", {"document": document}, chunks=6)])]
    )
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    transport = httpx.ASGITransport(app=create_app(ExampleSettings(run_config=config)))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as client:
        chat = Chat(
            client,
            "/predictive_state_updates",
            tools=[WRITE_DOCUMENT, CONFIRM_CHANGES],
            state=DOCUMENT_STATE,
            protocol_version=protocol_version,
        )
        run = await chat.say("Write a poem about the sea")
    [(call_id, name, _)] = run.tool_calls
    assert name == "write_document" and run.results == {}
    assert run.custom("PredictState").value == [
        {"state_key": "document", "tool": "write_document", "tool_argument": "document"}
    ]
    assert chat.state == {"document": document}
    if protocol_version is not None:
        assert success(run).pending_tool_call_ids == [call_id]
    model.assert_consumed()


# --- a2ui_fixed_schema ---------------------------------------------------------------------------


def _operations(content: str) -> dict[str, Any]:
    """The operations of an envelope, by kind."""
    operations = json.loads(content)["a2ui_operations"]
    return {next(key for key in op if key != "version"): op for op in operations}


@pytest.mark.parametrize(
    ("prompt", "tool", "key", "card", "first"),
    [
        (
            "Find flights from SFO to JFK for next Tuesday.",
            "search_flights",
            "flights",
            "FlightCard",
            "United Airlines",
        ),
        (
            "Find hotels in downtown Manhattan for next weekend.",
            "search_hotels",
            "hotels",
            "HotelCard",
            "The Grand",
        ),
    ],
)
async def test_search_results_come_back_as_fixed_surfaces(
    client: httpx.AsyncClient,
    protocol_version: str | None,
    prompt: str,
    tool: str,
    key: str,
    card: str,
    first: str,
) -> None:
    chat = Chat(client, "/a2ui_fixed_schema", protocol_version=protocol_version)
    run = await chat.say(prompt)
    [(call_id, name, args)] = run.tool_calls
    assert name == tool and len(args[key]) == 3
    ops = _operations(run.results[call_id])
    assert ops["createSurface"]["createSurface"]["catalogId"] == (
        "https://a2ui.org/demos/dojo/fixed_catalog.json"
    )
    components = ops["updateComponents"]["updateComponents"]["components"]
    assert [c["component"] for c in components] == ["Row", card]
    assert components[0]["children"]["path"] == f"/{key}"
    data = ops["updateDataModel"]["updateDataModel"]["value"]
    assert data == {key: args[key]}
    if key == "flights":
        assert (data[key][0]["origin"], data[key][0]["destination"]) == ("SFO", "JFK")
    else:
        assert data[key][0]["location"] == "downtown Manhattan"
    assert run.text.startswith(f"Here are 3 {key}: ") and first in run.text
    success(run)


# --- a2ui_dynamic_schema, a2ui_advanced, a2ui_recovery -------------------------------------------


def _designer(client: httpx.AsyncClient, path: str, version: str | None) -> Chat:
    """A chat as the page's A2UI middleware sends it: marked, with its tool and context."""
    return Chat(
        client,
        path,
        tools=[RENDER_A2UI],
        context=A2UI_CONTEXT,
        forwarded_props=A2UI_MARK,
        protocol_version=version,
    )


def _render_calls(run: Run) -> list[dict[str, Any]]:
    """The forced render calls streamed as subagents of generate_a2ui, their arguments parsed."""
    args: dict[str, str] = {}
    for event in run.events:
        if isinstance(event, ToolCallArgsEvent):
            args[event.tool_call_id] = args.get(event.tool_call_id, "") + event.delta
    return [
        json.loads(args[e.tool_call_id])
        for e in run.events
        if isinstance(e, ToolCallStartEvent) and e.tool_call_name == "render_a2ui"
    ]


@pytest.mark.parametrize("path", ["/a2ui_dynamic_schema", "/a2ui_advanced"])
@pytest.mark.parametrize(
    ("prompt", "surface", "card", "count"),
    [
        (
            "Compare 3 luxury hotels in different cities with ratings and prices.",
            "hotel-comparison",
            "HotelCard",
            3,
        ),
        (
            "Compare 3 wireless headphones with prices, ratings, and descriptions.",
            "product-comparison",
            "ProductCard",
            3,
        ),
        (
            "Show a team of 4 people with their roles, departments, and contact info.",
            "team-roster",
            "TeamMemberCard",
            4,
        ),
    ],
)
async def test_a_marked_request_gets_a_generated_surface(
    client: httpx.AsyncClient,
    protocol_version: str | None,
    path: str,
    prompt: str,
    surface: str,
    card: str,
    count: int,
) -> None:
    chat = _designer(client, path, protocol_version)
    run = await chat.say(prompt)
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("generate_a2ui", {"intent": "create"})
    ops = _operations(run.results[call_id])
    assert ops["createSurface"]["createSurface"] == {
        "surfaceId": surface,
        "catalogId": "https://a2ui.org/demos/dojo/dynamic_catalog.json",
    }
    components = ops["updateComponents"]["updateComponents"]["components"]
    assert [c["component"] for c in components] == ["Row", card]
    assert len(ops["updateDataModel"]["updateDataModel"]["value"]["items"]) == count
    renders = _render_calls(run)
    subagents = [e for e in run.events if isinstance(e, SubagentStartedEvent)]
    if protocol_version is None:  # Older clients get the surface whole, in the result.
        assert renders == [] and subagents == []
    else:  # 1.0 clients see the render call stream as a subagent of generate_a2ui.
        assert [s.parent_tool_call_id for s in subagents] == [call_id]
        assert [r["surfaceId"] for r in renders] == [surface]
    assert run.text.startswith(f"Here are {count} options: ")
    success(run)


async def test_an_unmarked_request_is_a_plain_chat(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    run = await Chat(client, "/a2ui_dynamic_schema", protocol_version=protocol_version).say(
        "Compare 3 luxury hotels in different cities with ratings and prices."
    )
    assert run.tool_calls == [] and "I'm the offline demo model" in run.text
    success(run)


async def test_an_invalid_surface_is_generated_again_and_the_valid_one_returned(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = _designer(client, "/a2ui_recovery", protocol_version)
    run = await chat.say("Compare 3 luxury hotels with ratings and prices.")
    [(call_id, _, _)] = run.tool_calls
    components = _operations(run.results[call_id])["updateComponents"]["updateComponents"]
    assert [c["id"] for c in components["components"]] == ["root", "card"]
    if protocol_version is not None:
        first, second = _render_calls(run)
        assert [c["id"] for c in first["components"]] == ["root"]  # The card was missing.
        assert [c["id"] for c in second["components"]] == ["root", "card"]
    assert run.text.startswith("Here are 3 options: The Grand, Boutique Loft and Harbour Inn.")
    success(run)


async def test_a_surface_invalid_every_time_ends_in_a_failure_the_chat_goes_on_from(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = _designer(client, "/a2ui_recovery", protocol_version)
    run = await chat.say("Compare 3 broken hotels with ratings and prices.")
    [(call_id, _, _)] = run.tool_calls
    failure = json.loads(run.results[call_id])
    assert failure["code"] == "a2ui_recovery_exhausted"
    assert [a["attempt"] for a in failure["attempts"]] == [1, 2, 3]
    codes = {e["code"] for a in failure["attempts"] for e in a["errors"]}
    assert codes == {"unresolved_child"}
    if protocol_version is not None:
        assert len(_render_calls(run)) == 3
    assert run.text.startswith("I could not build a valid interface after 3 attempts")
    success(run)

    later = await chat.say("Thanks, tell me in words instead")
    assert later.tool_calls == [] and "I'm the offline demo model" in later.text
    assert "the page tells me" not in later.text  # the middleware's guides are no user facts
    success(later)


async def test_the_capabilities_say_what_each_page_gets(client: httpx.AsyncClient) -> None:
    async def custom(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        body = (await client.get(f"/{name}/capabilities")).json()
        return body["state"], body.get("custom", {})

    state, extra = await custom("predictive_state_updates")
    assert state == {"snapshots": True, "deltas": True}
    assert [p["tool"] for p in extra["predictive_state"]] == [
        "write_document_local",
        "write_document",
    ]
    for name in ("shared_state", "agentic_generative_ui", "subgraphs"):
        assert (await custom(name))[0]["deltas"] is True
    multimodal = (await client.get("/agentic_chat_multimodal/capabilities")).json()
    inputs = multimodal["multimodal"]["input"]
    assert inputs["image"] and inputs["file"] and inputs["pdf"]
    reasoning = (await client.get("/agentic_chat_reasoning/capabilities")).json()["reasoning"]
    assert reasoning == {"supported": True, "streaming": True, "encrypted": True}
    for name in ("a2ui_dynamic_schema", "a2ui_advanced", "a2ui_recovery"):
        assert (await custom(name))[1]["a2ui"] == {"generate_tool": "generate_a2ui"}
    fixed = (await client.get("/a2ui_fixed_schema/capabilities")).json()
    assert [tool["name"] for tool in fixed["tools"]["items"]] == ["search_flights", "search_hotels"]
    assert "a2ui" not in fixed.get("custom", {})  # Its own tools; no generate_a2ui.


async def test_a_surface_action_reaches_the_agent(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    """A click on a card: the A2UI middleware adds a ``log_a2ui_event`` call and its result to
    the history (``forwardedProps.a2uiAction``) and runs again; the agent answers from it."""
    chat = Chat(client, "/a2ui_fixed_schema", protocol_version=protocol_version)
    await chat.say("Find flights from SFO to JFK for next Tuesday.")
    action = {"flightNumber": "UA 123", "airline": "United Airlines", "price": "$289"}
    logged = AssistantMessage(
        id="action-call",
        role="assistant",
        tool_calls=[
            ToolCall(
                id="action-1",
                type="function",
                function=FunctionCall(name="log_a2ui_event", arguments=json.dumps(action)),
            )
        ],
    )
    result = ToolMessage(
        id="action-result",
        role="tool",
        tool_call_id="action-1",
        content=(
            'User performed action "select_flight" on surface "flight-search-results" '
            f"(component: flight-card). Context: {json.dumps(action)}"
        ),
    )
    run = await chat.send(logged, result)
    assert run.tool_calls == []
    assert run.text == (
        "Done: select flight (UA 123, United Airlines, $289), on flight-search-results."
    )
    success(run)
