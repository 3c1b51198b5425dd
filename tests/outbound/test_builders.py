"""The engine's cheap model builders give exactly what validation gives."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    EventType,
    FunctionCall,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessage,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ag_ui_openai_agents.outbound import reasoning, snapshot, text, tools
from ag_ui_openai_agents.outbound.builders import model_builder

_CALL = FunctionCall(name="lookup", arguments='{"q": 1}')

# Every builder the engine uses, with values of the declared types.
CASES: list[tuple[Any, type[BaseModel], dict[str, Any]]] = [
    (text._content_event, TextMessageContentEvent, {"message_id": "m", "delta": "Hi"}),
    (text._start_event, TextMessageStartEvent, {"message_id": "m", "role": "assistant"}),
    (text._end_event, TextMessageEndEvent, {"message_id": "m"}),
    (tools._args_event, ToolCallArgsEvent, {"tool_call_id": "c", "delta": "{"}),
    (
        tools._start_event,
        ToolCallStartEvent,
        {"tool_call_id": "c", "tool_call_name": "lookup", "parent_message_id": "m"},
    ),
    (tools._end_event, ToolCallEndEvent, {"tool_call_id": "c"}),
    (
        tools._result_event,
        ToolCallResultEvent,
        {"message_id": "r", "tool_call_id": "c", "content": "ok", "role": "tool"},
    ),
    (reasoning._content_event, ReasoningMessageContentEvent, {"message_id": "r", "delta": "x"}),
    (reasoning._start_event, ReasoningStartEvent, {"message_id": "r"}),
    (reasoning._end_event, ReasoningEndEvent, {"message_id": "r"}),
    (
        reasoning._message_start_event,
        ReasoningMessageStartEvent,
        {"message_id": "r", "role": "reasoning"},
    ),
    (reasoning._message_end_event, ReasoningMessageEndEvent, {"message_id": "r"}),
    (
        reasoning._encrypted_event,
        ReasoningEncryptedValueEvent,
        {"subtype": "message", "entity_id": "r", "encrypted_value": "gAAA"},
    ),
    (snapshot._function_call, FunctionCall, {"name": "lookup", "arguments": "{}"}),
    (snapshot._tool_call_model, ToolCall, {"id": "c", "function": _CALL}),
    (
        snapshot._assistant_message,
        AssistantMessage,
        {"id": "m", "content": "Hi", "tool_calls": [ToolCall(id="c", function=_CALL)]},
    ),
    (
        snapshot._reasoning_message,
        ReasoningMessage,
        {"id": "r", "content": "x", "encrypted_value": None},
    ),
    (
        snapshot._replay_call,
        ToolCall,
        {
            "id": "c",
            "function": _CALL,
            "encrypted_value": '{"type":"web_search_call"}',
            "metadata": {"openai": {"v": 1, "id": "ws_1"}},
        },
    ),
    (
        snapshot._replay_assistant,
        AssistantMessage,
        {
            "id": "m",
            "content": "Hi",
            "tool_calls": None,
            "metadata": {"openai": {"v": 1, "id": "m", "phase": "final_answer"}},
        },
    ),
    (
        snapshot._replay_reasoning,
        ReasoningMessage,
        {
            "id": "r",
            "content": "x",
            "encrypted_value": "gAAA",
            "metadata": {"openai": {"v": 1, "id": "r", "part": "summary"}},
        },
    ),
    (snapshot._tool_message, ToolMessage, {"id": "t", "tool_call_id": "c", "content": "ok"}),
    (
        snapshot._snapshot_event,
        MessagesSnapshotEvent,
        {
            "messages": [
                UserMessage(id="u", content="Hi"),
                AssistantMessage(id="m", tool_calls=[ToolCall(id="c", function=_CALL)]),
                ToolMessage(id="t", tool_call_id="c", content="ok"),
            ]
        },
    ),
]


def _state(model: BaseModel) -> tuple[Any, ...]:
    return (
        type(model),
        list(model.__dict__.items()),
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


@pytest.mark.parametrize(
    ("build", "cls", "values"), CASES, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_built_model_is_the_validated_one(
    build: Any, cls: type[BaseModel], values: dict[str, Any]
) -> None:
    validated = cls(**values)
    for built in (build(**values), build(*values.values())):
        assert _state(built) == _state(validated)
        assert built == validated
        assert built.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)
        assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
        assert _state(copy.deepcopy(built)) == _state(validated)
        assert _state(pickle.loads(pickle.dumps(built))) == _state(validated)
        if isinstance(built, BaseEvent):
            assert EventEncoder().encode(built) == EventEncoder().encode(validated)


def test_built_models_share_no_mutable_state() -> None:
    first = text._content_event("m", "a")
    second = text._content_event("m", "b")
    first.timestamp = 5
    first.model_extra["note"] = "x"  # type: ignore[index]
    assert second.timestamp is None
    assert second.model_fields_set == {"message_id", "delta"}
    assert second.model_extra == {}
    assert first.model_fields_set == {"message_id", "delta", "timestamp"}
    assert text._content_event("m", "c").type is EventType.TEXT_MESSAGE_CONTENT


class _Forbidding(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    note: str = "n"


def test_a_model_without_extras_gets_none_as_validation_gives() -> None:
    build = model_builder(_Forbidding, "name")
    assert _state(build("a")) == _state(_Forbidding(name="a"))


class _WithFactory(BaseModel):
    name: str
    tags: list[str] = Field(default_factory=list)


class _WithMutableDefault(BaseModel):
    name: str
    extra: dict[str, int] = {}


class _WithPrivate(BaseModel):
    name: str
    _seen: int = PrivateAttr(default=0)


class _WithFieldValidator(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()


class _WithModelValidator(BaseModel):
    a: int
    b: int = 0

    @model_validator(mode="after")
    def _double(self) -> _WithModelValidator:
        self.b = 2 * self.a
        return self


class _ValidatingDefaults(BaseModel):
    model_config = ConfigDict(validate_default=True)
    count: int = 5


class _ValidatingOneDefault(BaseModel):
    count: int = Field(default=5, validate_default=True)


class _WithFilledTuple(BaseModel):
    name: str
    tags: tuple[list[int], ...] = ([],)


class _WithPostInit(BaseModel):
    name: str

    def model_post_init(self, context: Any, /) -> None:
        """A hook a template would skip."""


@pytest.mark.parametrize(
    ("cls", "names"),
    [
        (_WithFactory, ("name",)),
        (_WithMutableDefault, ("name",)),
        (_WithPrivate, ("name",)),
        (_WithPostInit, ("name",)),
        (_WithFieldValidator, ("name",)),
        (_WithModelValidator, ("a",)),
        (_ValidatingDefaults, ()),
        (_ValidatingOneDefault, ()),
        (_WithFilledTuple, ("name",)),
        (TextMessageContentEvent, ("message_id",)),
        (TextMessageContentEvent, ("message_id", "delta", "unknown")),
        (TextMessageContentEvent, ("message_id", "delta", "delta")),
    ],
)
def test_models_a_template_cannot_build_are_refused(
    cls: type[BaseModel], names: tuple[str, ...]
) -> None:
    with pytest.raises(TypeError):
        model_builder(cls, *names)


def test_a_builder_takes_exactly_its_names() -> None:
    build = model_builder(TextMessageEndEvent, "message_id")
    assert build.__name__ == "build_TextMessageEndEvent"
    with pytest.raises(TypeError):
        build(message_id="m", delta="x")
    with pytest.raises(TypeError):
        build()


class _Plain(BaseModel):
    data: str = ""
    instance: str = ""
    note: tuple[int, ...] = ()


def test_field_names_never_clash_with_the_builders_own_names() -> None:
    build = model_builder(_Plain, "data", "instance")
    assert _state(build("d", "i")) == _state(_Plain(data="d", instance="i"))


def test_a_builder_of_no_field_gives_an_empty_set_of_fields() -> None:
    built = model_builder(_Plain)()
    assert _state(built) == _state(_Plain())
    assert built.model_dump(exclude_unset=True) == {}
    built.data = "x"
    assert built.model_fields_set == {"data"}


def test_every_builder_of_the_engine_is_checked_against_validation() -> None:
    modules = (text, tools, reasoning, snapshot)
    builders = {
        value
        for module in modules
        for value in vars(module).values()
        if getattr(value, "__module__", "") == "ag_ui_openai_agents.outbound.builders"
        and getattr(value, "__name__", "").startswith("build_")
    }
    assert builders == {build for build, _, _ in CASES}
