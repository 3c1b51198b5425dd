"""A2UI: the ``generate_a2ui`` tool for requests the A2UI middleware marks, and fixed surfaces.

Every run goes through the real Runner and the served wrapper (or the translator), on both
request kinds; the scripted model answers the outer agent's turns and the forced
``render_a2ui`` turns in the order they are asked for.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Context,
    FunctionCall,
    MessagesSnapshotEvent,
    RunAgentInput,
    SubagentStartedEvent,
    Tool,
    ToolCall,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents import AGUITranslator, SharedState, Subagents, use_shared_state
from ag_ui_openai_agents.a2ui import A2UI, FixedSurface, marked_render_tool
from support.http import wrapper_for
from support.invariants import check_stream
from support.runs import check_prefix, request
from support.scripted import (
    Call,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    run_streamed,
)
from support.state_runs import KINDS, post_run

set_tracing_disabled(True)

CATALOG_ID = "https://a2ui.org/demos/dojo/dynamic_catalog.json"
RENDER_TOOL = Tool(
    name="render_a2ui",
    description="Render a dynamic A2UI v0.9 surface with structured parameters.",
    parameters={"type": "object", "properties": {"surfaceId": {"type": "string"}}},
)
SCHEMA_CONTEXT = Context(
    description=(
        "A2UI Component Schema — available components for generating UI surfaces. "
        "Use these component names and properties when creating A2UI operations."
    ),
    value=json.dumps({"catalogId": CATALOG_ID, "components": {"Column": {}, "Text": {}}}),
)
GOOD = {
    "surfaceId": "weather",
    "components": [
        {"id": "root", "component": "Column", "children": ["title"]},
        {"id": "title", "component": "Text", "text": {"path": "/city"}},
    ],
    "data": {"city": "Lisbon"},
}
BROKEN = {  # the root names a child that does not exist
    "surfaceId": "weather",
    "components": [{"id": "root", "component": "Column", "children": ["missing"]}],
}


def marked(version: str | None, *messages: Any, flag: Any = True) -> RunAgentInput:
    """A request as the A2UI middleware sends it: flagged, with its render tool and schema."""
    base = request(*messages, tools=[RENDER_TOOL], protocol_version=version)
    return base.model_copy(
        update={"forwarded_props": {"injectA2UITool": flag}, "context": [SCHEMA_CONTEXT]}
    )


def generation_turns(*renders: dict[str, Any], reply: str = "Here it is.") -> list[Turn]:
    return [
        Turn([Call("generate_a2ui", {"intent": "create"}, call_id="call_gen")]),
        *(Turn([Call("render_a2ui", args, chunks=4)]) for args in renders),
        Turn([Text(reply)]),
    ]


def result_of(events: list[BaseEvent], call_id: str = "call_gen") -> dict[str, Any]:
    (result,) = [
        e for e in events if isinstance(e, ToolCallResultEvent) and e.tool_call_id == call_id
    ]
    parsed: dict[str, Any] = json.loads(result.content)
    return parsed


def render_calls(events: list[BaseEvent]) -> list[ToolCallStartEvent]:
    return [
        e for e in events if isinstance(e, ToolCallStartEvent) and e.tool_call_name == "render_a2ui"
    ]


async def serve(
    turns: list[Turn], run_input: RunAgentInput, **a2ui: Any
) -> tuple[list[BaseEvent], ScriptedResponsesModel]:
    model = ScriptedResponsesModel(turns)
    agent = Agent(name="designer", instructions="Build interfaces.")
    events = await post_run(wrapper_for(agent, model, a2ui=A2UI(**a2ui)), run_input)
    model.assert_consumed()
    return events, model


# --------------------------------------------------------------------------- marking


def test_the_capabilities_name_the_generating_tool() -> None:
    agent: Agent[Any] = Agent(name="designer")

    custom: Any = wrapper_for(agent, a2ui=A2UI()).capabilities().custom
    assert custom["a2ui"] == {"generate_tool": "generate_a2ui"}
    # Its render call is a subagent: the document says which requests see it stream.
    assert custom["subagent_events"] == "1.0"
    opted_in = wrapper_for(agent, a2ui=A2UI(), subagents=Subagents(pre_1_0_clients=True))
    assert (opted_in.capabilities().custom or {})["subagent_events"] == "all"
    plain: Any = wrapper_for(agent).capabilities().custom or {}
    assert "a2ui" not in plain and "subagent_events" not in plain


def test_a_request_is_marked_by_the_middlewares_flag() -> None:
    assert marked_render_tool(marked("1.0")) == "render_a2ui"
    assert marked_render_tool(marked("1.0", flag="paint_ui")) == "paint_ui"
    assert marked_render_tool(marked("1.0", flag=False)) is None
    assert marked_render_tool(request(tools=[RENDER_TOOL])) is None
    assert A2UI().prepare(request(tools=[RENDER_TOOL])) is None


# --------------------------------------------------------------------------- generation


@pytest.mark.parametrize("version", KINDS)
async def test_a_marked_request_gets_generate_a2ui_and_the_surface_streams(
    version: str | None,
) -> None:
    events, model = await serve(generation_turns(GOOD), marked(version))

    outer, render, final = model.calls
    assert "generate_a2ui" in outer.tool_names and "render_a2ui" not in outer.tool_names
    assert render.tool_names == ["render_a2ui"]
    assert render.model_settings.tool_choice == "render_a2ui"
    assert "## Available Components" in (render.instructions or "")
    if version is None:
        # Clients older than 1.0 get no subagents by default: the surface reaches them whole,
        # in the generate_a2ui call's result, which the A2UI middleware renders.
        assert render_calls(events) == []
        assert not any(isinstance(e, SubagentStartedEvent) for e in events)
    else:
        # The render call streams as a subagent of the generate_a2ui call, chunk by chunk.
        (start,) = render_calls(events)
        (subagent,) = [e for e in events if isinstance(e, SubagentStartedEvent)]
        assert subagent.parent_tool_call_id == "call_gen"
        assert start.subagent_run_id == subagent.subagent_run_id
        args = [e for e in events if getattr(e, "tool_call_id", None) == start.tool_call_id]
        assert [e.type.value for e in args].count("TOOL_CALL_ARGS") == 4
    operations = result_of(events)["a2ui_operations"]
    assert [next(k for k in op if k != "version") for op in operations] == [
        "createSurface",
        "updateComponents",
        "updateDataModel",
    ]
    assert operations[0]["createSurface"] == {"surfaceId": "weather", "catalogId": CATALOG_ID}
    assert operations[1]["updateComponents"]["components"] == GOOD["components"]
    assert "a2ui_operations" in json.dumps(final.input[-1])


@pytest.mark.parametrize("version", KINDS)
async def test_the_render_call_runs_on_the_model_a2ui_names(version: str | None) -> None:
    main = ScriptedResponsesModel(
        [Turn([Call("generate_a2ui", {}, call_id="call_gen")]), Turn([Text("Done.")])]
    )
    renderer = ScriptedResponsesModel([Turn([Call("render_a2ui", GOOD)])], model_name="render")
    provider = ScriptedProvider({"render-model": renderer}, default=main)
    wrapper = wrapper_for(
        Agent(name="designer"), provider=provider, a2ui=A2UI(model="render-model")
    )

    events = await post_run(wrapper, marked(version))

    assert [len(main.calls), len(renderer.calls)] == [2, 1]
    assert renderer.calls[0].model_settings.tool_choice == "render_a2ui"
    assert "a2ui_operations" in result_of(events)


@pytest.mark.parametrize("version", KINDS)
async def test_an_invalid_surface_is_generated_again_with_the_errors(version: str | None) -> None:
    events, model = await serve(generation_turns(BROKEN, GOOD), marked(version))

    first, second = model.calls[1:3]
    assert "Previous attempt was invalid" not in (first.instructions or "")
    assert "Previous attempt was invalid" in (second.instructions or "")
    assert "missing" in (second.instructions or "")
    assert len(render_calls(events)) == (0 if version is None else 2)  # pre-1.0: no subagents
    assert "a2ui_operations" in result_of(events)


@pytest.mark.parametrize("version", KINDS)
async def test_a_failed_generation_ends_in_a_failure_the_conversation_goes_on_from(
    version: str | None,
) -> None:
    run_input = marked(version)
    events, model = await serve(
        generation_turns(BROKEN, BROKEN, reply="I could not draw that."), run_input, max_attempts=2
    )

    failure = result_of(events)
    assert failure["code"] == "a2ui_recovery_exhausted"
    assert [attempt["ok"] for attempt in failure["attempts"]] == [False, False]
    assert "a2ui_recovery_exhausted" in json.dumps(model.calls[-1].input[-1])
    assert events[-1].type.value == "RUN_FINISHED"

    # The next turn starts from the conversation as the client holds it.
    (snapshot,) = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
    follow_up = marked(
        version, *snapshot.messages, UserMessage(id="user-2", content="Just tell me then.")
    ).model_copy(update={"run_id": "run-2"})
    later, later_model = await serve([Turn([Text("It is sunny.", id="msg_later")])], follow_up)
    assert later[-1].type.value == "RUN_FINISHED"
    assert "a2ui_recovery_exhausted" in json.dumps(later_model.calls[0].input)


@pytest.mark.parametrize("version", KINDS)
async def test_no_render_call_and_unreadable_arguments_count_as_failed_attempts(
    version: str | None,
) -> None:
    turns = [
        Turn([Call("generate_a2ui", {}, call_id="call_gen")]),
        Turn([Text("I would rather describe it.", id="msg_no_call")]),
        Turn([Call("render_a2ui", '{"surfaceId": "w", "compo')]),
        Turn([Text("Sorry, no surface this time.")]),
    ]

    events, _ = await serve(turns, marked(version), max_attempts=2)

    attempts = result_of(events)["attempts"]
    assert [[e["code"] for e in a["errors"]] for a in attempts] == [
        ["empty_components"],
        ["empty_components"],
    ]
    assert attempts[0]["errors"][0]["message"] == "Sub-agent did not call render_a2ui"


@pytest.mark.parametrize("version", KINDS)
async def test_an_update_edits_the_surface_the_history_holds(version: str | None) -> None:
    first, _ = await serve(generation_turns(GOOD), marked(version))
    (snapshot,) = [e for e in first if isinstance(e, MessagesSnapshotEvent)]
    follow_up = marked(
        version, *snapshot.messages, UserMessage(id="user-2", content="Show Porto instead.")
    ).model_copy(update={"run_id": "run-2"})
    update = {"intent": "update", "target_surface_id": "weather", "changes": "Porto"}
    turns = [
        Turn([Call("generate_a2ui", update, call_id="call_upd")]),
        Turn([Call("render_a2ui", {**GOOD, "data": {"city": "Porto"}}, call_id="call_r2")]),
        Turn([Text("Updated.", id="msg_updated")]),
    ]

    events, model = await serve(turns, follow_up)

    assert "Editing an existing surface" in (model.calls[1].instructions or "")
    operations = result_of(events, "call_upd")["a2ui_operations"]
    assert "createSurface" not in operations[0]
    assert operations[-1]["updateDataModel"]["value"] == {"city": "Porto"}


@pytest.mark.parametrize("version", KINDS)
async def test_an_update_of_an_unknown_surface_is_an_error_the_agent_reads(
    version: str | None,
) -> None:
    turns = [
        Turn([Call("generate_a2ui", {"intent": "update", "target_surface_id": "nope"})]),
        Turn([Text("That surface does not exist.")]),
    ]

    events, model = await serve(turns, marked(version))

    assert "no prior render" in result_of(events, "call_1")["error"]
    assert len(model.calls) == 2


@pytest.mark.parametrize("version", KINDS)
async def test_an_unmarked_request_keeps_its_tools_and_gets_no_generate_a2ui(
    version: str | None,
) -> None:
    run_input = request(tools=[RENDER_TOOL], protocol_version=version)
    events, model = await serve([Turn([Text("Hello.")])], run_input)

    assert model.calls[0].tool_names == ["render_a2ui"]
    assert events[-1].type.value == "RUN_FINISHED"


@pytest.mark.parametrize("version", KINDS)
async def test_the_translator_serves_a_marked_request_with_prepare(version: str | None) -> None:
    run_input = marked(version)
    prepared = A2UI(default_catalog_id="catalog://mine").prepare(run_input)
    assert prepared is not None
    assert [t.name for t in prepared.run_input.tools] == []
    agent = prepared.agent(Agent(name="designer"))
    assert prepared.agent(agent) is agent  # added once
    translator = AGUITranslator()
    state = SharedState(prepared.run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(
            agent,
            translator.to_openai(prepared.run_input).messages,
            turns=generation_turns(GOOD),
        )
    events = [e async for e in translator.to_agui(result, prepared.run_input, shared_state=state)]
    check_stream(events, run_input=prepared.run_input, pre_1_0=version is None)

    create = result_of(events)["a2ui_operations"][0]["createSurface"]
    assert create["catalogId"] == "catalog://mine"
    assert len(render_calls(events)) == (0 if version is None else 1)  # pre-1.0: no subagents


@pytest.mark.parametrize("version", KINDS)
async def test_a_client_leaving_mid_generation_stops_it(version: str | None) -> None:
    """The consumer stops reading while the render call streams: the attempt is cancelled and
    no further attempt or agent turn is started."""
    model = ScriptedResponsesModel(generation_turns(GOOD, GOOD), delay=0.01)
    # The opt-in shows the render call to a pre-1.0 request too, so both can stop inside it.
    wrapper = wrapper_for(
        Agent(name="designer"), model, a2ui=A2UI(), subagents=Subagents(pre_1_0_clients=True)
    )
    run_input = marked(version)
    stream = wrapper.run_streamed(run_input)
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if event.type.value == "TOOL_CALL_ARGS" and event.subagent_run_id is not None:
            break
    await stream.aclose()

    check_prefix(events, run_input)
    assert len(model.calls) == 2


@pytest.mark.parametrize("version", KINDS)
async def test_a_user_action_on_a_surface_reaches_the_agent(version: str | None) -> None:
    """A click on a surface: the middleware turns ``forwardedProps.a2uiAction`` into a
    ``log_a2ui_event`` call and its result at the end of the history it forwards."""
    action = {"name": "book_flight", "surfaceId": "flights", "context": {"flight": "TP 123"}}
    history = [
        UserMessage(id="user-1", content="Find flights"),
        AssistantMessage(
            id="assistant-1",
            tool_calls=[
                ToolCall(
                    id="action-1",
                    function=FunctionCall(name="log_a2ui_event", arguments=json.dumps(action)),
                )
            ],
        ),
        ToolMessage(
            id="action-1-result",
            tool_call_id="action-1",
            content='User performed action "book_flight" on surface "flights".',
        ),
    ]

    events, model = await serve([Turn([Text("Booked TP 123.")])], marked(version, *history))

    sent = json.dumps(model.calls[0].input)
    assert "log_a2ui_event" in sent and "book_flight" in sent
    assert events[-1].type.value == "RUN_FINISHED"


# --------------------------------------------------------------------------- fixed surfaces

FLIGHTS = FixedSurface(
    surface_id="flight-search-results",
    catalog_id="https://a2ui.org/demos/dojo/fixed_catalog.json",
    components=[
        {"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/flights"}},
        {"id": "card", "component": "FlightCard", "airline": {"path": "airline"}},
    ],
)


@function_tool
def search_flights(airlines: list[str]) -> str:
    """Show flights as cards."""
    return FLIGHTS.envelope({"flights": [{"airline": name} for name in airlines]})


@pytest.mark.parametrize("version", KINDS)
async def test_a_backend_tool_returns_a_fixed_surface_envelope(version: str | None) -> None:
    model = ScriptedResponsesModel(
        [
            Turn([Call("search_flights", {"airlines": ["TAP", "KLM"]})]),
            Turn([Text("Here are your flights.")]),
        ]
    )
    agent = Agent(name="travel", tools=[search_flights])

    events = await post_run(wrapper_for(agent, model), request(protocol_version=version))

    operations = result_of(events, "call_1")["a2ui_operations"]
    assert operations[0]["createSurface"]["catalogId"].endswith("fixed_catalog.json")
    assert operations[2]["updateDataModel"]["value"] == {
        "flights": [{"airline": "TAP"}, {"airline": "KLM"}]
    }


def test_a_fixed_layout_and_its_data_are_checked() -> None:
    with pytest.raises(ValueError, match="invalid A2UI layout"):
        FixedSurface("s", [{"id": "main", "component": "Row"}])  # no root
    catalog = {"components": {"Text": {"properties": {"text": {}}, "required": ["text"]}}}
    with pytest.raises(ValueError, match="invalid A2UI layout"):
        FixedSurface("s", [{"id": "root", "component": "Text"}], catalog=catalog)
    bound = FixedSurface("s", [{"id": "root", "component": "Text", "text": {"path": "/title"}}])
    with pytest.raises(ValueError, match="does not fit"):
        bound.envelope({"other": 1})
    assert "a2ui_operations" in json.loads(bound.envelope({"title": "Hi"}))
