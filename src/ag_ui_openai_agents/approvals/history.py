"""Internal: the conversation side of resuming approvals: open calls, answers, results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ag_ui.core import AssistantMessage, Message, ResumeEntry, ToolMessage

from ag_ui_openai_agents.approvals.signing import split_interrupt_id


@dataclass(frozen=True)
class HistoryCall:
    """One assistant tool call of the history, with where it sits."""

    message_index: int
    """Position of the assistant message holding the call."""
    call_id: str
    """The call's id."""
    name: str
    """The tool name the call names."""
    arguments: str
    """The call's arguments, as the history holds them."""


def open_calls(messages: Sequence[Message]) -> list[HistoryCall]:
    """Return the history's tool calls that no tool message answers, in order.

    A tool message answers the nearest earlier unanswered call with its id, so a provider that
    reuses call ids across turns still pairs each result with the right call. Linear in the
    history: the unanswered calls of each id are kept on a stack of their own.
    """
    calls: list[HistoryCall] = []
    answered: list[bool] = []
    unanswered: dict[str, list[int]] = {}
    for index, message in enumerate(messages):
        if message.subagent_run_id is not None:
            continue  # a subagent's own calls: its agent tool answered for it
        if isinstance(message, AssistantMessage):
            for tc in message.tool_calls or []:
                unanswered.setdefault(tc.id, []).append(len(calls))
                calls.append(HistoryCall(index, tc.id, tc.function.name, tc.function.arguments))
                answered.append(False)
        elif isinstance(message, ToolMessage):
            stack = unanswered.get(message.tool_call_id)
            if stack:
                answered[stack.pop()] = True
    return [call for call, done in zip(calls, answered, strict=True) if not done]


def answers_call(entry: ResumeEntry, call_id: str) -> bool:
    """Tell whether a resume entry names ``call_id``: plainly, or with a signature appended."""
    return entry.interrupt_id == call_id or split_interrupt_id(entry.interrupt_id)[0] == call_id


def entry_call_ids(entry: ResumeEntry) -> tuple[str, ...]:
    """The call ids a resume entry may name: its ``interruptId``, and the call id before a
    signature when it carries one (see :func:`answers_call`)."""
    plain = split_interrupt_id(entry.interrupt_id)[0]
    return (entry.interrupt_id,) if plain == entry.interrupt_id else (entry.interrupt_id, plain)


class ResumeIndex:
    """The open calls and the resume entries of one request, looked up by call id.

    Built in one pass over each (no entry is compared with every call): an entry answers the
    latest open call with its id (the one the last run paused on), an earlier open call reusing
    that id waits for a later request, and of several entries for one call the last counts.
    """

    def __init__(self, calls: Sequence[HistoryCall], resume: Sequence[ResumeEntry]) -> None:
        self._latest: dict[str, HistoryCall] = {call.call_id: call for call in calls}
        self._entries: dict[str, ResumeEntry] = {}
        self.unmatched: list[ResumeEntry] = []
        """The entries that name no open call, in request order."""
        for entry in resume:
            ids = entry_call_ids(entry)
            for call_id in ids:
                self._entries[call_id] = entry
            if not any(call_id in self._latest for call_id in ids):
                self.unmatched.append(entry)

    def entry_for(self, call: HistoryCall) -> ResumeEntry | None:
        """Return the resume entry answering ``call``, if any."""
        if self._latest.get(call.call_id) is not call:
            return None
        return self._entries.get(call.call_id)


def insert_results(
    messages: Sequence[Message], answers: dict[int, list[ToolMessage]]
) -> list[Message]:
    """Insert each answer right after the block (assistant message and its results) of its call."""
    merged: list[Message] = []
    waiting: list[ToolMessage] = []
    for index, message in enumerate(messages):
        if waiting and not isinstance(message, ToolMessage):
            merged.extend(waiting)
            waiting = []
        merged.append(message)
        waiting.extend(answers.get(index, []))
    merged.extend(waiting)
    return merged
