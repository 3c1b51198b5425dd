"""The subagent rules of the AG-UI stream checker.

:class:`_SubagentRules` follows every SUBAGENT_* event and every event attributed to a subagent
(``subagent_run_id``) of one run, for :class:`~support.invariants_checker._Checker`:

* a subagent is started once, before any event carries its id, and nothing carries the id of a
  subagent that is unknown or already closed;
* its parent subagent (``parent_subagent_run_id``) is running; its parent tool call
  (``parent_tool_call_id``) was streamed before, START to END, by that parent (or is in the
  request's history), has no result yet, and sits in ``parent_message_id``;
* it is closed once, after its own windows and its nested subagents, and before the result of
  its parent tool call and before the terminal event (RUN_ERROR here; RUN_FINISHED in the checker);
* every event of a window carries the attribution of the window's START;
* in the messages snapshot, what a subagent streamed carries its id, what the parent agent
  streamed carries none, and a subagent's messages sit between the assistant message holding
  its parent call and that call's result (unless that call is in the request's history).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    ToolMessage,
)

if TYPE_CHECKING:
    from .invariants_checker import _Checker

_SUBAGENT_EVENTS = {
    EventType.SUBAGENT_STARTED,
    EventType.SUBAGENT_FINISHED,
    EventType.SUBAGENT_ERROR,
}


@dataclass
class _Subagent:
    """One subagent run as the stream told it."""

    ident: str
    parent: str | None
    parent_call: str | None
    active: bool = True
    children: list[str] = field(default_factory=list)


class _SubagentRules:
    """Subagent state of one stream (see the module docstring for the rules)."""

    def __init__(self, checker: _Checker) -> None:
        self.checker, self.require = checker, checker.require
        self.runs: dict[str, _Subagent] = {}
        self.by_call: dict[str, str] = {}

    def active(self) -> list[str]:
        return [ident for ident, run in self.runs.items() if run.active]

    def attribution(self, event: BaseEvent) -> str | None:
        """Check that an attributed event belongs to a running subagent; return its id."""
        ident: str | None = getattr(event, "subagent_run_id", None)
        if ident is None or event.type in _SUBAGENT_EVENTS:
            return None
        run = self.runs.get(ident)
        name = event.type.value
        self.require(run is not None, "subagent-unknown", f"{name} names unknown {ident!r}")
        assert run is not None
        self.require(run.active, "subagent-closed", f"{name} names closed subagent {ident!r}")
        return ident

    def same_owner(self, where: str, owner: str | None, opener: str | None) -> None:
        ok = owner == opener
        self.require(
            ok, "subagent-attribution-mismatch", f"{where}: {owner!r}, opened by {opener!r}"
        )

    def started(self, event: SubagentStartedEvent) -> None:
        ident, parent = event.subagent_run_id, event.parent_subagent_run_id
        if parent is not None:
            ok = parent in self.runs and self.runs[parent].active
            self.require(ok, "subagent-parent-not-active", f"{ident!r} under {parent!r}")
            self.runs[parent].children.append(ident)
        call = event.parent_tool_call_id
        if call is not None:
            self._parent_call(event, call, parent)
            self.by_call[call] = ident
        self.runs[ident] = _Subagent(ident, parent, call)

    def _parent_call(self, event: SubagentStartedEvent, call: str, parent: str | None) -> None:
        checker = self.checker
        win = checker.windows.get(("tool call", call))
        if win is None:
            known = call in checker.history.calls
            self.require(known, "subagent-parent-call-unknown", f"call {call!r} never streamed")
            return
        self.require(not win.is_open, "subagent-parent-call-open", f"call {call!r} still open")
        self.same_owner(f"parent call {call!r}", parent, win.subagent)
        fresh = call not in checker.answered
        self.require(fresh, "subagent-parent-call-answered", f"call {call!r} has a result")
        ok = event.parent_message_id in (None, win.parent)
        self.require(ok, "subagent-parent-message-mismatch", f"{call!r} sits in {win.parent!r}")

    def closed(self, event: SubagentFinishedEvent | SubagentErrorEvent) -> None:
        run = self.runs.get(event.subagent_run_id)
        if run is None or not run.active:
            return  # the checker reports it as subagent-not-active
        still = [c for c in run.children if self.runs[c].active]
        self.require(not still, "subagent-closed-before-children", f"running: {still}")
        own = [key for key in self.checker.open if self.checker.windows[key].subagent == run.ident]
        self.require(not own, "subagent-closed-open-windows", f"open: {own}")
        run.active = False

    def result(self, call: str) -> None:
        ident = self.by_call.get(call)
        ok = ident is None or not self.runs[ident].active
        self.require(ok, "subagent-open-at-result", f"{ident!r} runs while {call!r} is answered")

    def terminal(self, event: BaseEvent) -> None:
        running = self.active()
        ok = not running
        self.require(ok, "run-error-open-subagents", f"{event.type.value} with running {running}")

    # ---- snapshot

    def snapshot(self, messages: list[Any], streamed: dict[str, str | None]) -> None:
        """Attribution and placement of the snapshot's messages (``streamed``: id -> owner)."""
        position = {message.id: index for index, message in enumerate(messages)}
        for message in messages:
            owner = getattr(message, "subagent_run_id", None)
            if message.id in streamed:
                expected = streamed[message.id]
                ok = owner == expected
                detail = f"{message.id!r} carries {owner!r}, streamed by {expected!r}"
                self.require(ok, "snapshot-subagent-attribution", detail)
            if owner is None or owner not in self.runs:
                continue
            self._placed(message, self.runs[owner], messages, position)

    def _placed(
        self, message: Any, run: _Subagent, messages: list[Any], position: dict[str, int]
    ) -> None:
        call = run.parent_call
        if call is None or call in self.checker.history.calls:
            return  # a resumed call: its result is already in the history, before the run
        holder = next(
            (i for i, m in enumerate(messages)
             if call in {c.id for c in getattr(m, "tool_calls", None) or []}),
            None,
        )  # fmt: skip
        answer = next(
            (i for i, m in enumerate(messages)
             if isinstance(m, ToolMessage) and m.tool_call_id == call),
            len(messages),
        )  # fmt: skip
        here = position[message.id]
        ok = holder is not None and holder < here < answer
        detail = f"{message.id!r} of {run.ident!r} is not inside call {call!r}"
        self.require(ok, "snapshot-subagent-misplaced", detail)
