"""Internal: how the shared state reaches the client: snapshots, deltas and predictions.

:class:`StateStream` turns each state the run sends into a STATE_SNAPSHOT, or, when deltas are
on, into a STATE_DELTA (an RFC 6902 JSON Patch made with ``jsonpatch``) once the client holds a
snapshot from this run and the patch is the smaller of the two. :class:`StatePredictions` sends
CopilotKit's ``PredictState`` CUSTOM event before each call of a declared tool, and hands the
finished argument to the shared state.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

import jsonpatch
from ag_ui.core import BaseEvent, CustomEvent, StateDeltaEvent, StateSnapshotEvent

from ag_ui_openai_agents.state import PredictState, SharedState

PREDICT_STATE_EVENT = "PredictState"
"""The CUSTOM event name CopilotKit reads its predictive state mappings from."""

_UNSENT = object()


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), default=str))


class StateStream:
    """The state events of one run, and what the client holds after them.

    A delta is sent only after a snapshot of this run (a client older than 1.0, and CopilotKit,
    break on a delta with nothing to apply it to), only when it changes something, and only when
    it encodes smaller than the snapshot it replaces.
    """

    __slots__ = ("_sent", "deltas")

    def __init__(self, *, deltas: bool) -> None:
        self.deltas = deltas
        self._sent: Any = _UNSENT

    def events(self, value: Any) -> list[BaseEvent]:
        """The event that brings the client from what it was sent last to ``value``.

        The event holds a copy: a tool changing the state in place afterwards does not change
        what was sent."""
        sent = copy.deepcopy(value)
        if not self.deltas:
            return [StateSnapshotEvent(snapshot=sent)]
        previous, self._sent = self._sent, sent
        if previous is _UNSENT:
            return [StateSnapshotEvent(snapshot=sent)]
        patch = jsonpatch.make_patch(previous, sent).patch
        if not patch:
            return []
        if _size(patch) < _size(sent):
            return [StateDeltaEvent.model_validate({"delta": patch})]
        return [StateSnapshotEvent(snapshot=sent)]


class StatePredictions:
    """``PredictState`` events before the calls of declared tools; their finished arguments
    written into the shared state, whose change ``flush`` streams at once."""

    __slots__ = ("_by_tool", "_flush", "_state")

    def __init__(
        self,
        mappings: Sequence[PredictState],
        state: SharedState | None = None,
        flush: Callable[[], list[BaseEvent]] | None = None,
    ) -> None:
        self._by_tool: dict[str, list[PredictState]] = {}
        for mapping in mappings:
            self._by_tool.setdefault(mapping.tool, []).append(mapping)
        self._state = state
        self._flush = flush

    def before_start(self, tool: str) -> list[BaseEvent]:
        """The ``PredictState`` event due before a call of ``tool`` starts (none if undeclared)."""
        mappings = self._by_tool.get(tool)
        if not mappings:
            return []
        value = [mapping.payload() for mapping in mappings]
        return [CustomEvent(name=PREDICT_STATE_EVENT, value=value)]

    def at_end(self, tool: str, arguments: str) -> list[BaseEvent]:
        """Write the finished arguments of a call of ``tool`` into the shared state; return
        the state events of that change (none without a shared state or a matching argument)."""
        mappings = self._by_tool.get(tool)
        state = self._state
        if not mappings or state is None:
            return []
        try:
            parsed = json.loads(arguments) if arguments else {}
        except ValueError:
            return []
        if not isinstance(parsed, dict):
            return []
        changes = {
            m.state_key: parsed if m.tool_argument is None else parsed[m.tool_argument]
            for m in mappings
            if m.tool_argument is None or m.tool_argument in parsed
        }
        if not changes:
            return []
        state.update(**changes)
        return self._flush() if self._flush is not None else []


NO_PREDICTIONS = StatePredictions(())
"""The predictions of a run that declares none."""
