"""FastEventEncoder writes exactly what ag_ui's EventEncoder writes, for every event."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    CustomEvent,
    EventType,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
)
from ag_ui.encoder import EventEncoder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from ag_ui_openai_agents import FastEventEncoder
from ag_ui_openai_agents.server.encoder import (
    FAST_ENCODERS,
    NESTED_EVENTS,
    _generate,
    _verified,
    event_classes,
    field_plans,
)
from ag_ui_openai_agents.server.model_json import plain_model
from support.budget import examples
from support.encoding import outcome
from support.event_strategies import constructed_of, events_of, texts

FIELDS_FILE = Path(__file__).parents[1] / "support" / "ag_ui_event_fields.json"
STANDARD = EventEncoder()
FAST = FastEventEncoder()
CLASSES = event_classes()
SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_identical(event: BaseEvent) -> None:
    fast, standard = outcome(FAST, event), outcome(STANDARD, event)
    assert fast == standard


def _models_in(annotation: Any, found: dict[str, type[BaseModel]]) -> None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__name__ not in found:
            found[annotation.__name__] = annotation
            for info in annotation.model_fields.values():
                _models_in(info.annotation, found)
        return
    for arg in typing.get_args(annotation):
        _models_in(arg, found)


def nested_models() -> list[type[BaseModel]]:
    """Every model class reachable from an event's fields (messages, tool calls, usage…)."""
    found: dict[str, type[BaseModel]] = {}
    for cls in CLASSES:
        for info in cls.model_fields.values():
            _models_in(info.annotation, found)
    return [found[name] for name in sorted(found) if found[name] not in CLASSES]


def _fields(cls: type[BaseModel]) -> list[list[Any]]:
    return [
        [name, info.alias, str(info.annotation), info.is_required(), repr(info.default)]
        for name, info in cls.model_fields.items()
    ]


def described() -> dict[str, Any]:
    """What the fast paths read of every event class and of every model inside one: fields,
    their keys and kinds, and whether pydantic writes the model plainly."""
    result: dict[str, Any] = {}
    for model in nested_models():
        result[model.__name__] = {"fields": _fields(model), "plain": plain_model(model)}
    for cls in CLASSES:
        plans = field_plans(cls)
        result[cls.__name__] = {
            "fields": _fields(cls),
            "fast": None
            if plans is None
            else [[p.key, p.omittable, list(p.kinds), [str(v) for v in p.literals]] for p in plans],
        }
    return result


def render_fields() -> str:
    """The recorded file: one line per event class."""
    lines = [f"  {json.dumps(name)}: {json.dumps(entry)}" for name, entry in described().items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def test_the_models_are_the_ones_the_fast_path_was_checked_against() -> None:
    # A new ag_ui release that adds, renames, reorders or retypes a field of any event, or of
    # any model inside one (messages, tool calls, usage), fails here. Once the identity tests
    # pass on it, record it again (from tests/):
    #   uv run python -c "import sys; sys.path.insert(0, 'server'); import test_encoder as t;
    #   t.FIELDS_FILE.write_text(t.render_fields())"
    assert described() == json.loads(FIELDS_FILE.read_text())


def test_streamed_events_take_the_fast_path() -> None:
    streamed = [name for name, cls in ((c.__name__, c) for c in CLASSES) if cls in FAST_ENCODERS]
    assert len(streamed) == 24
    for cls in (TextMessageContentEvent, ToolCallArgsEvent, ToolCallResultEvent, RunStartedEvent):
        assert cls in FAST_ENCODERS
    assert MessagesSnapshotEvent not in FAST_ENCODERS
    assert MessagesSnapshotEvent in NESTED_EVENTS
    assert CustomEvent not in FAST_ENCODERS


def test_fast_path_does_not_call_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Any, event: BaseEvent) -> str:
        raise AssertionError(f"{event.type} went to EventEncoder")

    monkeypatch.setattr(EventEncoder, "_encode_sse", refuse)
    encoder = FastEventEncoder()
    text = encoder.encode(TextMessageContentEvent(message_id="m1", delta="Grüße\n"))
    assert text == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Grüße\\n"}\n\n'
    start = TextMessageStartEvent(message_id="m1", role="assistant", timestamp=5)
    expected = (
        'data: {"type":"TEXT_MESSAGE_START","timestamp":5,"messageId":"m1","role":"assistant"}'
    )
    assert encoder.encode(start) == expected + "\n\n"
    snapshot = MessagesSnapshotEvent(messages=[AssistantMessage(id="m1", content="Hi")])
    assert encoder.encode(snapshot) == (
        'data: {"type":"MESSAGES_SNAPSHOT","messages":'
        '[{"id":"m1","role":"assistant","content":"Hi"}]}\n\n'
    )
    with pytest.raises(AssertionError, match="MESSAGES_SNAPSHOT"):  # a float: pydantic writes it
        encoder.encode(
            MessagesSnapshotEvent(messages=[AssistantMessage(id="m1", metadata={"score": 0.5})])
        )


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
@SETTINGS
@given(data=st.data())
def test_identical_for_every_event_class(cls: type[BaseEvent], data: st.DataObject) -> None:
    assert_identical(data.draw(events_of(cls)))


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
@SETTINGS
@given(data=st.data())
def test_identical_for_unvalidated_events(cls: type[BaseEvent], data: st.DataObject) -> None:
    assert_identical(data.draw(constructed_of(cls)))


@SETTINGS
@given(message_id=texts, delta=texts)
def test_identical_for_any_text_delta(message_id: str, delta: str) -> None:
    assert_identical(TextMessageContentEvent(message_id=message_id, delta=delta))


def test_lone_surrogates_fail_as_in_event_encoder() -> None:
    event = TextMessageContentEvent(message_id="m", delta="half \ud83d")
    kind, (error, message) = outcome(FAST, event)
    assert kind == "error" and "surrogates not allowed" in message
    assert (kind, (error, message)) == outcome(STANDARD, event)
    assert_identical(TextMessageContentEvent(message_id="m", delta="whole \U0001f600"))


def test_subclasses_and_extras_go_to_event_encoder() -> None:
    class Tagged(TextMessageContentEvent):
        tag: str = "x"

    assert_identical(Tagged(message_id="m", delta="d"))
    assert '"tag":"x"' in FAST.encode(Tagged(message_id="m", delta="d"))
    extra = TextMessageContentEvent(message_id="m", delta="d", traceId="t")  # type: ignore[call-arg]
    assert FAST.encode(extra).endswith('"traceId":"t"}\n\n')
    assert_identical(extra)


def test_enum_and_literal_fields() -> None:
    for subtype in ("tool-call", "message"):
        event = ReasoningEncryptedValueEvent(subtype=subtype, entity_id="e", encrypted_value="v")
        assert_identical(event)
    constructed = TextMessageContentEvent.model_construct(
        type="TEXT_MESSAGE_CONTENT", message_id="m", delta="d"
    )
    assert_identical(constructed)
    assert constructed.type is not EventType.TEXT_MESSAGE_CONTENT


def test_a_wrong_generated_encoder_is_refused() -> None:
    plans = field_plans(TextMessageContentEvent)
    assert plans is not None
    assert _verified(TextMessageContentEvent, _generate(TextMessageContentEvent, plans))
    assert not _verified(TextMessageContentEvent, lambda event: "data: {}\n\n")
    reordered = (plans[0], *reversed(plans[1:]))
    assert not _verified(TextMessageContentEvent, _generate(TextMessageContentEvent, reordered))
