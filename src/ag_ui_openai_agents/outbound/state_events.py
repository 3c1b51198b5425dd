"""Internal: how the shared state reaches the client: snapshots, deltas and predictions.

:class:`StateStream` turns each state the run sends into a STATE_SNAPSHOT, or, when deltas are
on, into a STATE_DELTA (an RFC 6902 JSON Patch, made by :mod:`.state_diff`) once the client
holds a snapshot from this run and the patch is the smaller of the two.
:class:`StatePredictions` sends CopilotKit's ``PredictState`` CUSTOM event before each call of a
declared tool, and hands the finished argument to the shared state. The engine knows nothing of
it: the run's lifecycle (``AGUITranslator.to_agui``) passes what the engine made through
:meth:`StatePredictions.weave`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from ag_ui_openai_agents.outbound.state_diff import dump, json_patch, load
from ag_ui_openai_agents.state import PredictState, SharedState, StateTooLargeError

PREDICT_STATE_EVENT = "PredictState"
"""The CUSTOM event name CopilotKit reads its predictive state mappings from."""

_UNSENT = object()


class StateStream:
    """The state events of one run, and what the client holds after them.

    Each state it is given is written as JSON once (:func:`~.state_diff.dump`): that measures
    it, refuses it over ``max_bytes`` (:class:`StateTooLargeError`; the stream sends nothing
    more after that), and is read back as the copy the event holds. A delta is sent only after
    a snapshot of this run (a client older than 1.0, and CopilotKit, break on a delta with
    nothing to apply it to), only when it changes something, and only when it encodes smaller
    than the snapshot it replaces: the patch is made from the changed parts only, and given up
    as soon as it reaches the snapshot's size.
    """

    __slots__ = ("_refused", "_sent", "_sent_json", "deltas", "max_bytes")

    def __init__(self, *, deltas: bool, max_bytes: int | None = None) -> None:
        self.deltas = deltas
        self.max_bytes = max_bytes
        self._sent: Any = _UNSENT
        self._sent_json = b""
        self._refused = False

    def events(self, value: Any) -> list[BaseEvent]:
        """The event that brings the client from what it was sent last to ``value``.

        The event holds a copy: a tool changing the state in place afterwards does not change
        what was sent.

        Raises:
            StateTooLargeError: ``value`` is larger than ``max_bytes`` as JSON.
        """
        if self._refused:
            return []
        text = dump(value)
        if self.max_bytes is not None and len(text) > self.max_bytes:
            self._refused = True
            raise StateTooLargeError(len(text), self.max_bytes)
        if not self.deltas:
            return [StateSnapshotEvent(snapshot=load(text))]
        if text == self._sent_json:
            return []
        sent = load(text)
        previous, self._sent, self._sent_json = self._sent, sent, text
        if previous is _UNSENT:
            return [StateSnapshotEvent(snapshot=sent)]
        patch = json_patch(previous, sent, len(text))
        if patch:
            return [StateDeltaEvent.model_validate({"delta": patch})]
        # Too large a patch, or none though the JSON changed (keys in another order, or a
        # change ``==`` cannot see, such as ``1`` becoming ``true``): the snapshot says it all.
        return [StateSnapshotEvent(snapshot=sent)]


class StatePredictions:
    """``PredictState`` events before the calls of declared tools; their finished arguments
    written into the shared state, whose change ``flush`` streams at once.

    :meth:`weave` applies them to what the run's engine made; :meth:`before_start` and
    :meth:`at_end` are its two steps."""

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

    def weave(self, events: list[BaseEvent], calls: Mapping[str, Any]) -> list[BaseEvent]:
        """``events``, made by the run's own engine, with the predictions in place: the
        ``PredictState`` event before the TOOL_CALL_START of each call of a declared tool, and
        the call's finished arguments written into the state (and that change) before its
        TOOL_CALL_END. ``calls`` are the engine's call windows by id (``book.calls``): the
        name, arguments and kind of each call. A subagent's calls and hosted calls are left
        alone. ``events`` itself is returned when nothing is added."""
        out: list[BaseEvent] | None = None
        for index, event in enumerate(events):
            if isinstance(event, (ToolCallStartEvent, ToolCallEndEvent)):
                added = self._around(event, calls)
                if added and out is None:
                    out = events[:index]
                if out is not None:
                    out += added
            if out is not None:
                out.append(event)
        return events if out is None else out

    def _around(
        self, event: ToolCallStartEvent | ToolCallEndEvent, calls: Mapping[str, Any]
    ) -> list[BaseEvent]:
        if getattr(event, "subagent_run_id", None) is not None:
            return []
        window = calls.get(event.tool_call_id)
        if window is None or window.hosted or window.name not in self._by_tool:
            return []
        if isinstance(event, ToolCallStartEvent):
            return self.before_start(window.name)
        return self.at_end(window.name, "".join(window.args))
