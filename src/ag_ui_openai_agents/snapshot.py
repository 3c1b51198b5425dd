"""MESSAGES_SNAPSHOT: the request's history, then what this run streamed, with the same ids."""

from __future__ import annotations

from collections.abc import Sequence

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    MessagesSnapshotEvent,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
)

from .builders import model_builder
from .windows import (
    AssistantGroup,
    Produced,
    ReasoningWindow,
    SubagentSlot,
    ToolCallWindow,
    ToolResult,
)

__all__ = ["build_messages_snapshot", "produced_messages"]

# A long run restates hundreds of messages: build them without validating values we made.
_function_call = model_builder(FunctionCall, "name", "arguments")
_tool_call_model = model_builder(ToolCall, "id", "function")
_assistant_message = model_builder(AssistantMessage, "id", "content", "tool_calls")
_reasoning_message = model_builder(ReasoningMessage, "id", "content", "encrypted_value")
_tool_message = model_builder(ToolMessage, "id", "tool_call_id", "content")
_snapshot_event = model_builder(MessagesSnapshotEvent, "messages")


def _tool_call(call: ToolCallWindow) -> ToolCall:
    return _tool_call_model(
        id=call.tool_call_id,
        function=_function_call(name=call.name, arguments="".join(call.args)),
    )


def _assistant(group: AssistantGroup) -> AssistantMessage | None:
    text = "".join(group.text.chunks) if group.text is not None else ""
    calls = [_tool_call(call) for call in group.calls if call.started]
    if not text and not calls:
        return None
    return _assistant_message(
        id=group.message_id,
        content=text or None,
        tool_calls=calls or None,
    )


def _reasoning(window: ReasoningWindow) -> list[Message]:
    """One message per streamed part; the first carries the encrypted value.

    A reasoning item whose only content is an encrypted value that arrived after the stream
    closed it gets one empty message here, so the value still returns on the next request.
    """
    messages: list[Message] = []
    for index, part in enumerate(window.parts):
        messages.append(
            _reasoning_message(
                id=part.message_id,
                content="".join(part.chunks),
                encrypted_value=window.encrypted_value if index == 0 else None,
            )
        )
    if not messages and window.encrypted_value:
        messages.append(
            _reasoning_message(
                id=window.phase_id, content="", encrypted_value=window.encrypted_value
            )
        )
    return messages


def produced_messages(produced: Sequence[Produced]) -> list[Message]:
    """This run's messages, in the order the client created them from the stream."""
    messages: list[Message] = []
    for entry in produced:
        if isinstance(entry, AssistantGroup):
            assistant = _assistant(entry)
            if assistant is not None:
                messages.append(assistant)
        elif isinstance(entry, ReasoningWindow):
            messages.extend(_reasoning(entry))
        elif isinstance(entry, ToolResult):
            messages.append(
                _tool_message(
                    id=entry.message_id, tool_call_id=entry.tool_call_id, content=entry.content
                )
            )
        elif isinstance(entry, SubagentSlot):
            messages.extend(_attributed(produced_messages(entry.produced), entry.subagent_run_id))
    return messages


def _attributed(messages: list[Message], subagent_run_id: str) -> list[Message]:
    """A subagent's messages, each attributed to it (those of deeper subagents keep theirs)."""
    for message in messages:
        if message.subagent_run_id is None:
            message.subagent_run_id = subagent_run_id
    return messages


def build_messages_snapshot(
    history: Sequence[Message], produced: Sequence[Produced]
) -> MessagesSnapshotEvent:
    """The full conversation: the input history untouched, then this run's messages.

    The history comes validated with the request, and this run's messages are built from
    values the engine made: the event is assembled without validating them again.
    """
    return _snapshot_event(messages=[*history, *produced_messages(produced)])
