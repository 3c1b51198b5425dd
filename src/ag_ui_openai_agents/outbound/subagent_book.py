"""Internal: subagent bookkeeping of the outbound engine: nested runs as engines of their own.

An agent used as a tool (``as_tool(..., on_stream=subagent_events)``) streams its own SDK
events into the run's :class:`~ag_ui_openai_agents.subagents.SubagentSink`. The run's
:class:`SubagentBook` (one per run, shared by every engine of the run) takes them from there.

Invariants
  * One tool call object of the SDK is one invocation, one :class:`SubagentRun` and one fresh
    ``subagent_run_id``: two calls of one agent tool are two subagent runs.
  * A subagent run is translated by an engine of its own (the same class as the run's, sharing
    its usage tally and message ids); the events that engine makes are tagged with the run's
    ``subagent_run_id`` in one place, :meth:`SubagentBook._translate`.
  * SUBAGENT_STARTED waits until the call that spawned it has been streamed (TOOL_CALL_END
    sent) by the engine that owns it: the outer engine, or the engine of an enclosing subagent
    (then ``parent_subagent_run_id`` names it). Nested events that arrive earlier wait in the
    run's backlog, in order.
  * SUBAGENT_FINISHED / SUBAGENT_ERROR comes just before the TOOL_CALL_RESULT of that call
    (every nested event has reached the sink by then: the SDK hands them over before the tool
    returns), or when the run ends; each run is closed exactly once, its descendants and its
    windows first.
  * Whether the client sees any of it is decided here and only here (:attr:`SubagentBook.shown`,
    set per request by the translator): a hidden subagent runs through the same steps (its
    usage counts, it is closed as ever), but its events leave the book through :meth:`_emit`,
    which drops them, and its messages get no :class:`SubagentSlot` in the snapshot. The client
    then sees the outer call and its result only, as if the tool streamed nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import BaseEvent, SubagentErrorEvent, SubagentFinishedEvent, SubagentStartedEvent
from agents import AgentToolStreamEvent, StreamEvent, default_tool_error_function

from ag_ui_openai_agents.outbound.windows import SubagentSlot, ToolCallWindow
from ag_ui_openai_agents.protocol import item_field as _field
from ag_ui_openai_agents.protocol import new_id, real_id

if TYPE_CHECKING:
    from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
    from ag_ui_openai_agents.subagents import SubagentSink

Events = list[BaseEvent]
CloseReason = Literal["cancelled", "failed", "unfinished"]

# What a subagent that is closed with its run gets told, by why the run ended.
_CLOSED_WITH_RUN: dict[str, tuple[str, str]] = {
    "cancelled": ("The run was cancelled before the subagent finished.", "cancelled"),
    "failed": ("The run failed before the subagent finished.", "run_failed"),
    "unfinished": ("The subagent did not finish.", "unfinished"),
}
# The text the SDK gives the model when an agent tool fails with the default error function.
_SDK_FAILURE_TEXT = str(default_tool_error_function(None, Exception()))  # type: ignore[arg-type]
_MODEL_FAILURES = frozenset({"response.failed", "response.incomplete", "error"})


@dataclass(eq=False)
class SubagentRun:
    """One invocation of an agent used as a tool, from its first nested event to its close."""

    tool_call: Any
    """The SDK's tool call object of the invocation (kept: its identity is the key)."""
    call_id: str | None
    """The spawning call's id."""
    tool_name: str | None
    """The agent tool's name, as the spawning call names it."""
    agent: Any
    """The nested agent currently running (changes on a handoff inside the subagent)."""
    backlog: deque[StreamEvent] = field(default_factory=deque)
    """Nested events waiting for SUBAGENT_STARTED."""
    subagent_run_id: str = ""
    """The AG-UI id of the invocation (set when it starts)."""
    engine: OpenAIToAGUITranslator | None = None
    """The engine translating the subagent's events (set when it starts)."""
    parent_engine: OpenAIToAGUITranslator | None = None
    """The engine that streamed the spawning call."""
    parent: SubagentRun | None = None
    """The enclosing subagent run, for a subagent spawned inside a subagent."""
    started: bool = False
    """SUBAGENT_STARTED was emitted."""
    closed: bool = False
    """SUBAGENT_FINISHED or SUBAGENT_ERROR was emitted."""
    responding: bool = False
    """A model response of the subagent started and has not completed."""
    model_failed: bool = False
    """A model response of the subagent failed or was cut short."""
    turn_calls: int = 0
    """Function calls the subagent's latest model response made."""
    open_calls: set[str] = field(default_factory=set)
    """Function calls of the subagent that got no output yet."""

    def observe(self, event: StreamEvent) -> None:
        """Follow the nested run far enough to tell whether it ended normally."""
        if event.type == "raw_response_event":
            kind = event.data.type
            if kind == "response.created":
                self.responding, self.turn_calls = True, 0
            elif kind == "response.completed":
                self.responding = False
            elif kind in _MODEL_FAILURES:
                self.model_failed = True
        elif event.type == "run_item_stream_event" and event.name in ("tool_called", "tool_output"):
            raw = event.item.raw_item
            call_id = real_id(_field(raw, "call_id"))
            if call_id is None:
                return
            if event.name == "tool_output":
                self.open_calls.discard(call_id)
            elif _field(raw, "type") == "function_call":
                self.turn_calls += 1
                self.open_calls.add(call_id)

    def failure(self, result: str | None) -> str | None:
        """Why the subagent failed (the text its tool gave the model), or None for success."""
        unfinished = self.model_failed or self.responding or bool(self.open_calls)
        behaviour = getattr(self.agent, "tool_use_behavior", "run_llm_again")
        unfinished = unfinished or (self.turn_calls > 0 and behaviour == "run_llm_again")
        if result is not None and result == _SDK_FAILURE_TEXT:
            return result
        if unfinished:
            return result or _CLOSED_WITH_RUN["unfinished"][0]
        return None


class SubagentBook:
    """Every subagent run of one run: routing, start, translation, tagging and closing."""

    def __init__(self, root: OpenAIToAGUITranslator) -> None:
        self.root = root
        self.sink: SubagentSink | None = None
        self.by_key: dict[int, SubagentRun] = {}
        self.waiting: list[SubagentRun] = []
        self.running: list[SubagentRun] = []
        self.bound: set[tuple[int, str]] = set()
        self.by_engine: dict[int, SubagentRun] = {}
        self.shown = True
        """Whether the client is shown the subagents (their events, their snapshot messages)."""

    @property
    def idle(self) -> bool:
        """Nothing to do: no nested event waiting and no subagent run in progress."""
        return not (self.waiting or self.running or (self.sink is not None and len(self.sink)))

    # Intake -----------------------------------------------------------------------------------

    def intake(self) -> Events:
        """Take the sink's events, translate those whose subagent can stream, start waiting ones."""
        out: Events = []
        if self.sink is not None and len(self.sink):
            for payload in self.sink.take():
                out += self._route(payload)
        if self.waiting:
            out += self._start_waiting(strict=True)
        return self._emit(out)

    def _emit(self, events: Events) -> Events:
        """What the book's entry points hand the stream: everything, or nothing when hidden."""
        return events if self.shown else []

    def _route(self, payload: AgentToolStreamEvent) -> Events:
        tool_call = payload.get("tool_call")
        run = self.by_key.get(id(tool_call))
        if run is None:
            run = SubagentRun(
                tool_call=tool_call,
                call_id=real_id(_field(tool_call, "call_id")),
                tool_name=_field(tool_call, "name"),
                agent=payload.get("agent"),
            )
            self.by_key[id(tool_call)] = run
            self.waiting.append(run)
        if run.closed:
            return []
        run.agent = payload.get("agent") or run.agent
        event = payload["event"]
        if run.started and not run.backlog:
            return self._translate(run, event)
        run.backlog.append(event)
        return []

    # Starting ---------------------------------------------------------------------------------

    def _start_waiting(self, *, strict: bool) -> Events:
        out: Events = []
        progress = True
        while progress and self.waiting:
            progress = False
            for run in list(self.waiting):
                parent = self._find_parent(run, strict=strict)
                if parent is None and strict:
                    continue
                self.waiting.remove(run)
                out += self._start(run, *(parent or (self.root, None)))
                progress = True
        return out

    def _find_parent(
        self, run: SubagentRun, *, strict: bool
    ) -> tuple[OpenAIToAGUITranslator, str | None] | None:
        """The engine that streamed the spawning call, and the message holding it."""
        if run.call_id is None:
            return None
        engines = [r.engine for r in reversed(self.running) if r.engine is not None]
        for engine in [*engines, self.root]:
            if (id(engine), run.call_id) in self.bound:
                continue
            window = engine.book.calls.get(run.call_id)
            if not isinstance(window, ToolCallWindow) or not window.started:
                continue
            if (window.ended or not strict) and run.tool_name in (None, window.name):
                return engine, window.parent_message_id or None
        held = _history_holder(self.root, run.call_id)
        if held is not None and (id(self.root), run.call_id) not in self.bound:
            return self.root, held
        return None

    def _start(
        self, run: SubagentRun, parent_engine: OpenAIToAGUITranslator, parent_message: str | None
    ) -> Events:
        child = self.root.new_subagent_engine()
        run.engine, run.parent_engine = child, parent_engine
        run.parent = self.by_engine.get(id(parent_engine))
        run.subagent_run_id = new_id("subagent")
        run.started = True
        self.running.append(run)
        self.by_engine[id(child)] = run
        if run.call_id is not None and parent_message is not None:
            self.bound.add((id(parent_engine), run.call_id))
        if self.shown:
            slot = SubagentSlot(run.subagent_run_id, child.book.produced)
            parent_engine.book.produced.append(slot)
        out: Events = [
            SubagentStartedEvent(
                subagent_run_id=run.subagent_run_id,
                name=str(getattr(run.agent, "name", None) or run.tool_name or "subagent"),
                description=_description(run, parent_engine),
                parent_subagent_run_id=run.parent.subagent_run_id if run.parent else None,
                parent_tool_call_id=run.call_id if parent_message is not None else None,
                parent_message_id=parent_message,
            )
        ]
        while run.backlog and not run.closed:
            out += self._translate(run, run.backlog.popleft())
        return out

    # Translation ------------------------------------------------------------------------------

    def _translate(self, run: SubagentRun, event: StreamEvent) -> Events:
        """Translate one nested event with the run's engine and tag what it made."""
        assert run.engine is not None
        run.observe(event)
        return _tag(run.engine.translate(event), run.subagent_run_id)

    # Closing ----------------------------------------------------------------------------------

    def close_for_call(
        self, engine: OpenAIToAGUITranslator, call_id: str, result: str | None
    ) -> Events:
        """Before the result of ``call_id`` (streamed by ``engine``): close its subagent runs."""
        if self.idle:
            return []
        out = self.intake()
        for run in [r for r in self.running if r.parent_engine is engine and r.call_id == call_id]:
            failure = run.failure(result)
            out += self._close(run, None if failure is None else (failure, "tool_failed"))
        return self._emit(out)

    def close_under(self, engine: OpenAIToAGUITranslator, reason: CloseReason) -> Events:
        """Close every subagent run spawned by ``engine`` (and theirs), as its run ends."""
        if self.idle:
            return []
        out = self.intake()
        if engine is self.root and self.waiting:
            out += self._start_waiting(strict=False)
        for run in [r for r in self.running if r.parent_engine is engine]:
            out += self._close(run, _CLOSED_WITH_RUN[reason])
        return self._emit(out)

    def _close(self, run: SubagentRun, error: tuple[str, str] | None) -> Events:
        if run.closed:
            return []
        assert run.engine is not None
        out: Events = []
        while run.backlog:
            out += self._translate(run, run.backlog.popleft())
        run.closed = True
        for inner in [r for r in self.running if r.parent is run]:
            out += self._close(inner, error or _CLOSED_WITH_RUN["unfinished"])
        out += _tag(run.engine.finish(), run.subagent_run_id)
        self.running.remove(run)
        if error is None:
            out.append(SubagentFinishedEvent(subagent_run_id=run.subagent_run_id))
        else:
            message, code = error
            out.append(
                SubagentErrorEvent(subagent_run_id=run.subagent_run_id, message=message, code=code)
            )
        return out


def _tag(events: Events, subagent_run_id: str) -> Events:
    """Attribute events to a subagent run (events of deeper runs keep their own id)."""
    for event in events:
        if getattr(event, "subagent_run_id", subagent_run_id) is None:
            event.subagent_run_id = subagent_run_id  # type: ignore[attr-defined]
    return events


def _description(run: SubagentRun, parent_engine: OpenAIToAGUITranslator) -> str | None:
    """The agent's handoff description, else the description of the tool that runs it."""
    own = getattr(run.agent, "handoff_description", None)
    if own:
        return str(own)
    for tool in getattr(parent_engine.current_agent, "tools", None) or []:
        if getattr(tool, "name", None) == run.tool_name and getattr(tool, "description", None):
            return str(tool.description)
    return None


def _history_holder(root: OpenAIToAGUITranslator, call_id: str) -> str | None:
    """The id of the request's assistant message holding ``call_id`` (a resumed call)."""
    for message in root.run_input.messages:
        for call in getattr(message, "tool_calls", None) or []:
            if call.id == call_id and getattr(message, "subagent_run_id", None) is None:
                return str(message.id)
    return None
