"""How one scripted `Turn` becomes Responses API output items and stream events.

`_TurnBuilder` walks a turn's item specs and emits, with consecutive sequence numbers, the events
the Responses API sends for them: `response.created`, `response.in_progress`, per item
`output_item.added` / content events / `output_item.done`, then the terminal event for the turn's
status. The usage and error helpers give the SDK the same values its own Responses model would.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast, get_args

from agents.items import TResponseStreamEvent
from agents.models._response_terminal import (
    response_error_event_failure_error,
    response_terminal_failure_error,
)
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.usage import Usage
from openai.types import responses as api
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel

from .scripted_specs import (
    _HOSTED,
    Call,
    Hosted,
    ItemSpec,
    Reasoning,
    Refusal,
    Text,
    Turn,
    TurnUsage,
    split_text,
)

if TYPE_CHECKING:
    from .scripted import ScriptedResponsesModel


# --- wire shapes -----------------------------------------------------------------------------


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


# --- event tables ----------------------------------------------------------------------------


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
        self.completed_updates: dict[int, dict[str, Any]] = {}
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
            self.add_message(
                spec.id, index, [("output_text", p) for p in parts], spec.chunks, spec.phase
            )
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
        self, given: str | None, index: int, parts: list[tuple[str, str]], chunks: int | None,
        phase: str | None = None,
    ) -> None:  # fmt: skip
        """An assistant message whose content parts stream one after another."""
        item_id = self.item_id(given, "msg")
        content = [_part(kind, text) for kind, text in parts]
        values: dict[str, Any] = {
            "id": item_id, "type": "message", "role": "assistant", "status": "completed",
            "content": content,
        }  # fmt: skip
        if phase is not None:
            values["phase"] = phase
        item = api.ResponseOutputMessage.model_validate(values)
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
        if spec.encrypted_added is not None:
            added["encrypted_content"] = spec.encrypted_added
        self.open_item(api.ResponseReasoningItem.model_validate(added), item, index)
        if spec.encrypted_completed is not None:
            self.completed_updates[index] = {"encrypted_content": spec.encrypted_completed}
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
        output = [
            item.model_copy(deep=True, update=self.completed_updates.get(index))
            for index, item in enumerate(self.output)
        ]
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
