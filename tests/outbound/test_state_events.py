"""The state events of a run: when a change is a snapshot and when it is a delta."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from ag_ui_openai_agents import PredictState, SharedState
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from ag_ui_openai_agents.outbound.state_events import StatePredictions, StateStream
from ag_ui_openai_agents.outbound.windows import ToolCallWindow


def kinds(events: list[BaseEvent]) -> list[str]:
    return [event.type.value for event in events]


def patch_of(events: list[BaseEvent]) -> list[dict[str, Any]]:
    (event,) = events
    assert isinstance(event, StateDeltaEvent)
    return [op.model_dump(mode="json", by_alias=True) for op in event.delta]


def test_without_deltas_every_state_is_a_snapshot() -> None:
    stream = StateStream(deltas=False)
    big = {"items": list(range(50))}

    assert kinds(stream.events(big)) == ["STATE_SNAPSHOT"]
    assert kinds(stream.events({**big, "n": 1})) == ["STATE_SNAPSHOT"]
    assert kinds(stream.events({**big, "n": 1})) == ["STATE_SNAPSHOT"]


def test_the_first_state_of_a_run_is_a_snapshot_even_when_a_patch_would_be_smaller() -> None:
    stream = StateStream(deltas=True)

    first = stream.events({"items": list(range(50)), "n": 1})

    assert kinds(first) == ["STATE_SNAPSHOT"]


def test_a_small_change_of_a_large_state_is_a_delta_against_what_was_sent() -> None:
    stream = StateStream(deltas=True)
    state: dict[str, Any] = {"items": list(range(50)), "n": 1}
    stream.events(state)

    state["n"] = 2  # changed in place: the stream compares with its own copy
    state["items"].append(50)
    events = stream.events(state)

    patch = sorted(patch_of(events), key=lambda op: str(op["path"]))
    assert patch == [
        {"op": "add", "path": "/items/50", "value": 50},
        {"op": "replace", "path": "/n", "value": 2},
    ]


def test_a_change_whose_patch_is_not_smaller_is_a_snapshot() -> None:
    stream = StateStream(deltas=True)
    stream.events({"a": 1})

    events = stream.events({"b": 2})

    assert events == [StateSnapshotEvent(snapshot={"b": 2})]


def test_a_state_equal_to_the_last_one_sends_nothing() -> None:
    stream = StateStream(deltas=True)
    stream.events({"items": [1, 2, 3]})

    assert stream.events({"items": [1, 2, 3]}) == []


def test_a_non_object_state_can_be_patched_too() -> None:
    stream = StateStream(deltas=True)
    stream.events(["a long first entry of the list", "a long second entry of the list"])

    events = stream.events(["a long first entry of the list", "a long second entry of the list", 3])

    assert patch_of(events) == [{"op": "add", "path": "/2", "value": 3}]


def test_predictions_name_only_the_mappings_of_the_called_tool() -> None:
    predictions = StatePredictions(
        [
            PredictState("document", "write_document", "document"),
            PredictState("title", "write_document", "title"),
            PredictState("plan", "make_plan"),
        ]
    )

    assert predictions.before_start("other") == []
    assert predictions.before_start("write_document") == [
        CustomEvent(
            name="PredictState",
            value=[
                {"state_key": "document", "tool": "write_document", "tool_argument": "document"},
                {"state_key": "title", "tool": "write_document", "tool_argument": "title"},
            ],
        )
    ]
    assert predictions.before_start("make_plan") == [
        CustomEvent(name="PredictState", value=[{"state_key": "plan", "tool": "make_plan"}])
    ]


def test_finished_arguments_go_into_the_shared_state_and_are_flushed() -> None:
    state = SharedState({"document": "old", "other": 1})
    flushed: list[Any] = []

    def flush() -> list[BaseEvent]:
        flushed.append(state.value)
        return [StateSnapshotEvent(snapshot=state.value)]

    predictions = StatePredictions(
        [PredictState("document", "write", "text"), PredictState("last_call", "write")],
        state,
        flush,
    )

    events = predictions.at_end("write", '{"text": "new"}')

    expected = {"document": "new", "other": 1, "last_call": {"text": "new"}}
    assert state.value == expected
    assert events == [StateSnapshotEvent(snapshot=expected)]
    assert predictions.at_end("other_tool", '{"text": "x"}') == []


def test_unusable_arguments_change_nothing() -> None:
    state = SharedState({"document": "old"})
    predictions = StatePredictions([PredictState("document", "write", "text")], state, list)

    for arguments in ('{"text": "cut', "[1, 2]", '{"other": 1}', ""):
        assert predictions.at_end("write", arguments) == []
    assert (state.value, state.version) == ({"document": "old"}, 0)


def call_events(call_id: str, name: str, arguments: str) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta=arguments),
        ToolCallEndEvent(tool_call_id=call_id),
    ]


def test_weave_puts_the_predictions_around_the_declared_calls_of_the_run() -> None:
    state = SharedState({"document": "old"})
    stream = StateStream(deltas=False)
    predictions = StatePredictions(
        [PredictState("document", "write", "text")], state, lambda: stream.events(state.value)
    )
    calls = {
        "call_write": ToolCallWindow("call_write", "write", args=['{"text": "new"}']),
        "call_other": ToolCallWindow("call_other", "other", args=['{"text": "x"}']),
        "hosted": ToolCallWindow("hosted", "write", hosted=True, args=['{"text": "no"}']),
    }
    nested = call_events("call_write", "write", '{"text": "nested"}')
    for event in nested:
        event.subagent_run_id = "subagent-1"  # type: ignore[attr-defined]
    other = call_events("call_other", "other", '{"text": "x"}')
    hosted = call_events("hosted", "write", '{"text": "no"}')

    assert predictions.weave(other + hosted + nested, calls) == other + hosted + nested
    woven = predictions.weave(call_events("call_write", "write", '{"text": "new"}'), calls)

    assert kinds(woven) == [
        "CUSTOM",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "STATE_SNAPSHOT",
        "TOOL_CALL_END",
    ]
    assert woven[3] == StateSnapshotEvent(snapshot={"document": "new"})
    assert state.value == {"document": "new"}


def test_the_engine_knows_nothing_of_predictions() -> None:
    """The run's lifecycle weaves them in; no module of the engine reaches for them."""
    engine_modules = {
        cls.__module__ for cls in OpenAIToAGUITranslator.__mro__ if cls is not object
    } | {"ag_ui_openai_agents.outbound.subagent_book"}
    assert "ag_ui_openai_agents.outbound.tools" in engine_modules
    for module in engine_modules:
        source = Path(sys.modules[module].__file__ or "").read_text(encoding="utf-8")
        assert "state_events" not in source and "predict" not in source.lower(), module


def test_without_a_shared_state_predictions_only_announce() -> None:
    predictions = StatePredictions([PredictState("document", "write", "text")])

    assert predictions.at_end("write", '{"text": "new"}') == []
    assert kinds(predictions.before_start("write")) == ["CUSTOM"]


def test_an_event_holds_a_copy_of_the_state_it_was_made_from() -> None:
    for deltas in (False, True):
        state: dict[str, Any] = {"steps": [{"done": False}]}
        (event,) = StateStream(deltas=deltas).events(state)
        state["steps"][0]["done"] = True

        assert event == StateSnapshotEvent(snapshot={"steps": [{"done": False}]})
