"""The per-event rules of the AG-UI stream checker: one pass over the events of a run.

:class:`_Checker` is a state machine fed one event at a time. It applies the wire rules of
``invariants_wire.py`` to each event, then the lifecycle, window, step, tool result, encrypted
value, outcome, pending call and usage rules; at the end of the stream it checks the terminal
event and parent message ids, and returns the messages snapshot for the rules of
``invariants_snapshot.py``.
The public entry point is :func:`support.invariants.check_stream`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, NoReturn

import jsonpatch
from ag_ui.core import (
    ActivityDeltaEvent,
    ActivityMessage,
    ActivitySnapshotEvent,
    AssistantMessage,
    BaseEvent,
    EventType,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TokenUsage,
    ToolCallResultEvent,
    ToolMessage,
)
from ag_ui.encoder import EventEncoder

from .invariants_subagents import _SubagentRules
from .invariants_wire import _wire_problem

_COUNT_FIELDS = tuple(name for name in TokenUsage.model_fields if name.endswith("_tokens"))

TEXT, TOOL, REASONING, SPAN = "text message", "tool call", "reasoning message", "reasoning span"
_ID_FIELD = {TEXT: "message_id", TOOL: "tool_call_id", REASONING: "message_id", SPAN: "message_id"}
_FORMS: tuple[tuple[str, str, str], ...] = (
    ("TEXT_MESSAGE", TEXT, "CONTENT"),
    ("TOOL_CALL", TOOL, "ARGS"),
    ("REASONING_MESSAGE", REASONING, "CONTENT"),
)
# event type -> (window kind, start | part | end), and the CHUNK shorthand of each kind.
_WINDOW_EVENTS: dict[EventType, tuple[str, str]] = {
    EventType[f"{prefix}_{stage}"]: (kind, action)
    for prefix, kind, part in _FORMS
    for stage, action in (("START", "start"), (part, "part"), ("END", "end"))
}
_WINDOW_EVENTS[EventType.REASONING_START] = (SPAN, "start")
_WINDOW_EVENTS[EventType.REASONING_END] = (SPAN, "end")
_CHUNK_EVENTS: dict[EventType, str] = {EventType[f"{p}_CHUNK"]: kind for p, kind, _ in _FORMS}
# Events that, as in the TypeScript client, leave an implicit CHUNK window open.
_KEEPS_CHUNK = {EventType.RAW, EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA}
_KEEPS_CHUNK |= {EventType.REASONING_ENCRYPTED_VALUE, EventType.SUBAGENT_STARTED}
# The client's state before any STATE_SNAPSHOT of the run: a delta has nothing to apply to.
NO_STATE: Any = object()


class StreamViolation(AssertionError):
    """A stream broke a rule. ``rule`` names it; ``index`` is the offending event, if any."""

    def __init__(self, rule: str, detail: str, index: int | None = None) -> None:
        where = "stream" if index is None else f"event #{index}"
        super().__init__(f"{where}: [{rule}] {detail}")
        self.rule = rule
        self.detail = detail
        self.index = index


# --------------------------------------------------------------------------- state


@dataclass
class _Window:
    """One streamed entity: a text message, tool call, reasoning message or span."""

    kind: str
    index: int
    chunked: bool
    is_open: bool = True
    parts: list[str] = field(default_factory=list)
    role: str = "assistant"
    name: str = ""
    parent: str | None = None
    subagent: str | None = None

    @property
    def text(self) -> str:
        """Everything streamed into the window, joined."""
        return "".join(self.parts)


@dataclass
class _History:
    """What the request already holds: messages, tool calls and their answers."""

    messages: list[Any]
    by_id: dict[str, Any]
    calls: set[str]
    answered: set[str]

    @classmethod
    def of(cls, run_input: RunAgentInput | None) -> _History:
        messages = list(run_input.messages) if run_input is not None else []
        assistants = [m for m in messages if isinstance(m, AssistantMessage)]
        calls = {call.id for m in assistants for call in m.tool_calls or []}
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        return cls(messages, {m.id: m for m in messages}, calls, answered)


class _Checker:
    """Single-pass state machine over the events of one run."""

    def __init__(
        self,
        run_input: RunAgentInput | None,
        pre_1_0: bool,
        encoder: EventEncoder,
        cut: bool,
        joined: bool = False,
    ) -> None:
        self.run_input, self.pre_1_0, self.encoder = run_input, pre_1_0, encoder
        self.cut = cut
        self.joined = joined
        """A catch-up of a live run: a MESSAGES_SNAPSHOT of the input may open it."""
        self.history = _History.of(run_input)
        self.windows: dict[tuple[str, str], _Window] = {}
        self.open: dict[tuple[str, str], None] = {}
        self.chunk: tuple[str, str] | None = None
        self.message_ids: dict[str, str] = {}
        self.tool_order: dict[str, int] = {}
        self.results: dict[str, ToolCallResultEvent] = {}
        self.answered: set[str] = set()
        self.encrypted: dict[tuple[str, str], str] = {}
        self.steps: set[tuple[str | None, str]] = set()
        self.subagents: dict[str, bool] = {}
        self.subs = _SubagentRules(self)
        self.started: RunStartedEvent | None = None
        self.terminal: int | None = None
        self.snapshot: tuple[int, MessagesSnapshotEvent] | None = None
        self.state: Any = NO_STATE
        self.states: list[Any] = []
        self.activities: dict[str, tuple[str, Any]] = {}
        self.index = 0

    def fail(self, rule: str, detail: str, index: int | None = -1) -> NoReturn:
        raise StreamViolation(rule, detail, self.index if index == -1 else index)

    def require(self, ok: bool, rule: str, detail: str) -> None:
        if not ok:
            self.fail(rule, detail)

    # ---- per event

    def feed(self, index: int, event: BaseEvent) -> None:
        self.index = index
        problem = _wire_problem(event, self.encoder)
        if problem is not None:
            self.fail(*problem)
        name = event.type.value
        self.require(self.terminal is None, "event-after-terminal", f"{name} after the end")
        first = event.type == EventType.RUN_STARTED
        self.require(index > 0 or first, "first-event-not-run-started", f"run opens with {name}")
        self.require(index == 0 or not first, "run-started-repeated", "a second RUN_STARTED")
        self.subs.attribution(event)
        kind = _CHUNK_EVENTS.get(event.type)
        if kind is not None:
            self._chunk(kind, event)
            return
        if event.type not in _KEEPS_CHUNK:
            self._close_chunk()
        window = _WINDOW_EVENTS.get(event.type)
        if window is not None:
            self._window(*window, event)
            return
        handler = getattr(self, f"_on_{event.type.value.lower()}", None)
        if handler is not None:
            handler(event)

    def _window(self, kind: str, action: str, event: Any) -> None:
        key: tuple[str, str] = (kind, getattr(event, _ID_FIELD[kind]))
        if action == "start":
            self._open(key, event, chunked=False)
            return
        win = self.windows.get(key)
        where = f"{event.type.value} for {kind} {key[1]!r}"
        self.require(win is None or not win.chunked, "chunk-mixed", f"{where} sent as chunks")
        if win is None or not win.is_open:
            self.fail("window-not-open", f"{where}, which is not open")
        self.subs.same_owner(where, getattr(event, "subagent_run_id", None), win.subagent)
        if action == "part":
            self._append(win, event.delta)
        else:
            win.is_open = False
            del self.open[key]

    def _append(self, win: _Window, delta: str | None) -> None:
        if delta is not None:
            ok = win.kind != TEXT or delta != ""
            self.require(ok, "text-empty-delta", f"empty text delta for {win.kind}")
            win.parts.append(delta)

    def _open(self, key: tuple[str, str], event: Any, *, chunked: bool) -> None:
        kind, ident = key
        win = self.windows.get(key)
        if win is not None:
            where = f"{kind} {ident!r} opened at #{win.index}"
            self.require(win.chunked == chunked, "chunk-mixed", f"{where} in the other form")
            self.fail("window-already-open" if win.is_open else "window-reopened", where)
        if kind == TOOL:
            ok = ident not in self.history.calls
            self.require(ok, "tool-call-id-in-history", f"tool call {ident!r} is in the input")
            self.tool_order[ident] = len(self.tool_order)
        elif kind != SPAN:
            self._claim_message_id(ident, kind)
        win = _Window(kind, self.index, chunked, role=getattr(event, "role", None) or "assistant")
        win.name = getattr(event, "tool_call_name", None) or ""
        win.parent = getattr(event, "parent_message_id", None)
        win.subagent = getattr(event, "subagent_run_id", None)
        self.windows[key] = win
        if not chunked:
            self.open[key] = None

    def _claim_message_id(self, ident: str, kind: str) -> None:
        other = self.message_ids.get(ident)
        self.require(other is None, "message-id-collision", f"{kind} {ident!r} is a {other}")
        ok = ident not in self.history.by_id
        self.require(ok, "message-id-collision", f"{kind} {ident!r} is an input message id")
        self.message_ids[ident] = kind

    def _chunk(self, kind: str, event: Any) -> None:
        ident = getattr(event, _ID_FIELD[kind])
        key: tuple[str, str] | None = (kind, ident) if ident is not None else self.chunk
        if key is None or key[0] != kind:
            self.fail("chunk-without-id", f"{event.type.value} continues no open chunk")
        if key != self.chunk:
            self._close_chunk()
            ok = kind != TOOL or event.tool_call_name is not None
            self.require(ok, "chunk-missing-name", "the first TOOL_CALL_CHUNK has no name")
            self._open(key, event, chunked=True)
            self.chunk = key
        self._append(self.windows[key], event.delta)

    def _close_chunk(self) -> None:
        if self.chunk is not None:
            self.windows[self.chunk].is_open = False
            self.chunk = None

    # ---- lifecycle

    def _on_run_started(self, event: RunStartedEvent) -> None:
        version = event.protocol_version
        self.require(version == "1.0", "run-started-protocol-version", f"version {version!r}")
        ids = (event.thread_id, event.run_id, event.parent_run_id)
        given = self.run_input
        if given is not None:
            ok = ids == (given.thread_id, given.run_id, given.parent_run_id)
            self.require(ok, "run-started-ids", f"(thread, run, parent) {ids} differ from input")
        self.started = event

    def _on_run_finished(self, event: RunFinishedEvent) -> None:
        self.require(not self.open, "run-finished-open-windows", f"open: {_names(self.open)}")
        self.require(not self.steps, "run-finished-open-steps", f"open: {sorted(self.steps)}")
        running = [name for name, active in self.subagents.items() if active]
        self.require(not running, "run-finished-open-subagents", f"running: {running}")
        start = self.started
        ok = start is None or (event.thread_id, event.run_id) == (start.thread_id, start.run_id)
        self.require(ok, "run-finished-ids", "thread_id/run_id differ from RUN_STARTED")
        outcome = event.outcome
        if isinstance(outcome, RunFinishedInterruptOutcome):
            self._interrupts(outcome)
        elif isinstance(outcome, RunFinishedCancelledOutcome):
            self.require(not self.pre_1_0, "pre-1.0-cancelled", "cancelled outcome before 1.0")
        elif isinstance(outcome, RunFinishedSuccessOutcome):
            self._pending(outcome.pending_tool_call_ids)
        self._on_run_error(event)

    def _on_run_error(self, event: RunFinishedEvent | RunErrorEvent) -> None:
        if isinstance(event, RunErrorEvent) and not self.cut:
            self.subs.terminal(event)
        seen: set[tuple[str | None, str | None]] = set()
        for pos, entry in enumerate(event.usage or []):
            problem = _usage_problem(entry)
            self.require(problem is None, "usage-invalid", f"usage[{pos}]: {problem}")
            key = (entry.provider, entry.model)
            self.require(key not in seen, "usage-duplicate-model", f"usage[{pos}] repeats {key}")
            seen.add(key)
        self.terminal = self.index

    def _interrupts(self, outcome: RunFinishedInterruptOutcome) -> None:
        seen: set[str] = set()
        for interrupt in outcome.interrupts:
            ident, call = interrupt.id, interrupt.tool_call_id
            self.require(ident not in seen, "interrupt-duplicate-id", f"{ident!r} repeats")
            seen.add(ident)
            if call is not None:
                known = (TOOL, call) in self.windows or call in self.history.calls
                self.require(known, "interrupt-unknown-call", f"unknown tool call {call!r}")
                open_call = call not in self.answered and call not in self.history.answered
                self.require(open_call, "interrupt-call-answered", f"{call!r} has a result")

    def _pending(self, pending: list[str] | None) -> None:
        if pending is None:
            return
        self.require(not self.pre_1_0, "pre-1.0-pending-ids", "pending_tool_call_ids before 1.0")
        last = -1
        for call in pending:
            position = self.tool_order.get(call, -1)
            self.require(position >= 0, "pending-not-started", f"{call!r} not started in this run")
            self.require(call not in self.answered, "pending-answered", f"{call!r} has a result")
            self.require(position > last, "pending-order", f"{call!r} out of order or repeated")
            last = position

    # ---- other events

    def _on_step_started(self, event: StepStartedEvent) -> None:
        key = (event.subagent_run_id, event.step_name)
        self.require(key not in self.steps, "step-already-started", f"step {key[1]!r} is running")
        self.steps.add(key)

    def _on_step_finished(self, event: StepFinishedEvent) -> None:
        key = (event.subagent_run_id, event.step_name)
        self.require(key in self.steps, "step-not-started", f"step {key[1]!r} never started")
        self.steps.discard(key)

    def _on_tool_call_result(self, event: ToolCallResultEvent) -> None:
        call, ident = event.tool_call_id, event.message_id
        win = self.windows.get((TOOL, call))
        known = win is not None or call in self.history.calls
        self.require(known, "tool-result-unknown-call", f"tool call {call!r} never started")
        ok = win is None or not win.is_open
        self.require(ok, "tool-result-before-end", f"tool call {call!r} is still open")
        # A client keeps both copies of a message id it already holds, even after a snapshot.
        ok = call not in self.answered and call not in self.history.answered
        self.require(ok, "tool-result-duplicate", f"tool call {call!r} is already answered")
        parts = not isinstance(event.content, str)
        self.require(not (parts and self.pre_1_0), "pre-1.0-parts", "content parts before 1.0")
        self._claim_message_id(ident, "tool result")
        self.subs.result(call)
        self.answered.add(call)
        self.results[ident] = event

    def _on_messages_snapshot(self, event: MessagesSnapshotEvent) -> None:
        if self.joined and not self.windows and self.snapshot is None:
            self.joined = False  # the catch-up's head: it restates the input, nothing more
            given = [m.id for m in self.history.messages]
            ids = [m.id for m in event.messages]
            self.require(ids == given, "joined-head-not-input", f"{ids} restate not {given}")
            return
        self.require(self.snapshot is None, "snapshot-repeated", "a second MESSAGES_SNAPSHOT")
        self.require(not self.open, "snapshot-windows-open", f"open: {_names(self.open)}")
        self.snapshot = (self.index, event)
        by_id = {message.id: message for message in event.messages}
        for ident, (kind, content) in self.activities.items():
            held = by_id.get(ident)
            ok = isinstance(held, ActivityMessage) and (held.activity_type, held.content) == (
                kind,
                content,
            )
            self.require(ok, "snapshot-activity-mismatch", f"activity {ident!r} differs")

    def _on_activity_snapshot(self, event: ActivitySnapshotEvent) -> None:
        self.require(not self.pre_1_0, "pre-1.0-activity", "an activity before 1.0")
        self.activities[event.message_id] = (event.activity_type, copy.deepcopy(event.content))

    def _on_activity_delta(self, event: ActivityDeltaEvent) -> None:
        self.require(not self.pre_1_0, "pre-1.0-activity", "an activity before 1.0")
        held = self.activities.get(event.message_id)
        if held is None:
            self.fail(
                "activity-delta-first", f"a delta before the snapshot of {event.message_id!r}"
            )
        ok = held[0] == event.activity_type
        self.require(ok, "activity-type-changed", f"activity {event.message_id!r} changed type")
        self.require(bool(event.patch), "activity-delta-empty", "a delta that changes nothing")
        operations = [op.model_dump(mode="json", by_alias=True) for op in event.patch]
        try:
            content = jsonpatch.apply_patch(held[1], operations)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            self.fail("activity-delta-invalid", f"the patch does not apply: {exc}")
        self.activities[event.message_id] = (held[0], content)

    def _on_state_snapshot(self, event: StateSnapshotEvent) -> None:
        self.state = copy.deepcopy(event.snapshot)
        self.states.append(copy.deepcopy(self.state))

    def _on_state_delta(self, event: StateDeltaEvent) -> None:
        self.require(self.state is not NO_STATE, "state-delta-first", "a delta before a snapshot")
        self.require(bool(event.delta), "state-delta-empty", "a delta that changes nothing")
        operations = [op.model_dump(mode="json", by_alias=True) for op in event.delta]
        try:
            self.state = jsonpatch.apply_patch(self.state, operations)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            self.fail("state-delta-invalid", f"the patch does not apply: {exc}")
        self.states.append(copy.deepcopy(self.state))

    def _on_reasoning_encrypted_value(self, event: ReasoningEncryptedValueEvent) -> None:
        ident, subtype = event.entity_id, event.subtype
        if subtype == "tool-call":
            known = (TOOL, ident) in self.windows or ident in self.history.calls
        else:
            known = self._streamed_message(ident) or ident in self.history.by_id
        self.require(known, "encrypted-value-unknown-entity", f"no {subtype} {ident!r}")
        fresh = (subtype, ident) not in self.encrypted
        self.require(fresh, "encrypted-value-repeated", f"second value for {ident!r}")
        self.encrypted[(subtype, ident)] = event.encrypted_value

    def _streamed_message(self, ident: str) -> bool:
        return (TEXT, ident) in self.windows or (REASONING, ident) in self.windows

    def _on_subagent_started(self, event: SubagentStartedEvent) -> None:
        ident = event.subagent_run_id
        self.require(ident not in self.subagents, "subagent-reused", f"{ident!r} started before")
        self.subs.started(event)
        self.subagents[ident] = True

    def _on_subagent_finished(self, event: SubagentFinishedEvent | SubagentErrorEvent) -> None:
        ident = event.subagent_run_id
        ok = self.subagents.get(ident, False)
        self.require(ok, "subagent-not-active", f"subagent {ident!r} is not running")
        self.subs.closed(event)
        self.subagents[ident] = False

    _on_subagent_error = _on_subagent_finished

    # ---- end of stream

    def finish(self, count: int) -> tuple[list[Any], dict[str, Any]] | None:
        """Check the end of the stream; return the snapshot's messages (and by id), if sent."""
        if count == 0:
            self.fail("empty-stream", "no events", index=None)
        if self.terminal is None:
            self.fail("missing-terminal", "no RUN_FINISHED or RUN_ERROR at the end", count - 1)
        if self.snapshot is None:
            self._parents(None)
            return None
        self.index, event = self.snapshot
        by_id: dict[str, Any] = {}
        for message in event.messages:
            ident = message.id
            self.require(ident not in by_id, "snapshot-duplicate-id", f"{ident!r} repeats")
            by_id[ident] = message
        self._parents(by_id)
        return event.messages, by_id

    def _parents(self, snapshot: dict[str, Any] | None) -> None:
        for (kind, call), win in self.windows.items():
            parent = win.parent
            if kind != TOOL or parent is None:
                continue
            self.index = win.index
            role = self._role_of(parent)
            ok = role in (None, "assistant")
            self.require(ok, "parent-message-not-assistant", f"{call!r} names a {role} message")
            found = snapshot is None or isinstance(snapshot.get(parent), AssistantMessage)
            ok = role is not None or found
            self.require(ok, "parent-message-unknown", f"{call!r} names unknown {parent!r}")
        if self.snapshot is not None:
            self.index = self.snapshot[0]

    def _role_of(self, ident: str) -> str | None:
        text = self.windows.get((TEXT, ident))
        if text is not None:
            return text.role
        message = self.history.by_id.get(ident)
        return str(message.role) if message is not None else self.message_ids.get(ident)


def _names(keys: dict[tuple[str, str], None]) -> str:
    """List open windows for a message."""
    return ", ".join(f"{kind} {ident!r}" for kind, ident in keys)


def _usage_problem(entry: TokenUsage) -> str | None:
    """Explain what is wrong with one usage entry, or return ``None``."""
    counts = {name: getattr(entry, name) for name in _COUNT_FIELDS}
    if all(value is None for value in counts.values()):
        return "an entry without any count"
    given, made, total = counts["input_tokens"], counts["output_tokens"], counts["total_tokens"]
    cached = (counts["cached_input_tokens"] or 0) + (counts["cache_write_input_tokens"] or 0)
    if given is not None and cached > given:
        return "cache counts exceed input_tokens"
    if made is not None and (counts["reasoning_tokens"] or 0) > made:
        return "reasoning_tokens exceed output_tokens"
    if None not in (given, made, total) and total != given + made:
        return "total_tokens is not input_tokens + output_tokens"
    return None
