"""``encode_event`` writes what ag_ui's ``EventEncoder`` writes (or raises), for every event."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any

import ag_ui.core
import pytest
from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from ag_ui.encoder import EventEncoder
from agents import Agent, function_tool, set_tracing_disabled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui_openai_agents.server.encoding import encode_event
from support.event_strategies import constructed_of, events_of, texts
from support.runs import request, run_agui
from support.scripted import Call, Reasoning, Text, Turn

set_tracing_disabled(True)

STANDARD = EventEncoder()
DELTA_EVENTS: dict[type[BaseEvent], str] = {
    TextMessageContentEvent: "message_id",
    ToolCallArgsEvent: "tool_call_id",
    ReasoningMessageContentEvent: "message_id",
}
EVENT_CLASSES = [
    cls
    for cls in (getattr(ag_ui.core, name) for name in ag_ui.core.__all__)
    if isinstance(cls, type) and issubclass(cls, BaseEvent) and cls is not BaseEvent
]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(encode: Callable[[BaseEvent], str], event: BaseEvent) -> tuple[str, Any]:
    """The text and the warnings given, or the exception's type and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = encode(event)
        except Exception as error:
            return ("error", (type(error), str(error)))
    return ("text", (text, [str(w.message) for w in caught]))


def assert_identical(event: BaseEvent) -> None:
    assert outcome(encode_event, event) == outcome(STANDARD.encode, event)


def test_every_event_class_is_covered() -> None:
    assert len(EVENT_CLASSES) > 30
    assert set(DELTA_EVENTS) <= set(EVENT_CLASSES)


@settings(SETTINGS, max_examples=200)
@given(
    cls=st.sampled_from(list(DELTA_EVENTS)),
    item_id=texts,
    delta=texts,
    subagent_run_id=st.none() | texts,
)
def test_identical_for_any_delta_text(
    cls: type[BaseEvent], item_id: str, delta: str, subagent_run_id: str | None
) -> None:
    # Any text: control characters, U+2028, non-BMP characters, lone surrogates, huge strings.
    values: dict[str, Any] = {DELTA_EVENTS[cls]: item_id, "delta": delta}
    if subagent_run_id is not None:
        values["subagent_run_id"] = subagent_run_id
    assert_identical(cls(**values))


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
@SETTINGS
@given(data=st.data())
def test_identical_for_every_event_class(cls: type[BaseEvent], data: st.DataObject) -> None:
    # Each optional field present or absent: a delta event with a timestamp, a raw event or
    # metadata goes to EventEncoder.
    assert_identical(data.draw(events_of(cls)))


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@pytest.mark.parametrize("cls", list(DELTA_EVENTS), ids=lambda cls: cls.__name__)
@SETTINGS
@given(data=st.data())
def test_identical_for_unvalidated_delta_events(cls: type[BaseEvent], data: st.DataObject) -> None:
    # model_construct: floats, str subclasses, enums, extra fields, missing fields.
    assert_identical(data.draw(constructed_of(cls)))


def test_plain_deltas_are_written_without_event_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: EventEncoder, event: BaseEvent) -> str:
        raise AssertionError(f"{event.type} went to EventEncoder")

    monkeypatch.setattr(EventEncoder, "encode", refuse)
    text = TextMessageContentEvent(message_id="m1", delta='Grüße "\n\x00 😀')
    assert encode_event(text) == (
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1",'
        '"delta":"Grüße \\"\\n\\u0000 😀"}\n\n'
    )
    args = ToolCallArgsEvent(tool_call_id="call_1", delta='{"a"', subagent_run_id="sub")
    assert encode_event(args) == (
        'data: {"type":"TOOL_CALL_ARGS","subagentRunId":"sub","toolCallId":"call_1",'
        '"delta":"{\\"a\\""}\n\n'
    )
    reasoning = ReasoningMessageContentEvent(message_id="rs_1", delta="")
    assert encode_event(reasoning) == (
        'data: {"type":"REASONING_MESSAGE_CONTENT","messageId":"rs_1","delta":""}\n\n'
    )
    with pytest.raises(AssertionError, match="TEXT_MESSAGE_CONTENT"):
        encode_event(TextMessageContentEvent(message_id="m1", delta="d", timestamp=5))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


@SETTINGS
@given(snapshot=JSON)
def test_identical_for_any_state_snapshot(snapshot: Any) -> None:
    assert_identical(StateSnapshotEvent(snapshot=snapshot))


def test_plain_state_snapshots_are_written_without_event_encoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    special = {"when": datetime(2024, 5, 1, 12, 30), "nan": float("nan"), "none": None}
    event = StateSnapshotEvent(snapshot=special)
    expected = STANDARD.encode(event)

    def refuse(self: EventEncoder, event: BaseEvent) -> str:
        raise AssertionError(f"{event.type} went to EventEncoder")

    monkeypatch.setattr(EventEncoder, "encode", refuse)
    assert encode_event(event) == expected
    assert encode_event(StateSnapshotEvent(snapshot={"a": [1, "é"]})) == (
        'data: {"type":"STATE_SNAPSHOT","snapshot":{"a":[1,"é"]}}\n\n'
    )
    with pytest.raises(AssertionError, match="STATE_SNAPSHOT"):
        encode_event(StateSnapshotEvent(snapshot={}, timestamp=5))


def test_lone_surrogates_fail_as_in_event_encoder() -> None:
    event = TextMessageContentEvent(message_id="m", delta="half \ud83d")
    kind, (_, message) = outcome(encode_event, event)
    assert kind == "error" and "surrogates not allowed" in message
    assert_identical(event)
    assert_identical(StateSnapshotEvent(snapshot={"half": "\ud83d"}))


def test_subclasses_and_extra_fields_go_to_event_encoder() -> None:
    class Tagged(TextMessageContentEvent):
        tag: str = "x"

    assert '"tag":"x"' in encode_event(Tagged(message_id="m", delta="d"))
    assert_identical(Tagged(message_id="m", delta="d"))
    extra = TextMessageContentEvent(message_id="m", delta="d", traceId="t")  # type: ignore[call-arg]
    assert encode_event(extra).endswith('"traceId":"t"}\n\n')
    assert_identical(extra)


@function_tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny\n\u2028 ☀"


async def test_every_event_of_a_run_encodes_identically() -> None:
    agent = Agent(name="helper", tools=[lookup])
    turns = [
        Turn(
            [
                Reasoning(summary=["Think\x1f é 😀"], encrypted="enc"),
                Call("lookup", {"city": "Zürich 🇨🇭"}),
            ]
        ),
        Turn([Text('Line "one"\nline\ttwo\x00 😀 ' * 20)]),
    ]
    run = await run_agui(agent, request(), turns)
    kinds = {type(event) for event in run.events}
    assert set(DELTA_EVENTS) <= kinds and len(kinds) >= 14
    assert [encode_event(e) for e in run.events] == [STANDARD.encode(e) for e in run.events]
