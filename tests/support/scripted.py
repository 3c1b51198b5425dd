"""An offline Responses model that streams scripted turns through the real Agents SDK runner.

`ScriptedResponsesModel` implements `agents.models.interface.Model`. Each model call consumes one
`Turn`, a list of output item specs (`Text`, `Refusal`, `Reasoning`, `Call`, `Hosted`), and streams
it with the event sequence and field shapes of the OpenAI Responses API: `response.created`,
`response.in_progress`, per item `output_item.added` / content events / `output_item.done`, then
`response.completed`, `response.incomplete`, `response.failed` or `error`. Every call is recorded
with its input normalised to plain dicts so tests can assert exactly what the model received.

    result, model = run_streamed(agent, "Hi", turns=[
        Turn([Call("get_weather", {"city": "Paris"})]),
        Turn([Reasoning(summary=["Weather known."]), Text("Sunny.")], usage=TurnUsage(12, 4)),
    ])
    events = await collect(result.stream_events())
    assert model.calls[1].input[-1]["type"] == "function_call_output"
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal, TypeVar, cast, get_args

from agents import Agent, RunConfig, Runner, RunResultStreaming, RunState, set_tracing_disabled
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models._response_terminal import (
    response_error_event_failure_error,
    response_terminal_failure_error,
)
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.models.interface import Model, ModelProvider, ModelTracing
from agents.tool import Tool
from agents.usage import Usage
from openai.types import responses as api
from openai.types.responses import response_output_item as output_item
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel

T = TypeVar("T")
TurnStatus = Literal["completed", "incomplete", "failed", "error"]


# --- output item specs -----------------------------------------------------------------------


@dataclass
class Text:
    """An assistant message. `parts`, when given, replaces `text` with several text parts."""

    text: str = ""
    chunks: int | None = None
    id: str | None = None
    parts: list[str] | None = None


@dataclass
class Refusal:
    """An assistant message whose only content part is a refusal."""

    text: str
    chunks: int | None = None
    id: str | None = None


@dataclass
class Reasoning:
    """A reasoning item: summary parts, raw reasoning text parts, encrypted content."""

    summary: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    encrypted: str | None = None
    id: str | None = None
    chunks: int | None = None


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


def _json(arguments: str | Mapping[str, Any]) -> str:
    return (
        arguments
        if isinstance(arguments, str)
        else json.dumps(dict(arguments), separators=(",", ":"))
    )


def _part(kind: str, text: str) -> dict[str, Any]:
    """A content / summary part as the API sends it (validated by the event model)."""
    part: dict[str, Any] = {"type": kind, "refusal" if kind == "refusal" else "text": text}
    if kind == "output_text":
        part.update(annotations=[], logprobs=[])
    return part


# --- event and item tables -------------------------------------------------------------------


def _events(*names: str) -> tuple[type[BaseModel], ...]:
    return tuple(getattr(api, f"Response{name}Event") for name in names)


# part kind -> (opening event, delta event, done event, closing event)
_PART_EVENTS: dict[str, tuple[type[BaseModel], ...]] = {
    "output_text": _events("ContentPartAdded", "TextDelta", "TextDone", "ContentPartDone"),
    "refusal": _events("ContentPartAdded", "RefusalDelta", "RefusalDone", "ContentPartDone"),
    "reasoning_text": _events(
        "ContentPartAdded", "ReasoningTextDelta", "ReasoningTextDone", "ContentPartDone"
    ),
    "summary_text": _events(
        "ReasoningSummaryPartAdded",
        "ReasoningSummaryTextDelta",
        "ReasoningSummaryTextDone",
        "ReasoningSummaryPartDone",
    ),
}

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

# hosted kind -> (event class stem, intermediate steps); events are
# `Response<stem>InProgressEvent`, `Response<stem><step>Event`, `...CompletedEvent` / `FailedEvent`
_HOSTED_PROGRESS: dict[str, tuple[str, tuple[str, ...]]] = {
    "web_search_call": ("WebSearchCall", ("Searching",)),
    "file_search_call": ("FileSearchCall", ("Searching",)),
    "code_interpreter_call": ("CodeInterpreterCall", ("Interpreting",)),
    "image_generation_call": ("ImageGenCall", ("Generating",)),
    "mcp_call": ("McpCall", ()),
    "mcp_list_tools": ("McpListTools", ()),
}


# --- building one turn -----------------------------------------------------------------------


class _TurnBuilder:
    """Turns a `Turn` into output items and the Responses API events that stream them."""

    def __init__(self, model: ScriptedResponsesModel, turn: Turn, instructions: str | None):
        self.model, self.turn, self.instructions = model, turn, instructions
        self.events: list[TResponseStreamEvent] = []
        self.output: list[Any] = []
        self.response_id = turn.response_id or f"resp_{model.next_number('resp')}"

    def emit(self, cls: type[BaseModel], **fields: Any) -> None:
        """Append one event of class `cls` (its `type` literal) with the next sequence number."""
        (event_type,) = get_args(cls.model_fields["type"].annotation)
        event = cls(type=event_type, sequence_number=len(self.events), **fields)
        self.events.append(cast(TResponseStreamEvent, event))

    def item_id(self, given: str | None, prefix: str) -> str:
        """The placeholder id (fake ids), the given id, or a generated `<prefix>_<n>`."""
        if self.turn.fake_ids:
            return FAKE_RESPONSES_ID
        return given or f"{prefix}_{self.model.next_number(prefix)}"

    def build(self) -> tuple[list[TResponseStreamEvent], api.Response]:
        """Every event of the turn, and its final Response."""
        in_progress = self.response("in_progress", [], None)
        self.emit(api.ResponseCreatedEvent, response=in_progress)
        self.emit(api.ResponseInProgressEvent, response=in_progress.model_copy(deep=True))
        for spec in self.turn.items:
            self.add_item(spec, len(self.output))
        return self.events, self.finish()

    def add_item(self, spec: ItemSpec, index: int) -> None:
        """Stream one item spec at output position `index`."""
        if isinstance(spec, Text):
            parts = spec.parts if spec.parts is not None else [spec.text]
            self.add_message(spec.id, index, [("output_text", p) for p in parts], spec.chunks)
        elif isinstance(spec, Refusal):
            self.add_message(spec.id, index, [("refusal", spec.text)], spec.chunks)
        elif isinstance(spec, Reasoning):
            self.add_reasoning(spec, index)
        elif isinstance(spec, Call):
            self.add_call(spec, index)
        elif isinstance(spec, Hosted):
            self.add_hosted(spec, index)
        else:
            self.open_item(spec.model_copy(deep=True), spec.model_copy(deep=True), index)
            self.close_item(spec, index)

    def open_item(self, added: BaseModel, item: BaseModel, index: int) -> None:
        """Emit `output_item.added` with the in-progress form; keep the finished item."""
        self.emit(api.ResponseOutputItemAddedEvent, item=added, output_index=index)
        self.output.append(item)

    def close_item(self, item: BaseModel, index: int) -> None:
        """Emit `output_item.done` with the finished item."""
        self.emit(
            api.ResponseOutputItemDoneEvent, item=item.model_copy(deep=True), output_index=index
        )

    def stream_part(self, where: dict[str, Any], kind: str, text: str, chunks: int | None) -> None:
        """Open a part, stream its deltas, send its done event, close it."""
        opener, delta_cls, done_cls, closer = _PART_EVENTS[kind]
        extra: dict[str, Any] = {"logprobs": []} if kind == "output_text" else {}
        self.emit(opener, **where, part=_part(kind, ""))
        for piece in split_text(text, chunks):
            self.emit(delta_cls, **where, delta=piece, **extra)
        done_key = "refusal" if kind == "refusal" else "text"
        self.emit(done_cls, **where, **{done_key: text}, **extra)
        self.emit(closer, **where, part=_part(kind, text))

    def add_message(
        self, given: str | None, index: int, parts: list[tuple[str, str]], chunks: int | None
    ) -> None:
        """An assistant message whose content parts stream one after another."""
        item_id = self.item_id(given, "msg")
        content = [_part(kind, text) for kind, text in parts]
        item = api.ResponseOutputMessage.model_validate(
            {"id": item_id, "type": "message", "role": "assistant", "status": "completed",
             "content": content}
        )  # fmt: skip
        self.open_item(
            item.model_copy(update={"content": [], "status": "in_progress"}), item, index
        )
        for content_index, (kind, text) in enumerate(parts):
            where = {"item_id": item_id, "output_index": index, "content_index": content_index}
            self.stream_part(where, kind, text, chunks)
        self.close_item(item, index)

    def add_reasoning(self, spec: Reasoning, index: int) -> None:
        """Summary parts, then reasoning_text parts; encrypted content only on the done item."""
        item_id = self.item_id(spec.id, "rs")
        added: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
        if spec.text:
            added["content"] = []
        done = {**added, "summary": [_part("summary_text", s) for s in spec.summary]}
        if spec.text:
            done["content"] = [_part("reasoning_text", t) for t in spec.text]
        if spec.encrypted is not None:
            done["encrypted_content"] = spec.encrypted
        item = api.ResponseReasoningItem.model_validate(done)
        self.open_item(api.ResponseReasoningItem.model_validate(added), item, index)
        where: dict[str, Any] = {"item_id": item_id, "output_index": index}
        for summary_index, text in enumerate(spec.summary):
            self.stream_part(
                {**where, "summary_index": summary_index}, "summary_text", text, spec.chunks
            )
        for content_index, text in enumerate(spec.text):
            self.stream_part(
                {**where, "content_index": content_index}, "reasoning_text", text, spec.chunks
            )
        self.close_item(item, index)

    def add_call(self, spec: Call, index: int) -> None:
        """A function call whose arguments stream as `function_call_arguments` deltas."""
        number = self.model.next_number("call")
        item_id = self.item_id(spec.id or f"fc_{number}", "fc")
        arguments = _json(spec.arguments)
        item = api.ResponseFunctionToolCall(
            id=item_id, call_id=spec.call_id or f"call_{number}", name=spec.name,
            arguments=arguments, type="function_call", status="completed",
        )  # fmt: skip
        self.open_item(
            item.model_copy(update={"arguments": "", "status": "in_progress"}), item, index
        )
        where = {"item_id": item_id, "output_index": index}
        for piece in split_text(arguments, spec.chunks, size=8):
            self.emit(api.ResponseFunctionCallArgumentsDeltaEvent, **where, delta=piece)
        self.emit(api.ResponseFunctionCallArgumentsDoneEvent, **where, arguments=arguments)
        self.close_item(item, index)

    def hosted_item(self, spec: Hosted) -> BaseModel:
        """The real openai item model for a hosted tool spec."""
        cls, prefix, defaults = _HOSTED[spec.kind]
        values: dict[str, Any] = {**copy.deepcopy(defaults), **copy.deepcopy(spec.fields)}
        if spec.kind == "web_search_call" and "query" in values:
            query = values.pop("query")
            if "action" not in spec.fields:
                values["action"] = {"type": "search", "query": query}
        if spec.kind in ("mcp_call", "mcp_approval_request"):
            values["arguments"] = _json(values["arguments"])
        call_id = cls.model_fields.get("call_id")
        if call_id is not None and call_id.is_required():
            values.setdefault("call_id", f"call_{self.model.next_number('call')}")
        if "status" in cls.model_fields:
            values["status"] = spec.status
        values.update(id=self.item_id(spec.id, prefix), type=spec.kind)
        return cls.model_validate(values)

    def add_hosted(self, spec: Hosted, index: int) -> None:
        """A hosted tool item with the progress events the API sends for its kind."""
        item = self.hosted_item(spec)
        update: dict[str, Any] = (
            {"status": "in_progress"} if "status" in type(item).model_fields else {}
        )
        if spec.kind == "mcp_call":
            update.update(arguments="", output=None, error=None)
        self.open_item(item.model_copy(update=update), item, index)
        self.stream_hosted_progress(
            spec, item, {"item_id": getattr(item, "id", ""), "output_index": index}
        )
        self.close_item(item, index)

    def stream_hosted_progress(self, spec: Hosted, item: BaseModel, where: dict[str, Any]) -> None:
        """`in_progress`, kind-specific deltas and steps, then `completed` (or `failed`)."""
        if spec.kind not in _HOSTED_PROGRESS:
            return
        stem, steps = _HOSTED_PROGRESS[spec.kind]
        self.emit(getattr(api, f"Response{stem}InProgressEvent"), **where)
        if spec.kind == "mcp_call":
            arguments: str = getattr(item, "arguments", "")
            for piece in split_text(arguments, None, size=8):
                self.emit(api.ResponseMcpCallArgumentsDeltaEvent, **where, delta=piece)
            self.emit(api.ResponseMcpCallArgumentsDoneEvent, **where, arguments=arguments)
        code = getattr(item, "code", None) if spec.kind == "code_interpreter_call" else None
        if code:
            for piece in split_text(code):
                self.emit(api.ResponseCodeInterpreterCallCodeDeltaEvent, **where, delta=piece)
            self.emit(api.ResponseCodeInterpreterCallCodeDoneEvent, **where, code=code)
        for step in steps:
            self.emit(getattr(api, f"Response{stem}{step}Event"), **where)
        final = {"completed": "Completed", "failed": "Failed"}.get(spec.status)
        final_cls = getattr(api, f"Response{stem}{final}Event", None) if final else None
        if final_cls is not None:
            self.emit(final_cls, **where)

    def response(
        self, status: str, output: list[Any], usage: api.ResponseUsage | None
    ) -> api.Response:
        """A full Response object as the API returns it."""
        return api.Response(
            id=self.response_id, created_at=1_700_000_000 + len(self.model.calls),
            model=self.model.model_name, object="response", output=output,
            parallel_tool_calls=True, tool_choice="auto", tools=[], status=cast(Any, status),
            usage=usage, instructions=self.instructions,
        )  # fmt: skip

    def finish(self) -> api.Response:
        """Emit the terminal event for the turn's status; return the final Response."""
        turn = self.turn
        output = [item.model_copy(deep=True) for item in self.output]
        status = "failed" if turn.status == "error" else turn.status
        final = self.response(status, output, _response_usage(turn.usage))
        if turn.status == "completed":
            self.emit(api.ResponseCompletedEvent, response=final)
        elif turn.status == "incomplete":
            final.incomplete_details = api.response.IncompleteDetails.model_validate(
                {"reason": turn.incomplete_reason}
            )
            self.emit(api.ResponseIncompleteEvent, response=final)
        elif turn.status == "failed":
            final.error = api.ResponseError(code="server_error", message=turn.failure_message)
            self.emit(api.ResponseFailedEvent, response=final)
        else:
            self.emit(api.ResponseErrorEvent, code="server_error", message=turn.failure_message)
        return final


def _response_usage(usage: TurnUsage | None) -> api.ResponseUsage | None:
    if usage is None:
        return None
    return api.ResponseUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.input_tokens + usage.output_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=usage.cached, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=usage.reasoning),
    )


def _sdk_usage(usage: TurnUsage | None) -> Usage:
    raw = _response_usage(usage)
    if raw is None:
        return Usage(requests=1)
    return Usage(
        requests=1, input_tokens=raw.input_tokens, output_tokens=raw.output_tokens,
        total_tokens=raw.total_tokens, input_tokens_details=raw.input_tokens_details,
        output_tokens_details=raw.output_tokens_details,
    )  # fmt: skip


def _terminal_error(turn: Turn, response: api.Response) -> Exception:
    """The error the SDK's own Responses model raises for this terminal status."""
    if turn.status == "error":
        event = api.ResponseErrorEvent(
            type="error", code="server_error", message=turn.failure_message, sequence_number=0
        )
        return response_error_event_failure_error("error", event)
    return response_terminal_failure_error(f"response.{turn.status}", response)


# --- the model and its provider --------------------------------------------------------------


class ScriptedResponsesModel(Model):
    """A `Model` answering each call with the next scripted `Turn`.

    `turns` is a sequence consumed in order, or a callable building a Turn from the recorded
    call. `delay` seconds are slept before each streamed event (for cancellation tests).
    `calls` records every call; `responses` holds each turn's final Response.
    """

    def __init__(
        self, turns: TurnSource = (), *, model_name: str = "scripted-model", delay: float = 0.0
    ) -> None:
        self._turns: list[Turn] | Callable[[RecordedCall], Turn] = (
            turns if callable(turns) else list(turns)
        )
        self.model_name = model_name
        self.delay = delay
        self.calls: list[RecordedCall] = []
        self.responses: list[api.Response] = []
        self._counters: dict[str, int] = {}

    @property
    def call_count(self) -> int:
        """How many times the model was called."""
        return len(self.calls)

    @property
    def remaining(self) -> int | None:
        """Turns not consumed yet (None when turns come from a callable)."""
        return None if callable(self._turns) else max(0, len(self._turns) - len(self.calls))

    def assert_consumed(self) -> None:
        """Fail when scripted turns were left unused."""
        if self.remaining:
            raise AssertionError(f"{self.model_name}: {self.remaining} scripted turn(s) unused")

    def next_number(self, prefix: str) -> int:
        """The next 1-based counter for ids with `prefix`."""
        self._counters[prefix] = self._counters.get(prefix, 0) + 1
        return self._counters[prefix]

    def _start(
        self, streamed: bool, instructions: str | None, input: str | list[TResponseInputItem],
        settings: ModelSettings, tools: list[Tool], output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff], previous_response_id: str | None, conversation_id: str | None,
    ) -> tuple[Turn, list[TResponseStreamEvent]]:  # fmt: skip
        """Record the call, pick its turn and build the turn's events."""
        items = [{"content": input, "role": "user"}] if isinstance(input, str) else input
        call = RecordedCall(
            input=to_plain(items), instructions=instructions,
            tool_names=[tool.name for tool in tools],
            handoff_names=[handoff.tool_name for handoff in handoffs],
            model_settings=copy.deepcopy(settings), tools=list(tools),
            output_schema=output_schema, previous_response_id=previous_response_id,
            conversation_id=conversation_id, streamed=streamed,
        )  # fmt: skip
        self.calls.append(call)
        turn = self._next_turn(call)
        if turn.raise_before is not None:
            raise turn.raise_before
        events, final = _TurnBuilder(self, turn, instructions).build()
        self.responses.append(final)
        return turn, events

    def _next_turn(self, call: RecordedCall) -> Turn:
        index = len(self.calls) - 1
        if callable(self._turns):
            return self._turns(call)
        if index >= len(self._turns):
            last = call.input[-1] if call.input else None
            raise ScriptExhausted(
                f"{self.model_name}: no scripted turn for call index {index} (call #{index + 1});"
                f" only {len(self._turns)} turn(s) were scripted. Last input item: {last!r}"
            )
        return self._turns[index]

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> ModelResponse:
        """Answer a non-streaming call with the next turn's final Response."""
        turn, _ = self._start(
            False, system_instructions, input, model_settings, tools, output_schema, handoffs,
            previous_response_id, conversation_id,
        )  # fmt: skip
        final = self.responses[-1]
        delay = self.delay if turn.delay is None else turn.delay
        if delay:
            await asyncio.sleep(delay)
        if turn.raise_after_events is not None or turn.error is not None:
            raise turn.error or RuntimeError("scripted model failure")
        if turn.status != "completed":
            raise _terminal_error(turn, final)
        return ModelResponse(
            output=list(final.output), usage=_sdk_usage(turn.usage), response_id=final.id
        )

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream the next turn event by event, as the Responses API does."""
        turn, events = self._start(
            True, system_instructions, input, model_settings, tools, output_schema, handoffs,
            previous_response_id, conversation_id,
        )  # fmt: skip
        limit = turn.raise_after_events
        if limit is None and turn.error is not None:
            limit = len(events)
        delay = self.delay if turn.delay is None else turn.delay
        for event in events if limit is None else events[:limit]:
            if delay:
                await asyncio.sleep(delay)
            yield event
        if limit is not None:
            raise turn.error or RuntimeError("scripted model failure")
        if turn.status != "completed":
            raise _terminal_error(turn, self.responses[-1])


class ScriptedProvider(ModelProvider):
    """A `ModelProvider` returning one model for any name, or a model per name."""

    def __init__(
        self, model_or_models: Model | Mapping[str, Model], *, default: Model | None = None
    ) -> None:
        self._models = model_or_models
        self._default = default
        self.requested: list[str | None] = []

    def get_model(self, model_name: str | None) -> Model:
        """The model for `model_name`; fails clearly when none is scripted for it."""
        self.requested.append(model_name)
        if isinstance(self._models, Model):
            return self._models
        if model_name is not None and model_name in self._models:
            return self._models[model_name]
        if self._default is not None:
            return self._default
        raise AssertionError(f"no scripted model for {model_name!r}; known: {sorted(self._models)}")


def run_streamed(
    agent: Agent[Any],
    input: str | list[TResponseInputItem] | RunState[Any],
    *,
    model: ScriptedResponsesModel | None = None,
    turns: TurnSource | None = None,
    run_config: RunConfig | None = None,
    context: Any = None,
    **kw: Any,
) -> tuple[RunResultStreaming, ScriptedResponsesModel]:
    """Start `Runner.run_streamed` offline on a scripted model (call inside a running loop)."""
    if model is not None and turns is not None:
        raise TypeError("pass either model or turns, not both")
    if model is None:
        model = ScriptedResponsesModel(turns if turns is not None else ())
    set_tracing_disabled(True)
    config = dataclasses.replace(
        run_config or RunConfig(), model_provider=ScriptedProvider(model), tracing_disabled=True
    )
    result = Runner.run_streamed(agent, input, context=context, run_config=config, **kw)
    return result, model
