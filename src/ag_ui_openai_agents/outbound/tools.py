"""Internal: tool calls and results: function, handoff and hosted calls as TOOL_CALL_* windows."""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from agents import HandoffCallItem, HandoffOutputItem, ToolCallItem, ToolCallOutputItem

from ag_ui_openai_agents.outbound.media import (
    ResultPart,
    hosted_result_parts,
    tool_output_parts,
)
from ag_ui_openai_agents.outbound.replay import provider_item
from ag_ui_openai_agents.outbound.windows import (
    ToolCallWindow,
    ToolResult,
    WindowBook,
)
from ag_ui_openai_agents.protocol import (
    HOSTED_CALL_TYPES,
    PROVIDER_RUN_CALL_TYPES,
    real_id,
    result_message_id,
)
from ag_ui_openai_agents.protocol import item_field as _field

# Fields of hosted call items that describe what the call was asked to do.
_HOSTED_INPUT_FIELDS: dict[str, tuple[str, ...]] = {
    "web_search_call": ("action",),
    "file_search_call": ("queries",),
    "code_interpreter_call": ("code", "container_id"),
    "image_generation_call": (),
    "mcp_call": (),
    "computer_call": ("action", "actions"),
    "local_shell_call": ("action",),
    "shell_call": ("action",),
    "apply_patch_call": ("operation",),
    "tool_search_call": ("arguments",),
    "program": ("code",),
}


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else value


def hosted_call_arguments(item: Any) -> str:
    """A JSON description of a hosted call's input (its arguments for an MCP call)."""
    kind = _field(item, "type")
    if kind == "mcp_call":
        return str(_field(item, "arguments") or "")
    fields = _HOSTED_INPUT_FIELDS.get(str(kind), ())
    payload = {
        name: _plain(_field(item, name)) for name in fields if _field(item, name) is not None
    }
    return json.dumps(payload) if payload else ""


def _error_text(error: Any) -> str:
    """A readable error of a hosted call: its message when it has one ("" for no error)."""
    if error is None:
        return ""
    message = _field(error, "message")
    return f"Error: {message if message else error}"


def output_text(output: Any) -> str:
    """A tool output as the text of a tool message."""
    if isinstance(output, str):
        return output
    return json.dumps(_plain(output), default=str)


class ToolTranslation:
    """Tool windows of the outbound engine (mixed into ``OpenAIToAGUITranslator``)."""

    book: WindowBook
    client_tool_names: frozenset[str]
    taken_message_ids: set[str]
    run_input: RunAgentInput

    @property
    def shows_parts(self) -> bool:
        """The client speaks AG-UI 1.0 (it sent ``protocolVersion``): results with media reach
        it as content parts; an older client gets their text."""
        return self.run_input.protocol_version is not None

    # Raw Responses events -------------------------------------------------------------------

    def translate_function_call_item_added(self, item: Any, output_index: int) -> list[BaseEvent]:
        """A function (or handoff) call starts: START, then any arguments that came early."""
        window = self._new_call(item, output_index)
        return self._start_call(window, self.book.take_early_args(output_index))

    def translate_hosted_call_item_added(self, item: Any, output_index: int) -> list[BaseEvent]:
        """A hosted call starts (with its activity, for a 1.0 client); its arguments (if any)
        are described when it is done."""
        window = self._new_call(item, output_index)
        out = self._start_call(window, self.book.take_early_args(output_index))
        return out + self.activity_opened(window, item)

    def translate_function_call_arguments_delta(self, event: Any) -> list[BaseEvent]:
        """Argument chunks, keyed by output index; buffered until the call has started."""
        delta: str = event.delta
        if not delta:
            return []
        window = self.book.by_index.get(event.output_index)
        if not isinstance(window, ToolCallWindow):
            self.book.early_args.setdefault(event.output_index, []).append(delta)
            return []
        if window.ended:
            return []
        window.args.append(delta)
        return [ToolCallArgsEvent(tool_call_id=window.tool_call_id, delta=delta)]

    def translate_function_call_arguments_done(self, event: Any) -> list[BaseEvent]:
        """The full arguments: sent only when no chunk was streamed for the call."""
        window = self.book.at(event.output_index)
        arguments = getattr(event, "arguments", "") or ""
        if not isinstance(window, ToolCallWindow):
            if arguments and not self.book.early_args.get(event.output_index):
                self.book.early_args[event.output_index] = [arguments]
            return []
        return self._fill_args(window, arguments)

    def translate_call_item_done(self, item: Any, output_index: int) -> list[BaseEvent]:
        """``output_item.done`` of a call: complete its arguments and end it."""
        window = self.book.at(output_index)
        out: list[BaseEvent] = []
        if not isinstance(window, ToolCallWindow):
            window = self._new_call(item, output_index)
            out = self._start_call(window, self.book.take_early_args(output_index))
        out += self._end_call(window, item)
        return out

    # Committed run items ----------------------------------------------------------------------

    def translate_tool_call_item(self, item: ToolCallItem) -> list[BaseEvent]:
        """``tool_called``: end the call if still open, or stream it whole if never seen."""
        return self._commit_call(item.raw_item)

    def translate_handoff_call_item(self, item: HandoffCallItem) -> list[BaseEvent]:
        """``handoff_requested``: a handoff is a tool call named after the handoff tool."""
        return self._commit_call(item.raw_item)

    def translate_tool_call_output_item(self, item: ToolCallOutputItem) -> list[BaseEvent]:
        """``tool_output``: TOOL_CALL_RESULT (client tools never run, so never get here)."""
        # Each attribute read of a run item goes through the SDK's Python __getattribute__.
        raw, output = item.raw_item, item.output
        call_id = real_id(_field(raw, "call_id")) or real_id(_field(raw, "id"))
        if call_id is None:
            return []
        raw_output = _field(raw, "output")
        given = raw_output if raw_output is not None else output
        parts = tool_output_parts(given) if self.shows_parts else None
        return self.emit_result(call_id, output_text(given), parts)

    def translate_handoff_output_item(self, item: HandoffOutputItem) -> list[BaseEvent]:
        """``handoff_occured``: the handoff call's result."""
        raw = item.raw_item
        call_id = real_id(_field(raw, "call_id"))
        if call_id is None:
            return []
        return self.emit_result(call_id, output_text(_field(raw, "output")))

    # Helpers ------------------------------------------------------------------------------------

    def activity_opened(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """Hook: the activity of a hosted call that starts (see ``activities.py``)."""
        return []

    def activity_closed(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """Hook: the last change of a hosted call's activity, when the call is done."""
        return []

    def result_due(self, call_id: str, content: str) -> list[BaseEvent]:
        """Hook: events due just before the result of ``call_id`` (none here; the engine closes
        the subagents that call spawned)."""
        return []

    def emit_result(
        self, call_id: str, content: str, parts: list[ResultPart] | None = None
    ) -> list[BaseEvent]:
        """Close the call if needed, then send its result once: ``parts`` when given (a 1.0
        client, a result with media), else ``content``, the result's text."""
        window = self.book.calls.get(call_id)
        out: list[BaseEvent] = []
        if window is not None:
            if window.answered:
                return []
            out = self._end_call(window, None)
            window.answered = True
        out += self.result_due(call_id, content)
        message_id = result_message_id(call_id, self.taken_message_ids)
        shown: str | list[ResultPart] = parts if parts else content
        self.book.add_result(ToolResult(message_id, call_id, shown))
        out.append(
            ToolCallResultEvent(
                message_id=message_id, tool_call_id=call_id, content=shown, role="tool"
            )
        )
        return out

    def _new_call(self, item: Any, output_index: int | None) -> ToolCallWindow:
        if isinstance(item, dict):
            values = (item.get("type"), item.get("id"), item.get("call_id"), item.get("name"))
        else:
            values = (
                getattr(item, "type", None),
                getattr(item, "id", None),
                getattr(item, "call_id", None),
                getattr(item, "name", None),
            )
        sdk_type, item_id, sdk_call_id, sdk_name = values
        kind = str(sdk_type or "function_call")
        hosted = kind in HOSTED_CALL_TYPES
        call_id = real_id(sdk_call_id) or self.book.resolve_id(item_id, "call")
        name = kind if hosted else str(sdk_name or "tool")
        window = ToolCallWindow(call_id, name, hosted=hosted)
        window.client_owned = not hosted and name in self.client_tool_names
        self.book.add(window, "tool", output_index, item_id)
        return window

    def _start_call(self, window: ToolCallWindow, early: list[str]) -> list[BaseEvent]:
        window.started = True
        parent = window.parent_message_id = self.book.join_group(window)
        out: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=window.tool_call_id,
                tool_call_name=window.name,
                parent_message_id=parent,
            )
        ]
        for delta in early:
            window.args.append(delta)
            out.append(ToolCallArgsEvent(tool_call_id=window.tool_call_id, delta=delta))
        return out

    def _fill_args(self, window: ToolCallWindow, arguments: str) -> list[BaseEvent]:
        if window.args or window.ended or not arguments:
            return []
        window.args.append(arguments)
        return [ToolCallArgsEvent(tool_call_id=window.tool_call_id, delta=arguments)]

    def _end_call(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """End a call (sending its full arguments if none streamed), then a hosted result."""
        out: list[BaseEvent] = []
        if not window.ended:
            if item is not None and not window.args:  # streamed arguments are never resent
                full = (
                    hosted_call_arguments(item)
                    if window.hosted
                    else _field(item, "arguments") or _field(item, "input")
                )
                out += self._fill_args(window, str(full or ""))
            window.ended = True
            out.append(ToolCallEndEvent(tool_call_id=window.tool_call_id))
        if item is not None and window.hosted:
            if window.replay.item is None and window.replay.item_id is not None:
                window.replay.item = provider_item(item)
            out += self.activity_closed(window, item)
            if not window.answered:
                out += self._hosted_result(window, item)
        return out

    def _hosted_result(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """Provider-run calls report their final status (and, to a 1.0 client, what they
        produced: a generated image, the code interpreter's logs and images); an MCP call its
        output or error."""
        kind = _field(item, "type")
        status = _field(item, "status")
        if kind == "mcp_call":
            error = _field(item, "error")
            output = _field(item, "output")
            if output is None and error is None and status in (None, "in_progress"):
                return []
            content = str(output) if output is not None else _error_text(error)
            return self.emit_result(window.tool_call_id, content)
        if kind in PROVIDER_RUN_CALL_TYPES and status not in (None, "in_progress", "searching"):
            content = json.dumps({"status": status})
            parts = hosted_result_parts(item, content) if self.shows_parts else None
            return self.emit_result(window.tool_call_id, content, parts)
        return []

    def _commit_call(self, raw: Any) -> list[BaseEvent]:
        call_id = real_id(_field(raw, "call_id"))
        window = self.book.calls.get(call_id) if call_id else None
        if window is None:
            found = self.book.match("tool", _field(raw, "id"))
            window = found if isinstance(found, ToolCallWindow) else None
        else:
            self.book.forget("tool", window)
        out: list[BaseEvent] = []
        if window is None or window.committed:
            window = self._new_call(raw, None)
            self.book.forget("tool", window)
            out = self._start_call(window, [])
        window.committed = True
        out += self._end_call(window, raw)
        return out
