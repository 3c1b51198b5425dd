"""Internal: MESSAGES_SNAPSHOT, the request's history then what this run streamed, same ids."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    FunctionCall,
    Message,
    MessagesSnapshotEvent,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
)

from ag_ui_openai_agents.outbound.replay import (
    hosted_artefact,
    part_metadata,
    replay_metadata,
)
from ag_ui_openai_agents.outbound.windows import (
    Activity,
    AssistantGroup,
    Produced,
    ReasoningWindow,
    SubagentSlot,
    ToolCallWindow,
    ToolResult,
)


def _tool_call(call: ToolCallWindow) -> ToolCall:
    function = FunctionCall(name=call.name, arguments="".join(call.args))
    metadata = replay_metadata(call.replay)
    artefact = hosted_artefact(call.replay.item) if call.hosted else None
    return ToolCall(
        id=call.tool_call_id, function=function, encrypted_value=artefact, metadata=metadata
    )


def _assistant(group: AssistantGroup) -> AssistantMessage | None:
    text = "".join(group.text.chunks) if group.text is not None else ""
    calls = [_tool_call(call) for call in group.calls if call.started]
    if not text and not calls:
        return None
    metadata = replay_metadata(group.text.replay) if group.text is not None else None
    return AssistantMessage(
        id=group.message_id, content=text or None, tool_calls=calls or None, metadata=metadata
    )


def _reasoning(window: ReasoningWindow) -> list[Message]:
    """One message per streamed part; the first carries the encrypted value and the item's
    replay metadata, every part its kind (summary or text).

    A reasoning item whose only content is an encrypted value that arrived after the stream
    closed it gets one empty message here, so the value still returns on the next request.
    """
    info = window.replay
    first = replay_metadata(info, part=window.parts[0].kind if window.parts else "summary")
    item_id = info.item_id if info.positioned else None
    messages: list[Message] = []
    for index, part in enumerate(window.parts):
        messages.append(
            ReasoningMessage(
                id=part.message_id,
                content="".join(part.chunks),
                encrypted_value=window.encrypted_value if index == 0 else None,
                metadata=first if index == 0 else part_metadata(item_id, part.kind),
            )
        )
    if not messages and window.encrypted_value:
        messages.append(
            ReasoningMessage(
                id=window.phase_id,
                content="",
                encrypted_value=window.encrypted_value,
                metadata=first,
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
                ToolMessage(
                    id=entry.message_id, tool_call_id=entry.tool_call_id, content=entry.content
                )
            )
        elif isinstance(entry, Activity):
            messages.append(
                ActivityMessage(
                    id=entry.message_id,
                    activity_type=entry.activity_type,
                    content=copy.deepcopy(entry.shown),
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

    The history comes validated with the request; its messages are kept as they are.
    """
    return MessagesSnapshotEvent(messages=[*history, *produced_messages(produced)])
