"""The wire rules of the AG-UI stream checker: how each event looks once a server encodes it.

:func:`_wire_problem` encodes one event with the encoder it is given and checks the result: one
SSE ``data:`` line, only keys the event model knows (recursively), no SDK placeholder id, no
provider correlation key (:data:`FORBIDDEN_KEYS`) outside application-owned payloads, and a
payload that validates back into the same event class. The public entry point is
:func:`support.invariants.check_stream`.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    Event,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
)
from ag_ui.encoder import EventEncoder
from agents.models.fake_id import FAKE_RESPONSES_ID
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

_SNAKE_KEYS = ("output_index", "item_id", "content_index", "summary_index", "sequence_number")
FORBIDDEN_KEYS: frozenset[str] = frozenset(
    [*_SNAKE_KEYS, "response_id", *(to_camel(key) for key in (*_SNAKE_KEYS, "response_id"))]
)
"""Provider correlation keys that must never appear in an event (see :func:`_wire_problem`)."""

_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)
# Payloads that belong to the application: keys there are its business, not ours.
_APP_OWNED: frozenset[tuple[type[BaseModel], str]] = frozenset(
    {
        (StateSnapshotEvent, "snapshot"),
        (StateDeltaEvent, "delta"),
        (ActivitySnapshotEvent, "content"),
        (ActivityDeltaEvent, "patch"),
        (RunStartedEvent, "input"),
    }
)
_ALIASES: dict[type[BaseModel], dict[str, str]] = {}


def _aliases(cls: type[BaseModel]) -> dict[str, str]:
    """Map every wire key of ``cls`` to its attribute name (cached per class)."""
    known = _ALIASES.get(cls)
    if known is None:
        known = {
            (info.serialization_alias or info.alias or name): name
            for name, info in cls.model_fields.items()
        }
        _ALIASES[cls] = known
    return known


def _wire_problem(event: BaseEvent, encoder: EventEncoder) -> tuple[str, str] | None:
    """Encode ``event`` as a server would with ``encoder``; return the first wire fault found."""
    line = encoder.encode(event)
    payload = line[len("data: ") : -2]
    if not (line.startswith("data: ") and line.endswith("\n\n")) or "\n" in payload:
        return "wire-encoding", f"not a single SSE data line: {line[:80]!r}"
    data = json.loads(payload)
    problem = _walk_model(event, data, "$", scan=True)
    if problem is not None:
        return problem
    try:
        back = _EVENT_ADAPTER.validate_json(payload)
    except ValidationError as exc:
        return "wire-invalid", f"the encoded event does not validate: {exc}"
    if type(back) is not type(event):
        return "wire-invalid", f"decodes as {type(back).__name__}, not {type(event).__name__}"
    return None


def _walk_model(model: BaseModel, data: Any, path: str, scan: bool) -> tuple[str, str] | None:
    """Check that every key of ``data`` is a field alias of ``model``, recursively."""
    if not isinstance(data, dict):
        return "wire-invalid", f"{path} is not an object"
    cls = type(model)
    names = _aliases(cls)
    for key, value in data.items():
        name = names.get(key)
        if name is None:
            return "wire-unknown-key", f"{path}.{key} is not a field of {cls.__name__}"
        if not isinstance(value, (dict, list, str)):
            continue
        inner = scan and (cls, key) not in _APP_OWNED
        problem = _walk_value(getattr(model, name), value, f"{path}.{key}", inner)
        if problem is not None:
            return problem
    return None


def _walk_value(value: Any, data: Any, path: str, scan: bool) -> tuple[str, str] | None:
    """Descend into nested models; treat anything else as open JSON."""
    if isinstance(value, BaseModel):
        return _walk_model(value, data, path, scan)
    if isinstance(value, list) and isinstance(data, list) and len(value) == len(data):
        for pos, (item, raw) in enumerate(zip(value, data, strict=True)):
            problem = _walk_value(item, raw, f"{path}[{pos}]", scan)
            if problem is not None:
                return problem
        return None
    return _walk_json(data, path, scan)


def _walk_json(data: Any, path: str, scan: bool) -> tuple[str, str] | None:
    """Scan open JSON for the placeholder id and, where ``scan``, for correlation keys."""
    if isinstance(data, str):
        fake = data == FAKE_RESPONSES_ID
        return ("wire-fake-id", f"{path} is the SDK placeholder id {data!r}") if fake else None
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, str) and node == FAKE_RESPONSES_ID:
            return "wire-fake-id", f"{where} carries the SDK placeholder id {node!r}"
        if isinstance(node, dict):
            for key, value in node.items():
                internal = key in FORBIDDEN_KEYS or key.startswith("__")
                if key == FAKE_RESPONSES_ID or (scan and internal):
                    return "wire-internal-key", f"{where}.{key} is an internal key"
                stack.append((f"{where}.{key}", value))
        elif isinstance(node, list):
            stack.extend((f"{where}[{pos}]", item) for pos, item in enumerate(node))
    return None
