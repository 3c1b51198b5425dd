"""Events with nested models, lists and JSON values: ``EventEncoder``'s very line, written in
Python, and long texts placed in it uncopied."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    CustomEvent,
    FunctionCall,
    MessagesSnapshotEvent,
    ReasoningMessage,
    RunFinishedEvent,
    StateSnapshotEvent,
    SystemMessage,
    TextInputContent,
    TokenUsage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from hypothesis import HealthCheck, given, settings

from ag_ui_openai_agents.server.encoder import NESTED_EVENTS, FastEventEncoder, encode_nested
from ag_ui_openai_agents.server.model_json import LARGE_CONTENT, model_writer, write_json
from support.encoding import outcome
from support.event_strategies import events_of

STANDARD = EventEncoder()
FAST = FastEventEncoder()
LONG = "word " * (LARGE_CONTENT // 5 + 1)


def every_message_kind() -> MessagesSnapshotEvent:
    call = ToolCall(
        id="call_1",
        function=FunctionCall(name="lookup", arguments='{"q": "x"}'),
        encrypted_value="opaque",
        metadata={"openai": {"v": 1, "id": "fc_1", "after": None, "list": [1, True, "é"]}},
    )
    return MessagesSnapshotEvent(
        timestamp=1_700_000_000_000,
        metadata={"source": "test"},
        messages=[
            SystemMessage(id="s1", content="Be brief."),
            UserMessage(id="u1", content="Hello \u2028 \x7f 😀", name="ann"),
            UserMessage(id="u2", content=[TextInputContent(text="parts")]),
            AssistantMessage(id="a1", content="Grüße\n", tool_calls=[call], name="bot"),
            AssistantMessage(id="a2", subagent_run_id="sub-1", metadata={}),
            ToolMessage(id="t1", tool_call_id="call_1", content='{"ok": true}', error="none"),
            ReasoningMessage(id="r1", content="thinking", encrypted_value="enc"),
        ],
    )


def test_every_message_kind_is_written_as_pydantic_writes_it() -> None:
    event = every_message_kind()
    line = encode_nested(event)
    assert line is not None
    assert line == STANDARD.encode(event)


def test_run_finished_with_usage_and_custom_values() -> None:
    usage = [TokenUsage(model="m", input_tokens=3, output_tokens=4, total_tokens=7)]
    finished = RunFinishedEvent(thread_id="t", run_id="r", result={"a": [1, None]}, usage=usage)
    custom = CustomEvent(name="run_usage", value={"total": 7, "nested": {"x": ["y"]}})
    state = StateSnapshotEvent(snapshot={"steps": [{"done": False}], "title": "é"})
    for event in (finished, custom, state):
        line = encode_nested(event)
        assert line is not None and line == STANDARD.encode(event)
        assert FAST.encode(event) == line


@pytest.mark.parametrize(
    "value",
    [0.5, 1e16, (1, 2), {1: "int key"}, {"set": {1}}, 2**64, "lone \ud800", b"bytes"],
    ids=repr,
)
def test_what_only_pydantic_writes_goes_to_event_encoder(value: Any) -> None:
    event = CustomEvent.model_construct(type=CustomEvent.model_fields["type"].default, name="n")
    event.__dict__["value"] = value
    assert encode_nested(event) is None
    assert outcome(FAST, event) == outcome(STANDARD, event)


def test_a_model_of_another_class_or_with_extras_goes_to_event_encoder() -> None:
    class Special(AssistantMessage):
        pass

    for message in (
        Special(id="a1", content="sub"),
        AssistantMessage(id="a1", content="x", surprise="extra"),
        AssistantMessage.model_construct(role="assistant"),  # no id
    ):
        event = MessagesSnapshotEvent.model_construct(messages=[message])
        assert encode_nested(event) is None
        assert outcome(FAST, event) == outcome(STANDARD, event)


def test_long_plain_texts_are_placed_uncopied() -> None:
    event = MessagesSnapshotEvent(
        messages=[
            AssistantMessage(id="a1", content=LONG),
            ToolMessage(id="t1", tool_call_id="c1", content=LONG + "tail"),
            AssistantMessage(id="a2", content=LONG + "\n"),  # needs escaping: a copy
        ]
    )
    writer = model_writer(MessagesSnapshotEvent)
    assert writer is not None
    out: list[str] = []
    assert writer(event, out)
    placed = [piece for piece in out if len(piece) >= LARGE_CONTENT]
    assert placed[0] is LONG
    assert placed[1] is event.messages[1].content
    assert placed[2] is not event.messages[2].content and placed[2].endswith('\\n"')
    assert FAST.encode(event) == STANDARD.encode(event)


def test_write_json_keeps_key_order_and_nulls() -> None:
    out: list[str] = []
    assert write_json({"b": None, "a": [True, 0, -1, "x\ty"], "": {}}, out)
    assert "".join(out) == '{"b":null,"a":[true,0,-1,"x\\ty"],"":{}}'


def test_the_nested_path_covers_the_events_it_names() -> None:
    names = {cls.__name__ for cls in NESTED_EVENTS}
    assert {"MessagesSnapshotEvent", "RunFinishedEvent", "CustomEvent"} <= names
    assert {"StateSnapshotEvent", "StateDeltaEvent", "RunStartedEvent"} <= names


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@pytest.mark.parametrize(
    "cls", sorted(NESTED_EVENTS, key=lambda c: c.__name__), ids=lambda c: c.__name__
)
def test_identical_and_mostly_written_here(cls: type[BaseEvent]) -> None:
    """Over drawn events of each class: the same outcome always, and the nested path taken
    often enough that the comparison is about it (not only about the fallback)."""
    written: list[bool] = []

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(events_of(cls))
    def compare(event: BaseEvent) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            line = encode_nested(event)
        written.append(line is not None)
        assert outcome(FAST, event) == outcome(STANDARD, event)
        if line is not None:
            assert line == STANDARD.encode(event)

    compare()
    assert sum(written) >= len(written) // 5, f"{sum(written)} of {len(written)} written here"
