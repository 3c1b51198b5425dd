"""The scripted model's vocabulary: output item specs, turns, recorded calls and small helpers.

A `Turn` is one scripted model call made of item specs (`Text`, `Refusal`, `Reasoning`, `Call`,
`Hosted`, or a plain openai output item model). `RecordedCall` is what the model received on one
call. `split_text`, `to_plain` and `collect` are helpers the tests use directly. The model that
consumes turns is in `scripted.py`; the events a turn streams are built in `scripted_turns.py`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal, TypeVar

from agents.agent_output import AgentOutputSchemaBase
from agents.model_settings import ModelSettings
from agents.tool import Tool
from openai.types import responses as api
from openai.types.responses import response_output_item as output_item
from pydantic import BaseModel

T = TypeVar("T")
TurnStatus = Literal["completed", "incomplete", "failed", "error"]


# --- output item specs -----------------------------------------------------------------------


@dataclass
class Text:
    """An assistant message. `parts`, when given, replaces `text` with several text parts.

    `phase` is GPT-5.x's `commentary` (text before tool calls) or `final_answer`.
    """

    text: str = ""
    chunks: int | None = None
    id: str | None = None
    parts: list[str] | None = None
    phase: Literal["commentary", "final_answer"] | None = None


@dataclass
class Refusal:
    """An assistant message whose only content part is a refusal."""

    text: str
    chunks: int | None = None
    id: str | None = None


@dataclass
class Reasoning:
    """A reasoning item: summary parts, raw reasoning text parts, encrypted content.

    `encrypted` is the value of `output_item.done`. As the API does, `encrypted_added` (a
    shorter, in-progress value) can ride on `output_item.added` and `encrypted_completed` (a
    different value) on the item inside `response.completed`; by default neither differs.
    """

    summary: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    encrypted: str | None = None
    id: str | None = None
    chunks: int | None = None
    encrypted_added: str | None = None
    encrypted_completed: str | None = None


@dataclass
class Call:
    """A function call; dict arguments are JSON encoded, ids default to `call_<n>` / `fc_<n>`."""

    name: str
    arguments: str | Mapping[str, Any] = "{}"
    call_id: str | None = None
    id: str | None = None
    chunks: int | None = None


class Hosted:
    """A hosted tool item (`web_search_call`, `mcp_call`, ...); `fields` go onto the item.

    `web_search_call` also accepts `query=` as a shortcut for a search action.
    """

    def __init__(
        self, kind: str, id: str | None = None, status: str = "completed", **fields: Any
    ) -> None:
        if kind not in _HOSTED:
            raise ValueError(f"unknown hosted item kind {kind!r}; known: {sorted(_HOSTED)}")
        self.kind, self.id, self.status, self.fields = kind, id, status, fields

    def __repr__(self) -> str:
        return f"Hosted({self.kind!r}, id={self.id!r}, status={self.status!r}, **{self.fields!r})"


# A plain openai output item model is streamed as-is (added + done, no content events).
ItemSpec = Text | Refusal | Reasoning | Call | Hosted | BaseModel


@dataclass(frozen=True)
class TurnUsage:
    """Token usage of a turn; `cached` and `reasoning` are parts of the totals."""

    input_tokens: int
    output_tokens: int
    cached: int = 0
    reasoning: int = 0


@dataclass
class Turn:
    """One scripted model call.

    `raise_before` is raised before any event. `raise_after_events=N` raises `error` (or a
    RuntimeError) after N raw events; `error` alone is raised after the last event. `delay`
    overrides the model's per-event delay. `fake_ids` gives every item the SDK's placeholder id,
    as providers without item ids (Chat Completions) do. Status `error` ends with an `error`
    event instead of a terminal Response event.
    """

    items: Sequence[ItemSpec] = field(default_factory=list)
    usage: TurnUsage | None = field(default_factory=lambda: TurnUsage(10, 5))
    status: TurnStatus = "completed"
    raise_before: BaseException | None = None
    raise_after_events: int | None = None
    error: BaseException | None = None
    fake_ids: bool = False
    response_id: str | None = None
    delay: float | None = None
    incomplete_reason: str = "max_output_tokens"
    failure_message: str = "The model failed to produce a response."


@dataclass
class RecordedCall:
    """What the model received on one call; `input` is a deep copy made of plain dicts."""

    input: list[dict[str, Any]]
    instructions: str | None
    tool_names: list[str]
    handoff_names: list[str]
    model_settings: ModelSettings
    tools: list[Tool] = field(default_factory=list)
    output_schema: AgentOutputSchemaBase | None = None
    previous_response_id: str | None = None
    conversation_id: str | None = None
    streamed: bool = True


class ScriptExhausted(AssertionError):
    """Raised when the model is called more often than turns were scripted."""


TurnSource = Sequence[Turn] | Callable[[RecordedCall], Turn]


# --- helpers ---------------------------------------------------------------------------------


def to_plain(value: Any) -> Any:
    """Deep-copy `value`, dumping pydantic models with `exclude_unset=True` into plain dicts."""
    if isinstance(value, BaseModel):
        return to_plain(value.model_dump(exclude_unset=True))
    if isinstance(value, Mapping):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item) for item in value]
    return copy.deepcopy(value)


def split_text(text: str, chunks: int | None = None, *, size: int | None = None) -> list[str]:
    """Split `text` into delta pieces whose concatenation is `text`.

    `chunks=None` gives about one piece per word (leading whitespace attached, like tokens), or
    pieces of `size` characters when `size` is set; `chunks=0` gives no pieces at all.
    """
    if not text or chunks == 0:
        return []
    if chunks is None and size is not None:
        return [text[i : i + size] for i in range(0, len(text), size)]
    if chunks is None:
        pieces: list[str] = re.findall(r"\s*\S+", text)
        rest = text[len("".join(pieces)) :]
        if rest:
            pieces = [*pieces[:-1], pieces[-1] + rest] if pieces else [rest]
        return pieces
    count = min(chunks, len(text))
    base, extra = divmod(len(text), count)
    bounds = [0]
    for index in range(count):
        bounds.append(bounds[-1] + base + (1 if index < extra else 0))
    return [text[start:end] for start, end in pairwise(bounds)]


async def collect(aiter: AsyncIterable[T]) -> list[T]:
    """Drain an async iterable into a list."""
    return [item async for item in aiter]


# --- hosted item kinds -----------------------------------------------------------------------

_MCP = {"server_label": "mcp", "name": "tool", "arguments": "{}"}
# hosted kind -> (item model, id prefix, default fields)
# fmt: off
_HOSTED: dict[str, tuple[type[BaseModel], str, dict[str, Any]]] = {
    "web_search_call": (api.ResponseFunctionWebSearch, "ws", {"action": {"type": "search"}}),
    "file_search_call": (api.ResponseFileSearchToolCall, "fs", {"queries": []}),
    "code_interpreter_call": (
        api.ResponseCodeInterpreterToolCall, "ci", {"container_id": "cntr_scripted", "code": ""}),
    "image_generation_call": (output_item.ImageGenerationCall, "ig", {}),
    "mcp_call": (output_item.McpCall, "mcp", _MCP),
    "mcp_list_tools": (output_item.McpListTools, "mcpl", {"server_label": "mcp", "tools": []}),
    "mcp_approval_request": (output_item.McpApprovalRequest, "mcpr", _MCP),
    "computer_call": (api.ResponseComputerToolCall, "cu",
                      {"pending_safety_checks": [], "action": {"type": "screenshot"}}),
    "local_shell_call": (output_item.LocalShellCall, "lsh",
                         {"action": {"type": "exec", "command": ["true"], "env": {}}}),
    "shell_call": (api.ResponseFunctionShellToolCall, "sh", {"action": {"commands": ["true"]}}),
    "apply_patch_call": (api.ResponseApplyPatchToolCall, "apc",
                         {"operation": {"type": "create_file", "path": "f.txt", "diff": ""}}),
    "custom_tool_call": (api.ResponseCustomToolCall, "ctc", {"name": "tool", "input": ""}),
    "tool_search_call": (api.ResponseToolSearchCall, "tsc",
                         {"arguments": {}, "execution": "server"}),
    "compaction": (api.ResponseCompactionItem, "cmp", {"encrypted_content": ""}),
}
# fmt: on
