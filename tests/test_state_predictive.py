"""Predictive state: CopilotKit's ``PredictState`` event before declared tool calls, and the
finished argument written into the shared state, through the real Runner, both request kinds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import BaseEvent, CustomEvent, Tool
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents import (
    AGUITranslator,
    PredictState,
    SharedState,
    StateUpdates,
    shared_state,
    use_shared_state,
)
from support.http import wrapper_for
from support.invariants import client_states
from support.runs import request, run_agui, with_client_tools
from support.scripted import Call, ScriptedResponsesModel, Text, Turn
from support.state_runs import KINDS, post_run, run_with_state

set_tracing_disabled(True)

STORY = "Once upon a time, a dragon named Atlantis soared over the mountains at night."
DOCUMENT = PredictState(state_key="document", tool="write_document_local", tool_argument="document")
PAYLOAD = [{"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}]


@function_tool
def write_document_local(document: str) -> str:
    """Write the whole document."""
    return "Document written."


def story_turns() -> list[Turn]:
    return [
        Turn([Call("write_document_local", {"document": STORY}, call_id="call_doc", chunks=6)]),
        Turn([Text("I wrote the story.")]),
    ]


def around_the_call(events: list[BaseEvent]) -> list[str]:
    """The event types from the PredictState event to the call's result."""
    names = [e.type.value for e in events]
    start = next(i for i, e in enumerate(events) if isinstance(e, CustomEvent))
    return names[start : names.index("TOOL_CALL_RESULT") + 1]


@pytest.mark.parametrize("version", KINDS)
async def test_the_prediction_comes_before_the_call_and_the_value_before_its_end(
    version: str | None,
) -> None:
    agent = Agent(name="writer", tools=[write_document_local])
    run_input = request(state={"document": ""}, protocol_version=version)

    events, state = await run_with_state(
        agent, run_input, story_turns(), state=StateUpdates(predictive=[DOCUMENT])
    )

    predictions = [e for e in events if isinstance(e, CustomEvent)]
    assert [(e.name, e.value) for e in predictions] == [("PredictState", PAYLOAD)]
    assert around_the_call(events) == [
        "CUSTOM",
        "TOOL_CALL_START",
        *["TOOL_CALL_ARGS"] * 6,
        "STATE_SNAPSHOT",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    assert state.value == {"document": STORY}
    assert client_states(events) == [{"document": STORY}]
    assert run_input.state == {"document": ""}


@pytest.mark.parametrize("version", KINDS)
async def test_each_call_of_a_declared_tool_is_announced_and_others_are_not(
    version: str | None,
) -> None:
    @function_tool
    def count_words(text: str) -> str:
        """Count the words of a text."""
        return str(len(text.split()))

    agent = Agent(name="writer", tools=[write_document_local, count_words])
    turns = [
        Turn([Call("write_document_local", {"document": "First draft."})]),
        Turn([Call("count_words", {"text": "First draft."})]),
        Turn([Call("write_document_local", {"document": "Second draft."})]),
        Turn([Text("Done.")]),
    ]

    events, state = await run_with_state(
        agent,
        request(state={}, protocol_version=version),
        turns,
        state=StateUpdates(predictive=[DOCUMENT]),
    )

    before_start = [
        (events[i - 1].type.value, e.tool_call_name)
        for i, e in enumerate(events)
        if e.type.value == "TOOL_CALL_START"
    ]
    assert before_start == [
        ("CUSTOM", "write_document_local"),
        ("TOOL_CALL_RESULT", "count_words"),
        ("CUSTOM", "write_document_local"),
    ]
    assert state.value == {"document": "Second draft."}


@pytest.mark.parametrize("version", KINDS)
async def test_a_client_tool_is_predicted_and_its_arguments_kept_while_it_is_pending(
    version: str | None,
) -> None:
    """The Dojo's document page: the browser owns ``write_document`` and confirms it."""
    write = Tool(
        name="write_document",
        description="Present the proposed document for review.",
        parameters={"type": "object", "properties": {"document": {"type": "string"}}},
    )
    run_input = request(tools=[write], state={"document": "Old."}, protocol_version=version)
    prediction = PredictState("document", "write_document", "document")
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    with use_shared_state(state):
        run = await run_agui(
            with_client_tools(Agent(name="writer")),
            run_input,
            [Turn([Call("write_document", {"document": STORY}, chunks=3)])],
            translator=translator,
            shared_state=state,
            state=StateUpdates(predictive=[prediction]),
        )

    names = [e.type.value for e in run.events]
    assert names.index("CUSTOM") == names.index("TOOL_CALL_START") - 1
    assert names.index("STATE_SNAPSHOT") == names.index("TOOL_CALL_END") - 1
    assert "TOOL_CALL_RESULT" not in names
    assert state.value == {"document": STORY}
    finished = run.events[-1]
    assert finished.type.value == "RUN_FINISHED"
    pending = getattr(finished.outcome, "pending_tool_call_ids", None)
    assert pending == (None if version is None else ["call_1"])


@pytest.mark.parametrize("version", KINDS)
async def test_without_an_argument_the_whole_arguments_object_is_predicted(
    version: str | None,
) -> None:
    @function_tool
    def set_recipe(title: str, minutes: int) -> str:
        """Set the recipe."""
        return "ok"

    prediction = PredictState(state_key="recipe", tool="set_recipe")
    events, state = await run_with_state(
        Agent(name="chef", tools=[set_recipe]),
        request(state={"recipe": {}}, protocol_version=version),
        [Turn([Call("set_recipe", {"title": "Soup", "minutes": 20})]), Turn([Text("ok")])],
        state=StateUpdates(predictive=[prediction]),
    )

    custom = next(e for e in events if isinstance(e, CustomEvent))
    assert custom.value == [{"state_key": "recipe", "tool": "set_recipe"}]
    assert state.value == {"recipe": {"title": "Soup", "minutes": 20}}


@pytest.mark.parametrize("version", KINDS)
async def test_a_tool_that_writes_the_state_itself_sends_the_same_value_once(
    version: str | None,
) -> None:
    @function_tool
    def write_and_store(document: str) -> str:
        """Write the document and store it in the state."""
        shared_state().update(document=document)
        return "stored"

    events, state = await run_with_state(
        Agent(name="writer", tools=[write_and_store]),
        request(state={"document": "", "notes": "x" * 200}, protocol_version=version),
        [Turn([Call("write_and_store", {"document": STORY}, chunks=3)]), Turn([Text("ok")])],
        state=StateUpdates(
            deltas=True, predictive=[PredictState("document", "write_and_store", "document")]
        ),
    )

    states = [e.type.value for e in events if e.type.value.startswith("STATE_")]
    assert states == ["STATE_SNAPSHOT"]  # the tool's own write changed nothing more
    assert client_states(events)[-1] == state.value


@pytest.mark.parametrize("version", KINDS)
async def test_without_a_shared_state_the_prediction_is_only_announced(
    version: str | None,
) -> None:
    run = await run_agui(
        Agent(name="writer", tools=[write_document_local]),
        request(protocol_version=version),
        story_turns(),
        state=StateUpdates(predictive=[DOCUMENT]),
    )

    names = [e.type.value for e in run.events]
    assert names.index("CUSTOM") == names.index("TOOL_CALL_START") - 1
    assert not [n for n in names if n.startswith("STATE_")]


@pytest.mark.parametrize("version", KINDS)
async def test_the_served_wrapper_predicts_and_says_so_in_its_capabilities(
    version: str | None,
) -> None:
    agent = Agent(name="writer", tools=[write_document_local])
    wrapper = wrapper_for(
        agent, ScriptedResponsesModel(story_turns()), state=StateUpdates(predictive=[DOCUMENT])
    )

    events = await post_run(wrapper, request(state={"document": ""}, protocol_version=version))

    assert around_the_call(events)[:2] == ["CUSTOM", "TOOL_CALL_START"]
    assert client_states(events)[-1] == {"document": STORY}
    args = "".join(getattr(e, "delta", "") for e in events if e.type.value == "TOOL_CALL_ARGS")
    assert json.loads(args) == {"document": STORY}
    custom: Any = wrapper.capabilities().custom
    assert custom["predictive_state"] == PAYLOAD
    assert "predictive_state" not in (wrapper_for(agent).capabilities().custom or {})
