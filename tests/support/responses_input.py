"""A checker for the `input` of a Responses API request: the rules the API enforces.

`check_input(items)` raises `InvalidInput` naming the first broken rule:

- a reasoning item has an id, a `summary` list, and is directly followed by an output item with
  an id (`message`, `function_call`, a hosted call, ...), never by a user message or a tool
  output;
- when the item that followed a reasoning item in a model response is known (`OUTPUTS` records
  every response the test models produced), the reasoning item is followed by exactly that
  item, and that item, when sent with its id, is preceded by exactly that reasoning item;
- every `function_call_output` answers a `function_call` sent before it, and every
  `function_call` is answered later, both by `call_id`;
- no item id is the SDK's placeholder `__fake_id__`, and no id is sent twice;
- a `function_call_output` whose output is a list holds only `input_text`, `input_image` and
  `input_file` items, each with the keys the `openai` type declares (and no other) and what
  it needs (text; an image URL or file id; file data, URL or id).

`wire_input(items)` is what the SDK's Responses model puts on the wire for an input list: the
placeholder ids removed. Items of a provider without ids (the Chat Completions path) carry the
placeholder; `wire_input(..., id_less=True)` also leaves out their reasoning items, which that
path does not send as items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agents.models.fake_id import FAKE_RESPONSES_ID
from openai.types.responses.response_input_file_content_param import (
    ResponseInputFileContentParam,
)
from openai.types.responses.response_input_image_content_param import (
    ResponseInputImageContentParam,
)
from openai.types.responses.response_input_text_content_param import (
    ResponseInputTextContentParam,
)

__all__ = ["OUTPUTS", "InvalidInput", "KnownOutputs", "check_input", "wire_input"]

# Output item types that may follow a reasoning item (everything a response outputs, except
# reasoning itself which may also follow reasoning).
_FOLLOWERS = frozenset(
    {
        "message",
        "function_call",
        "custom_tool_call",
        "reasoning",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "tool_search_call",
        "compaction",
    }
)


# Output content item type -> (its declared keys, the keys of which one must be set).
_OUTPUT_CONTENT: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "input_text": (frozenset(ResponseInputTextContentParam.__annotations__), frozenset({"text"})),
    "input_image": (
        frozenset(ResponseInputImageContentParam.__annotations__),
        frozenset({"image_url", "file_id"}),
    ),
    "input_file": (
        frozenset(ResponseInputFileContentParam.__annotations__),
        frozenset({"file_data", "file_url", "file_id"}),
    ),
}


class InvalidInput(AssertionError):
    """The request input breaks a rule the Responses API enforces."""


class KnownOutputs:
    """Which item directly followed each reasoning item in the responses seen so far."""

    def __init__(self) -> None:
        self.next_of: dict[str, str] = {}
        self.after_of: dict[str, str] = {}
        self._ambiguous: set[str] = set()

    def record(self, output: Iterable[Any]) -> None:
        """Record one response's output items (models or dicts), in order."""
        previous: str | None = None
        for item in output:
            kind, item_id = _field(item, "type"), _field(item, "id")
            if not isinstance(item_id, str) or item_id == FAKE_RESPONSES_ID:
                previous = None
                continue
            if previous is not None:
                self._link(previous, item_id)
            previous = item_id if kind == "reasoning" else None

    def _link(self, reasoning_id: str, item_id: str) -> None:
        # Test models number their ids per model, so two models may reuse one: an id seen in
        # two different pairs no longer tells which item it paired with, and neither pair is
        # checked any more.
        clash = self.next_of.get(reasoning_id, item_id) != item_id or (
            self.after_of.get(item_id, reasoning_id) != reasoning_id
        )
        if clash or reasoning_id in self._ambiguous or item_id in self._ambiguous:
            for key in (reasoning_id, item_id, self.next_of.get(reasoning_id)):
                if key is not None:
                    self._forget(key)
            return
        self.next_of[reasoning_id] = item_id
        self.after_of[item_id] = reasoning_id

    def _forget(self, item_id: str) -> None:
        self._ambiguous.add(item_id)
        follower = self.next_of.pop(item_id, None)
        if follower is not None:
            self.after_of.pop(follower, None)
        reasoning = self.after_of.pop(item_id, None)
        if reasoning is not None:
            self.next_of.pop(reasoning, None)

    def clear(self) -> None:
        """Forget every recorded response."""
        self.next_of.clear()
        self.after_of.clear()
        self._ambiguous.clear()


OUTPUTS = KnownOutputs()
"""The responses of every test model in this process (scripted and HTTP)."""


def _field(item: Any, key: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(key)
    return getattr(item, key, None)


def _kind(item: Mapping[str, Any]) -> str:
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else "unknown"


def _describe(index: int, item: Mapping[str, Any]) -> str:
    role = f" ({item['role']})" if "role" in item else ""
    return f"item {index} {_kind(item)}{role} {item.get('id') or ''}".rstrip()


def wire_input(
    items: Sequence[Mapping[str, Any]], *, id_less: bool = False
) -> list[dict[str, Any]]:
    """The input as the SDK's Responses model sends it (placeholder ids removed)."""
    out: list[dict[str, Any]] = []
    for item in items:
        entry = dict(item)
        if entry.get("id") == FAKE_RESPONSES_ID:
            if id_less and entry.get("type") == "reasoning":
                continue
            del entry["id"]
        entry.pop("provider_data", None)
        out.append(entry)
    return out


def _check_ids(items: Sequence[Mapping[str, Any]]) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        item_id = item.get("id")
        if item_id is None:
            continue
        if item_id == FAKE_RESPONSES_ID:
            raise InvalidInput(f"{_describe(index, item)}: the placeholder id reached the wire")
        if item_id in seen:
            raise InvalidInput(f"{_describe(index, item)}: duplicate item id {item_id!r}")
        seen.add(item_id)


def _check_calls(items: Sequence[Mapping[str, Any]]) -> None:
    called: set[str] = set()
    answered = {item.get("call_id") for item in items if _kind(item) == "function_call_output"}
    for index, item in enumerate(items):
        kind = _kind(item)
        if kind == "function_call":
            if item.get("call_id") not in answered:
                raise InvalidInput(
                    f"{_describe(index, item)}: no tool output found for function call"
                    f" {item.get('call_id')!r}"
                )
            called.add(item["call_id"])
        elif kind == "function_call_output" and item.get("call_id") not in called:
            raise InvalidInput(
                f"{_describe(index, item)}: no function call before the output for call_id"
                f" {item.get('call_id')!r}"
            )


def _check_reasoning(items: Sequence[Mapping[str, Any]], known: KnownOutputs) -> None:
    for index, item in enumerate(items):
        if _kind(item) != "reasoning":
            continue
        where = _describe(index, item)
        reasoning_id = item.get("id")
        if not reasoning_id:
            raise InvalidInput(f"{where}: a reasoning item needs its id")
        if not isinstance(item.get("summary"), list):
            raise InvalidInput(f"{where}: a reasoning item needs `summary` (a list, maybe empty)")
        following = items[index + 1] if index + 1 < len(items) else None
        if following is None or _kind(following) not in _FOLLOWERS or not following.get("id"):
            raise InvalidInput(
                f"Item {reasoning_id!r} of type 'reasoning' was provided without its required"
                f" following item ({where})"
            )
        expected = known.next_of.get(reasoning_id)
        if expected is not None and following.get("id") != expected:
            raise InvalidInput(
                f"{where}: followed by {following.get('id')!r}, not by {expected!r} that"
                " followed it in the response"
            )


def _check_followers(items: Sequence[Mapping[str, Any]], known: KnownOutputs) -> None:
    for index, item in enumerate(items):
        item_id = item.get("id")
        reasoning_id = known.after_of.get(item_id) if isinstance(item_id, str) else None
        if reasoning_id is None:
            continue
        before = items[index - 1] if index > 0 else None
        if before is None or before.get("id") != reasoning_id:
            raise InvalidInput(
                f"Item {item_id!r} of type {_kind(item)!r} was provided without its required"
                f" 'reasoning' item {reasoning_id!r} ({_describe(index, item)})"
            )


def _check_output_content(items: Sequence[Mapping[str, Any]]) -> None:
    for index, item in enumerate(items):
        output = item.get("output")
        if _kind(item) != "function_call_output" or isinstance(output, str):
            continue
        where = _describe(index, item)
        if not isinstance(output, list) or not output:
            raise InvalidInput(f"{where}: output is neither text nor a list of content items")
        for part in output:
            declared, needed = _OUTPUT_CONTENT.get(part.get("type"), (frozenset(), frozenset()))
            if not declared:
                raise InvalidInput(f"{where}: output content of type {part.get('type')!r}")
            if not set(part) <= declared or not needed & set(part):
                raise InvalidInput(f"{where}: malformed {part['type']} item {sorted(part)}")
            if any(not isinstance(part[key], str) for key in needed & set(part)):
                raise InvalidInput(f"{where}: {part['type']} item with a non-text value")


def check_input(items: Sequence[Mapping[str, Any]], known: KnownOutputs = OUTPUTS) -> None:
    """Raise `InvalidInput` when `items` (a request's `input`) breaks a rule of the API."""
    _check_ids(items)
    _check_output_content(items)
    _check_calls(items)
    _check_reasoning(items, known)
    _check_followers(items, known)
