"""A2UI: the ``generate_a2ui`` tool for requests the A2UI middleware marks.

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
    FunctionCall,
    MessagesSnapshotEvent,
    SubagentStartedEvent,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from agents import Agent, set_tracing_disabled

from ag_ui_openai_agents import AGUITranslator, SharedState, Subagents, use_shared_state
from ag_ui_openai_agents.a2ui import A2UI
from ag_ui_openai_agents.a2ui.generate import marked_render_tool
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from support.a2ui import (
    BROKEN,
    CATALOG_ID,
    GOOD,
    RENDER_TOOL,
    generation_turns,
    marked,
    render_calls,
    result_of,
    serve,
)
from support.http import wrapper_for
from support.invariants import check_stream
from support.runs import request
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


# --------------------------------------------------------------------------- catalog

APP_CATALOG = "catalog://application"
MODEL_CATALOG = "catalog://named-by-the-model"


@pytest.mark.parametrize(
    ("named", "application", "in_request", "expected"),
    [
        (MODEL_CATALOG, APP_CATALOG, True, MODEL_CATALOG),  # the model's render arguments
        (None, APP_CATALOG, True, APP_CATALOG),  # then A2UI(default_catalog_id=...)
        ("basic", None, True, CATALOG_ID),  # then the request's schema context
        (None, None, False, None),  # then none: the client's default applies
    ],
    ids=["model", "application", "request", "none"],
)
@pytest.mark.parametrize("version", KINDS)
async def test_a_new_surface_is_created_in_the_catalog_named_first(
    version: str | None,
    named: str | None,
    application: str | None,
    in_request: bool,
    expected: str | None,
) -> None:
    render = GOOD if named is None else {**GOOD, "catalogId": named}
    run_input = marked(version)
    if not in_request:
        run_input = run_input.model_copy(update={"context": []})

    events, _ = await serve(generation_turns(render), run_input, default_catalog_id=application)

    create = result_of(events)["a2ui_operations"][0]["createSurface"]
    assert create == {"surfaceId": "weather", **({"catalogId": expected} if expected else {})}


# --------------------------------------------------------------------------- history


@pytest.mark.parametrize("version", KINDS)
async def test_the_request_is_translated_once_and_the_render_call_starts_from_it(
    version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    translated: list[int] = []
    translate = AGUIToOpenAITranslator.translate_messages

    def counting(self: AGUIToOpenAITranslator, messages: Any) -> Any:
        translated.append(1)
        return translate(self, messages)

    monkeypatch.setattr(AGUIToOpenAITranslator, "translate_messages", counting)

    _, model = await serve(generation_turns(GOOD), marked(version))

    assert len(translated) == 1
    outer, render, _ = model.calls
    assert render.input == outer.input


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
