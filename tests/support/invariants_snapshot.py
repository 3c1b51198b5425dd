"""The snapshot rules of the AG-UI stream checker: the final messages against everything else.

:class:`_SnapshotCheck` compares a run's ``MESSAGES_SNAPSHOT`` with the request (every input
message kept, unchanged and in order) and with what the run streamed (text and reasoning
messages, tool calls in the right assistant message, tool results, encrypted values). It runs
after :class:`~support.invariants_checker._Checker` has seen the whole stream.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import AssistantMessage, ToolCall, ToolMessage
from pydantic import BaseModel

from .invariants_checker import REASONING, SPAN, TOOL, _Checker, _Window


def _plain(value: Any) -> Any:
    """A comparable JSON form of a message field (string, parts list or model)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _approved_edits(checker: _Checker) -> dict[str, Any]:
    """The ``editedArgs`` of the request's approving resume entries, by the call id answered
    (the interrupt id without its signature, when it has one)."""
    run_input = checker.run_input
    edits: dict[str, Any] = {}
    for entry in (run_input.resume or []) if run_input is not None else []:
        payload = entry.payload
        if entry.status != "resolved" or not isinstance(payload, dict):
            continue
        if payload.get("approved") is True and isinstance(payload.get("editedArgs"), dict):
            call_id = entry.interrupt_id.partition(".agui1.")[0] or entry.interrupt_id
            edits[call_id] = payload["editedArgs"]
    return edits


def _edited(message: Any, edits: dict[str, Any]) -> Any:
    """``message`` as the snapshot may restate it: its approved edited calls with the edits
    as their arguments (compact JSON, as the server writes them, unless equal to the model's)."""
    calls = getattr(message, "tool_calls", None) or []
    if not isinstance(message, AssistantMessage) or not any(c.id in edits for c in calls):
        return message
    changed = []
    for call in calls:
        if call.id in edits and _parsed(call.function.arguments) != edits[call.id]:
            text = json.dumps(edits[call.id], ensure_ascii=False, separators=(",", ":"))
            function = call.function.model_copy(update={"arguments": text})
            call = call.model_copy(update={"function": function})
        changed.append(call)
    return message.model_copy(update={"tool_calls": changed})


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class _SnapshotCheck:
    """Compare the messages snapshot with the request and with everything streamed."""

    def __init__(self, checker: _Checker, messages: list[Any], by_id: dict[str, Any]) -> None:
        self.checker, self.require = checker, checker.require
        self.messages, self.by_id = messages, by_id
        self.holders: dict[str, tuple[AssistantMessage, ToolCall]] = {}

    def run(self) -> None:
        self._input_kept()
        self._calls_and_answers()
        for (kind, ident), win in self.checker.windows.items():
            if kind == TOOL:
                self._tool_call(ident, win)
            elif kind != SPAN:
                self._message(kind, ident, win)
        self._results()
        self._encrypted()
        self.checker.subs.snapshot(self.messages, self._owners())

    def _owners(self) -> dict[str, str | None]:
        """Who streamed each message id of this run: a subagent's id, or None for the parent."""
        owners: dict[str, str | None] = {}
        for (kind, ident), win in self.checker.windows.items():
            if kind == TOOL and win.parent is not None:
                owners.setdefault(win.parent, win.subagent)
            elif kind != SPAN and kind != TOOL:
                owners[ident] = win.subagent
        for ident, event in self.checker.results.items():
            owners[ident] = event.subagent_run_id
        return owners

    def _input_kept(self) -> None:
        """Every input message, unchanged and in order; this run's results may sit among them.

        A resumed approval is answered right after its call, so its result can precede later
        input messages; nothing else may be inserted, and nothing sent may be lost. A call whose
        approval the request answered with ``editedArgs`` shows those arguments (the ones that
        ran, when it ran) and may differ from the request in that only.
        """
        sent = self.checker.history.messages
        edits = _approved_edits(self.checker)
        ids = [message.id for message in sent]
        results = {event.message_id for event in self.checker.results.values()}
        position = 0
        for message in self.messages:
            if position == len(sent):
                break
            if message.id == sent[position].id:
                ok = _plain(sent[position]) == _plain(message) or (
                    bool(edits) and _plain(_edited(sent[position], edits)) == _plain(message)
                )
                self.require(ok, "snapshot-input-changed", f"input message {message.id!r} altered")
                position += 1
                continue
            inserted = isinstance(message, ToolMessage) and message.id in results
            self.require(inserted, "snapshot-input-lost", f"input ids {ids}, found {message.id!r}")
        kept = ids[:position]
        self.require(position == len(sent), "snapshot-input-lost", f"input ids {ids}, kept {kept}")

    def _calls_and_answers(self) -> None:
        for message in self.messages:
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or []:
                    fresh = call.id not in self.holders
                    self.require(fresh, "snapshot-duplicate-tool-call", f"{call.id!r} repeats")
                    self.holders[call.id] = (message, call)
            elif isinstance(message, ToolMessage):
                ok = message.tool_call_id in self.holders
                self.require(ok, "snapshot-orphan-tool-message", f"{message.id!r} answers nothing")

    def _tool_call(self, ident: str, win: _Window) -> None:
        held = self.holders.get(ident)
        if held is None:
            self.checker.fail("snapshot-missing-tool-call", f"tool call {ident!r} is missing")
        message, call = held
        same = (call.function.name, call.function.arguments) == (win.name, win.text)
        self.require(same, "snapshot-tool-call-mismatch", f"tool call {ident!r} differs")
        ok = win.parent in (None, message.id)
        self.require(ok, "snapshot-tool-call-misplaced", f"{ident!r} sits in {message.id!r}")

    def _message(self, kind: str, ident: str, win: _Window) -> None:
        message = self.by_id.get(ident)
        if message is None:
            self.checker.fail("snapshot-missing-message", f"{kind} {ident!r} is missing")
        role = "reasoning" if kind == REASONING else win.role
        same = (message.role, message.content or "") == (role, win.text)
        self.require(same, "snapshot-message-mismatch", f"{kind} {ident!r} differs")

    def _results(self) -> None:
        for ident, event in self.checker.results.items():
            message = self.by_id.get(ident)
            if not isinstance(message, ToolMessage):
                self.checker.fail("snapshot-missing-tool-result", f"tool result {ident!r} missing")
            same = (message.tool_call_id, _plain(message.content)) == (
                event.tool_call_id,
                _plain(event.content),
            )
            self.require(same, "snapshot-tool-result-mismatch", f"tool result {ident!r} differs")

    def _encrypted(self) -> None:
        for (subtype, ident), value in self.checker.encrypted.items():
            if subtype == "tool-call" and (TOOL, ident) in self.checker.windows:
                target: Any = self.holders[ident][1]
            elif subtype == "message" and self.checker._streamed_message(ident):
                target = self.by_id[ident]
            else:
                continue
            ok = target.encrypted_value == value
            self.require(ok, "snapshot-encrypted-value-mismatch", f"{ident!r} lost its value")
