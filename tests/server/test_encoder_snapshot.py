"""MESSAGES_SNAPSHOT with long contents: the same line as ``EventEncoder``, contents uncopied."""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    MessagesSnapshotEvent,
    ReasoningMessage,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui_openai_agents import FastEventEncoder
from ag_ui_openai_agents.server import encoder as encoder_module
from ag_ui_openai_agents.server.encoder import LARGE_CONTENT, encode_snapshot
from support.event_strategies import constructed_of, events_of

STANDARD = EventEncoder()
FAST = FastEventEncoder()
LONG = "word " * (LARGE_CONTENT // 5 + 1)


@contextmanager
def large_from(length: int) -> Iterator[None]:
    """Every content of at least ``length`` characters takes the uncopied path."""
    saved = encoder_module.LARGE_CONTENT
    encoder_module.LARGE_CONTENT = length
    try:
        yield
    finally:
        encoder_module.LARGE_CONTENT = saved


def outcome(encoder: EventEncoder, event: BaseEvent) -> tuple[str, Any]:
    """The text and the warnings given, or the exception's type and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = encoder.encode(event)
        except Exception as error:
            return ("error", (type(error), str(error)))
    return ("text", (text, [str(w.message) for w in caught]))


def what_pydantic_was_given(monkeypatch: pytest.MonkeyPatch) -> list[BaseEvent]:
    """Record each event ``EventEncoder`` serialises from now on."""
    given: list[BaseEvent] = []
    original = EventEncoder._encode_sse

    def recording(self: EventEncoder, event: BaseEvent) -> str:
        given.append(event)
        return original(self, event)

    monkeypatch.setattr(EventEncoder, "_encode_sse", recording)
    return given


def snapshot(*messages: Any) -> MessagesSnapshotEvent:
    return MessagesSnapshotEvent(messages=list(messages))


def test_long_plain_contents_are_placed_uncopied(monkeypatch: pytest.MonkeyPatch) -> None:
    event = snapshot(
        UserMessage(id="u1", content="Write a long answer."),
        AssistantMessage(id="m1", content=LONG, name="writer"),
        ReasoningMessage(id="r1", content=LONG + "more"),
        ToolMessage(id="t1", tool_call_id="c1", content=LONG),
    )
    expected = STANDARD.encode(event)
    given = what_pydantic_was_given(monkeypatch)
    line = FastEventEncoder().encode(event)
    assert line == expected
    assert given == []  # EventEncoder was not used
    placed = encoder_module.uuid.UUID(int=1)
    monkeypatch.setattr(encoder_module.uuid, "uuid4", lambda: placed)
    written: list[MessagesSnapshotEvent] = []
    dump = MessagesSnapshotEvent.model_dump_json

    def record_dump(self: MessagesSnapshotEvent, **options: Any) -> str:
        written.append(self)
        return dump(self, **options)

    monkeypatch.setattr(MessagesSnapshotEvent, "model_dump_json", record_dump)
    assert encode_snapshot(event) == expected
    contents = [getattr(message, "content", None) for message in written[0].messages]
    assert contents[0] == "Write a long answer."
    assert all(len(text) < 100 for text in contents)  # markers only: pydantic never saw LONG
    assert event.messages[1].content is LONG  # the event itself is left as it was


@pytest.mark.parametrize("extra", ["\n", '"', "\\", "\x00", "\x1f", "\ud800"])
def test_contents_json_would_escape_go_to_event_encoder(
    monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    event = MessagesSnapshotEvent.model_construct(
        messages=[AssistantMessage.model_construct(id="m1", role="assistant", content=LONG + extra)]
    )
    assert encode_snapshot(event) is None
    assert outcome(FAST, event) == outcome(STANDARD, event)


def test_short_contents_and_no_messages_go_to_event_encoder() -> None:
    assert encode_snapshot(snapshot(AssistantMessage(id="m1", content="short"))) is None
    assert encode_snapshot(snapshot()) is None
    assert encode_snapshot(MessagesSnapshotEvent.model_construct()) is None


def test_a_marker_found_twice_gives_the_standard_line(monkeypatch: pytest.MonkeyPatch) -> None:
    fixed = uuid.UUID(int=7)
    monkeypatch.setattr(encoder_module.uuid, "uuid4", lambda: fixed)
    clash = f"agui-{fixed.hex}-0"  # what the marker of message 0 will be
    event = snapshot(AssistantMessage(id="m1", content=LONG, name=clash))
    assert encode_snapshot(event) is None
    assert FAST.encode(event) == STANDARD.encode(event)


def test_non_ascii_long_contents_are_placed_too() -> None:
    text = "Grüße, 世界 \u2028 \x7f 😀 " * (LARGE_CONTENT // 10)
    event = snapshot(AssistantMessage(id="m1", content=text))
    line = encode_snapshot(event)
    assert line is not None and line == STANDARD.encode(event)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@SETTINGS
@given(data=st.data())
def test_identical_for_any_snapshot_with_every_content_placed(data: st.DataObject) -> None:
    event = data.draw(events_of(MessagesSnapshotEvent))
    with large_from(0):
        assert outcome(FAST, event) == outcome(STANDARD, event)


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@SETTINGS
@given(data=st.data())
def test_identical_for_unvalidated_snapshots_with_every_content_placed(
    data: st.DataObject,
) -> None:
    event = data.draw(constructed_of(MessagesSnapshotEvent))
    with large_from(0):
        assert outcome(FAST, event) == outcome(STANDARD, event)
