"""Drift: what the inbound translator writes must still exist in the installed openai / SDK types.

``PRODUCED_WIRE_TYPES`` lists every discriminator the translator produces. Each value is looked
up in the ``Literal`` annotations of the ``openai.types.responses`` input param TypedDicts, so a
rename or removal in a new openai release fails here. The constant itself is checked against
what the translator really produces for a request that exercises every mapping.
"""

from __future__ import annotations

import base64
import typing
from collections.abc import Iterable
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    BinaryInputContent,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from agents.items import TResponseInputItem
from agents.models import chatcmpl_converter
from agents.models.chatcmpl_converter import Converter
from openai.types.responses import (
    EasyInputMessageParam,
    ResponseFunctionToolCallParam,
    ResponseInputAudioParam,
    ResponseInputFileParam,
    ResponseInputImageParam,
    ResponseInputTextParam,
    ResponseOutputMessageParam,
    ResponseOutputTextParam,
    ResponseReasoningItemParam,
    response_input_audio_param,
    response_input_content_param,
    response_input_item_param,
    response_output_message_param,
    response_reasoning_item_param,
)
from openai.types.responses.response_function_call_output_item_param import (
    ResponseFunctionCallOutputItemParam,
)

from ag_ui_openai_agents.inbound.messages import PRODUCED_WIRE_TYPES, AGUIToOpenAITranslator

B64 = base64.b64encode(b"bytes").decode()


# --- reading Literal values out of TypedDict annotations ---------------------------------------

_WRAPPERS: set[Any] = {
    wrapper
    for wrapper in (
        getattr(typing, "Required", None),
        getattr(typing, "NotRequired", None),
        typing.Annotated,
    )
    if wrapper is not None
}


def literal_values(annotation: Any) -> set[Any]:
    """Every ``Literal`` value reachable in an annotation (through unions, Required, ...)."""
    origin = get_origin(annotation)
    if origin is typing.Literal:
        return set(get_args(annotation))
    if origin in _WRAPPERS or origin is typing.Union or _is_pep604_union(annotation):
        found: set[Any] = set()
        for arg in get_args(annotation)[: 1 if origin in _WRAPPERS else None]:
            found |= literal_values(arg)
        return found
    if origin is not None and _name(origin) in {"Required", "NotRequired"}:
        return literal_values(get_args(annotation)[0])
    return set()


def _is_pep604_union(annotation: Any) -> bool:
    return type(annotation).__name__ == "UnionType"


def _name(value: Any) -> str:
    return str(getattr(value, "_name", None) or getattr(value, "__name__", ""))


def field_values(typed_dict: Any, key: str) -> set[Any]:
    """The Literal values one TypedDict allows for ``key``."""
    hints = get_type_hints(typed_dict, include_extras=True)
    assert key in hints, f"{typed_dict.__name__} has no field {key!r}"
    return literal_values(hints[key])


def union_members(alias: Any) -> list[Any]:
    return [member for member in get_args(alias) if isinstance(member, type)]


def union_field_values(alias: Any, key: str) -> set[Any]:
    values: set[Any] = set()
    for member in union_members(alias):
        if key in get_type_hints(member, include_extras=True):
            values |= field_values(member, key)
    return values


def keys_of(typed_dict: Any) -> set[str]:
    return set(get_type_hints(typed_dict))


# --- every produced value exists in the installed packages ---------------------------------------


def test_input_item_types_exist() -> None:
    allowed = union_field_values(response_input_item_param.ResponseInputItemParam, "type")
    assert PRODUCED_WIRE_TYPES["input_item_type"] <= allowed
    assert {"function_call", "function_call_output", "reasoning"} <= allowed


def test_message_roles_exist() -> None:
    assert PRODUCED_WIRE_TYPES["message_role"] <= field_values(EasyInputMessageParam, "role")


def test_message_content_types_exist() -> None:
    allowed = union_field_values(response_input_content_param.ResponseInputContentParam, "type")
    allowed |= field_values(ResponseInputAudioParam, "type")
    assert PRODUCED_WIRE_TYPES["message_content_type"] <= allowed


def test_sdk_chat_converter_still_takes_audio_parts() -> None:
    audio_alias = chatcmpl_converter.ResponseInputContentWithAudioParam
    assert "input_audio" in union_field_values(audio_alias, "type")


def test_tool_output_content_types_exist() -> None:
    allowed = union_field_values(ResponseFunctionCallOutputItemParam, "type")
    assert PRODUCED_WIRE_TYPES["tool_output_content_type"] <= allowed


def test_reasoning_summary_type_exists() -> None:
    allowed = field_values(response_reasoning_item_param.Summary, "type")
    assert PRODUCED_WIRE_TYPES["reasoning_summary_type"] <= allowed


def test_reasoning_content_and_output_message_types_exist() -> None:
    content = field_values(response_reasoning_item_param.Content, "type")
    assert PRODUCED_WIRE_TYPES["reasoning_content_type"] <= content
    message = union_field_values(response_output_message_param.Content, "type")
    assert PRODUCED_WIRE_TYPES["output_message_content_type"] <= message


def test_image_detail_and_audio_format_exist() -> None:
    assert PRODUCED_WIRE_TYPES["image_detail"] <= field_values(ResponseInputImageParam, "detail")
    formats = field_values(response_input_audio_param.InputAudio, "format")
    assert PRODUCED_WIRE_TYPES["audio_format"] <= formats


@pytest.mark.parametrize(
    ("typed_dict", "keys"),
    [
        (EasyInputMessageParam, {"role", "content", "phase"}),
        (ResponseOutputMessageParam, {"id", "type", "role", "status", "content", "phase"}),
        (ResponseOutputTextParam, {"type", "text", "annotations"}),
        (ResponseFunctionToolCallParam, {"type", "call_id", "name", "arguments"}),
        (response_input_item_param.FunctionCallOutput, {"type", "call_id", "output"}),
        (ResponseReasoningItemParam, {"type", "id", "summary", "content", "encrypted_content"}),
        (ResponseInputTextParam, {"type", "text"}),
        (ResponseInputImageParam, {"type", "image_url", "file_id", "detail"}),
        (ResponseInputFileParam, {"type", "file_data", "file_url", "file_id", "filename"}),
        (ResponseInputAudioParam, {"type", "input_audio"}),
        (response_input_audio_param.InputAudio, {"data", "format"}),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_fields_written_still_exist(typed_dict: Any, keys: set[str]) -> None:
    assert keys <= keys_of(typed_dict)


# --- the constant is honest: it covers everything the translator emits ---------------------------


def every_mapping() -> list[Any]:
    """A conversation that goes through every message and content-part mapping."""
    parts: list[Any] = [
        TextPart(text="t"),
        ImagePart(source=UrlSource(value="https://x/i.png")),
        ImagePart(source=DataSource(value=B64, mime_type="image/png")),
        ImagePart(source=FileSource(value="file-1")),
        DocumentPart(source=UrlSource(value="https://x/d.pdf")),
        DocumentPart(source=DataSource(value=B64, mime_type="application/pdf")),
        DocumentPart(source=FileSource(value="file-2")),
        AudioPart(source=DataSource(value=B64, mime_type="audio/wav")),
        AudioPart(source=DataSource(value=B64, mime_type="audio/mpeg")),
        BinaryInputContent(mime_type="image/png", data=B64),
        BinaryInputContent(mime_type="audio/wav", data=B64),
        BinaryInputContent(mime_type="text/plain", data=B64),
    ]
    return [
        SystemMessage(id="s", content="s"),
        DeveloperMessage(id="d", content="d"),
        UserMessage(id="u0", content="plain"),
        UserMessage.model_construct(id="u1", role="user", content=parts),
        ReasoningMessage(
            id="rs_1",
            content="why",
            encrypted_value="enc",
            metadata={"openai": {"v": 1, "id": "rs_1", "part": "summary", "next": "msg_1"}},
        ),
        ReasoningMessage(
            id="rs_1-1",
            content="because",
            metadata={"openai": {"v": 1, "id": "rs_1", "part": "text"}},
        ),
        AssistantMessage(
            id="msg_1",
            content="text",
            metadata={"openai": {"v": 1, "id": "msg_1", "after": "rs_1", "phase": "commentary"}},
            tool_calls=[ToolCall(id="c1", function=FunctionCall(name="f", arguments="{}"))],
        ),
        ToolMessage(
            id="t",
            tool_call_id="c1",
            content=[
                TextPart(text="r"),
                ImagePart(source=UrlSource(value="https://x/r.png")),
                DocumentPart(source=FileSource(value="file-3")),
            ],
        ),
    ]


def produced(items: Iterable[TResponseInputItem]) -> dict[str, set[Any]]:
    """Collect every discriminator in translated items, by the kinds of PRODUCED_WIRE_TYPES."""
    seen: dict[str, set[Any]] = {kind: set() for kind in PRODUCED_WIRE_TYPES}
    for item in items:
        entry: dict[str, Any] = dict(item)
        if entry.get("type") == "message":
            seen["input_item_type"].add("message")
            seen["message_role"].add(entry["role"])
            for part in entry["content"]:
                seen["output_message_content_type"].add(part["type"])
            continue
        if "role" in entry:
            seen["message_role"].add(entry["role"])
            content = entry["content"]
            _collect_parts(
                seen, "message_content_type", [] if isinstance(content, str) else content
            )
            continue
        seen["input_item_type"].add(entry["type"])
        if entry["type"] == "function_call_output" and not isinstance(entry["output"], str):
            _collect_parts(seen, "tool_output_content_type", entry["output"])
        for summary in entry.get("summary", []):
            seen["reasoning_summary_type"].add(summary["type"])
        for content in entry.get("content", []):
            seen["reasoning_content_type"].add(content["type"])
    return seen


def _collect_parts(seen: dict[str, set[Any]], kind: str, parts: Iterable[Any]) -> None:
    for part in parts:
        seen[kind].add(part["type"])
        if "detail" in part:
            seen["image_detail"].add(part["detail"])
        if part["type"] == "input_audio":
            seen["audio_format"].add(part["input_audio"]["format"])


def test_constant_lists_exactly_what_the_translator_produces() -> None:
    items = AGUIToOpenAITranslator().translate_messages(every_mapping())
    seen = produced(items)
    for kind, values in seen.items():
        assert values <= PRODUCED_WIRE_TYPES[kind], kind
        assert values == PRODUCED_WIRE_TYPES[kind], f"{kind}: constant lists unused values"


def test_chat_completions_converter_accepts_the_produced_items() -> None:
    """The SDK's Chat Completions path takes every produced item; it has no slot for a file
    URL or an image file id, which only the Responses API reads."""
    items = AGUIToOpenAITranslator().translate_messages(every_mapping())
    chat_items = [_responses_only_parts_dropped(item) for item in items]
    messages = Converter.items_to_messages(chat_items, preserve_tool_output_all_content=True)
    roles = [message["role"] for message in messages]
    # The reasoning item, the provider's message item and its call become one assistant turn.
    assert roles == ["system", "developer", "user", "user", "assistant", "tool"]
    user_parts = [part["type"] for part in messages[3]["content"]]  # type: ignore[union-attr, index]
    assert user_parts.count("input_audio") == 3
    assert messages[4]["content"] == "text"  # type: ignore[typeddict-item]
    assert messages[4]["tool_calls"][0]["id"] == "c1"  # type: ignore[typeddict-item, index]
    assert messages[5]["tool_call_id"] == "c1"  # type: ignore[typeddict-item]


def _responses_only(part: dict[str, Any]) -> bool:
    return "file_url" in part or (part["type"] == "input_image" and "file_id" in part)


def _responses_only_parts_dropped(item: TResponseInputItem) -> TResponseInputItem:
    entry: dict[str, Any] = dict(item)
    for key in ("content", "output"):
        if isinstance(entry.get(key), list):
            entry[key] = [part for part in entry[key] if not _responses_only(part)]
    return entry  # type: ignore[return-value]
