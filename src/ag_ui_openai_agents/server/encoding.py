"""Internal: the SSE line of an event, exactly as ``ag_ui.encoder.EventEncoder`` writes it.

``EventEncoder.encode`` writes ``data: `` + ``event.model_dump_json(by_alias=True)`` + a blank
line. Most of a stream is the three streamed delta events (TEXT_MESSAGE_CONTENT,
TOOL_CALL_ARGS, REASONING_MESSAGE_CONTENT), whose usual JSON is a fixed prefix, an id, an
optional ``subagentRunId`` and the delta, every value a string: :func:`encode_event` writes
those lines itself with the standard ``json`` string encoder, and hands every other event
(and any delta event carrying a timestamp, a raw event, metadata, an extra field or a value
that is not a plain string) to ``EventEncoder``. A STATE_SNAPSHOT without optional fields is
written with its snapshot serialised straight to JSON (:func:`_snapshot_line`). The tests check
the two agree byte for byte.
"""

from __future__ import annotations

import json
import re

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningMessageContentEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from ag_ui.encoder import EventEncoder
from pydantic_core import PydanticSerializationError, to_json

_event_encoder = EventEncoder()
_json_string = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(text, ensure_ascii=False)``: pydantic's JSON for a string (non-ASCII kept,
control characters escaped), without building an encoder per call."""
_has_surrogate = re.compile("[\ud800-\udfff]").search
"""Pydantic refuses to write a lone surrogate: such an event goes to ``EventEncoder``."""

_DELTA_EVENTS: dict[type[BaseEvent], tuple[EventType, str, str]] = {
    TextMessageContentEvent: (EventType.TEXT_MESSAGE_CONTENT, "message_id", "messageId"),
    ToolCallArgsEvent: (EventType.TOOL_CALL_ARGS, "tool_call_id", "toolCallId"),
    ReasoningMessageContentEvent: (EventType.REASONING_MESSAGE_CONTENT, "message_id", "messageId"),
}
"""Each delta event class: its type, and the attribute and wire key of its id. Its fields, in
order: ``type``, ``timestamp``, ``rawEvent``, ``metadata``, ``subagentRunId``, the id,
``delta``; the optional ones are left out when ``None``."""


def encode_event(event: BaseEvent) -> str:
    """The SSE line of ``event``: what ``EventEncoder().encode(event)`` returns (or raises)."""
    shape = _DELTA_EVENTS.get(type(event))
    if shape is not None:
        line = _delta_line(event, *shape)
        if line is not None:
            return line
    elif type(event) is StateSnapshotEvent:
        line = _snapshot_line(event)
        if line is not None:
            return line
    return _event_encoder.encode(event)


_SNAPSHOT_OPTIONAL = tuple(
    name for name in StateSnapshotEvent.model_fields if name not in ("type", "snapshot")
)
"""The optional fields of STATE_SNAPSHOT (``timestamp``, ``subagentRunId``, ...): an event
with any of them set goes to ``EventEncoder``."""


def _snapshot_line(event: StateSnapshotEvent) -> str | None:
    """The line of a STATE_SNAPSHOT with no optional field set, or None.

    ``EventEncoder`` serialises the event to Python objects first, then those to JSON (the
    event's serializer drops its unset optional fields in between), which costs about five times
    what writing the snapshot straight to JSON with the same serializer does; on a large state,
    every change pays it."""
    if event.type is not EventType.STATE_SNAPSHOT or event.model_extra:
        return None
    for name in _SNAPSHOT_OPTIONAL:
        if getattr(event, name) is not None:
            return None
    try:
        snapshot = to_json(event.snapshot, inf_nan_mode="null").decode()
    except (PydanticSerializationError, UnicodeDecodeError, ValueError):
        return None
    return f'data: {{"type":"STATE_SNAPSHOT","snapshot":{snapshot}}}\n\n'


def _delta_line(event: BaseEvent, kind: EventType, id_name: str, id_key: str) -> str | None:
    """The line of a delta event whose fields are all plain strings, or None."""
    if (
        event.type is not kind
        or event.timestamp is not None
        or event.raw_event is not None
        or event.metadata is not None
        or event.model_extra
    ):
        return None
    subagent = getattr(event, "subagent_run_id", None)
    item_id = getattr(event, id_name, None)
    delta = getattr(event, "delta", None)
    if type(item_id) is not str or type(delta) is not str:
        return None
    head = f'data: {{"type":"{kind.value}",'
    if subagent is not None:
        if type(subagent) is not str:
            return None
        head += f'"subagentRunId":{_json_string(subagent)},'
    line = f'{head}"{id_key}":{_json_string(item_id)},"delta":{_json_string(delta)}}}\n\n'
    if line.isascii() or _has_surrogate(line) is None:
        return line
    return None
