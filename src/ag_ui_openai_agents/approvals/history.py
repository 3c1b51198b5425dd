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
    reuses call ids across turns still pairs each result with the right call.
    """
    pending: list[HistoryCall] = []
    for index, message in enumerate(messages):
        if message.subagent_run_id is not None:
            continue  # a subagent's own calls: its agent tool answered for it
        if isinstance(message, AssistantMessage):
            pending.extend(
                HistoryCall(index, tc.id, tc.function.name, tc.function.arguments)
                for tc in message.tool_calls or []
            )
        elif isinstance(message, ToolMessage):
            for position in range(len(pending) - 1, -1, -1):
                if pending[position].call_id == message.tool_call_id:
                    del pending[position]
                    break
    return pending


def answers_call(entry: ResumeEntry, call_id: str) -> bool:
    """Tell whether a resume entry names ``call_id``: plainly, or with a signature appended."""
    return entry.interrupt_id == call_id or split_interrupt_id(entry.interrupt_id)[0] == call_id


def entry_for(
    call: HistoryCall, calls: Sequence[HistoryCall], resume: Sequence[ResumeEntry] | None
) -> ResumeEntry | None:
    """Return the resume entry answering ``call``, if any.

    An entry answers the latest open call with its id (the one the last run paused on); an
    earlier open call reusing that id waits for a later request. Of several entries for one
    call, the last counts.
    """
    latest = [c for c in calls if c.call_id == call.call_id][-1]
    if latest is not call:
        return None
    entries = [e for e in resume or [] if answers_call(e, call.call_id)]
    return entries[-1] if entries else None


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
