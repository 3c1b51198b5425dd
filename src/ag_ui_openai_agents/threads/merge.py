"""Internal: the trusted request of a thread kept on the server (a pure function).

The store's history is the truth. What the client sends is sorted as follows:

* a message whose id the store holds is taken from the store (an edit never reaches the model);
* after the last message the store holds, a new user message is accepted, and so is a tool
  message answering a client tool call the server handed to the client and still waits for;
* everything else the client claims (assistant turns, tool calls, reasoning, results of calls
  the server never handed out, messages slipped in before known ones) is ignored, as are system
  and developer messages: the agent's instructions and the AG-UI context (appended to them per
  request) are where a turn's instructions come from;
* a resume entry is accepted only for an approval the thread is paused on.

A call whose answer a request claimed but whose result never reached the store (the server
stopped in between) is answered :data:`INTERRUPTED_RESULT`, so it never runs twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    Message,
    ResumeEntry,
    RunAgentInput,
    ToolMessage,
    UserMessage,
)

from ag_ui_openai_agents.approvals.signing import split_interrupt_id
from ag_ui_openai_agents.protocol import result_message_id
from ag_ui_openai_agents.threads.record import StoredThread, insert_results

INTERRUPTED_RESULT = "INTERRUPTED"
"""Result of an approved call whose run was cut short before its result was stored: the tool
may or may not have run, and it is not run again."""


@dataclass(frozen=True)
class Ignored:
    """Something the client sent that the server did not take."""

    kind: str
    """``message`` or ``resume``."""
    ident: str
    """The message id, or the resume entry's interrupt id."""
    reason: str


@dataclass(frozen=True)
class Merged:
    """The request the run answers, and what was taken from the client."""

    run_input: RunAgentInput
    """The trusted request: the store's history, then the accepted new messages."""
    new_messages: list[str] = field(default_factory=list)
    """Ids of the client's messages accepted as new."""
    resume: list[ResumeEntry] = field(default_factory=list)
    """The accepted resume entries."""
    claimed: list[str] = field(default_factory=list)
    """Call ids those entries answer (recorded before anything runs)."""
    ignored: list[Ignored] = field(default_factory=list)
    repaired: bool = False
    """Whether interrupted calls were answered (the stored history changed)."""

    @property
    def hydrate(self) -> bool:
        """Nothing new to run: answer with the stored thread and call no model."""
        return not self.new_messages and not self.resume


def merge(stored: StoredThread | None, run_input: RunAgentInput) -> Merged:
    """The trusted request of ``run_input`` for a thread whose stored record is ``stored``
    (None: a thread the store does not know)."""
    thread = stored if stored is not None else StoredThread()
    history, repaired = _repaired(thread)
    known = {message.id: message for message in history}
    ignored: list[Ignored] = []
    new = _new_messages(run_input.messages, known, thread, ignored)
    resume, claimed = _resume_entries(run_input.resume, thread, ignored)
    hydrate = not new and not resume
    # A reload gets the stored state back; a turn takes the client's (the page may have
    # changed it). A thread with no stored state keeps the client's either way: answering a
    # page's first request with {} would wipe the state the page set before its first message.
    stored_state = stored.state if stored is not None else None
    if stored_state is not None and (hydrate or run_input.state is None):
        state = stored_state
    else:
        state = run_input.state
    trusted = run_input.model_copy(
        update={
            "messages": [*history, *new],
            "resume": resume or None,
            "state": state if state is not None else {},
        }
    )
    return Merged(trusted, [m.id for m in new], resume, claimed, ignored, repaired)


def _repaired(thread: StoredThread) -> tuple[list[Message], bool]:
    """The stored history with an INTERRUPTED result for each claimed call left unanswered."""
    answered = {m.tool_call_id for m in thread.messages if isinstance(m, ToolMessage)}
    lost = [call_id for call_id in thread.claimed if call_id not in answered]
    if not lost:
        return list(thread.messages), False
    taken = {m.id for m in thread.messages}
    results = {
        call_id: ToolMessage(
            id=result_message_id(call_id, taken), tool_call_id=call_id, content=INTERRUPTED_RESULT
        )
        for call_id in lost
    }
    return insert_results(thread.messages, results), True


def _new_messages(
    sent: Sequence[Message],
    known: dict[str, Message],
    thread: StoredThread,
    ignored: list[Ignored],
) -> list[Message]:
    """The client's messages after the last one the store holds, those the server accepts."""
    last_known = max((i for i, m in enumerate(sent) if m.id in known), default=-1)
    waiting = set(thread.client_calls)
    new: list[Message] = []
    taken: set[str] = set()
    for index, message in enumerate(sent):
        if message.id in known:
            if _said(message) != _said(known[message.id]):
                ignored.append(Ignored("message", message.id, "edits a stored message"))
            continue
        reason = _refusal(message, index < last_known, waiting, taken)
        if reason is not None:
            ignored.append(Ignored("message", message.id, reason))
            continue
        taken.add(message.id)
        if isinstance(message, ToolMessage):
            waiting.discard(message.tool_call_id)
        new.append(message)
    return new


def _refusal(
    message: Message, before_known: bool, waiting: set[str], taken: set[str]
) -> str | None:
    """Why a message the store does not hold is not taken (None: it is taken)."""
    if message.id in taken:
        return "repeats an id"
    if before_known:
        return "claims a place before stored messages"
    if isinstance(message, UserMessage):
        return None
    if isinstance(message, ToolMessage):
        if message.tool_call_id in waiting:
            return None
        return "answers a call the server is not waiting on the client for"
    return f"a client's {message.role} message is not taken into a stored thread"


def _resume_entries(
    entries: Sequence[ResumeEntry] | None, thread: StoredThread, ignored: list[Ignored]
) -> tuple[list[ResumeEntry], list[str]]:
    """The entries answering an approval the thread is paused on, and the calls they answer."""
    paused: dict[str, str] = {}
    for interrupt in thread.interrupts:
        call_id = interrupt.tool_call_id or interrupt.id
        if call_id not in thread.claimed:
            paused[interrupt.id] = paused[call_id] = call_id
    accepted: list[ResumeEntry] = []
    claimed: list[str] = []
    for entry in entries or []:
        answered = paused.get(entry.interrupt_id) or paused.get(
            split_interrupt_id(entry.interrupt_id)[0]
        )
        if answered is None:
            ignored.append(Ignored("resume", entry.interrupt_id, "no such paused approval"))
            continue
        accepted.append(entry)
        if answered not in claimed:
            claimed.append(answered)
    return accepted, claimed


def _said(message: Message) -> Any:
    """What a message says to the model: its role, content, tool calls and answered call (a
    client dropping or adding other fields, such as metadata, is not an edit)."""
    calls = getattr(message, "tool_calls", None) or []
    content = getattr(message, "content", None)
    return (
        message.role,
        [p.model_dump(mode="json") for p in content] if isinstance(content, list) else content,
        [(c.id, c.function.name, c.function.arguments) for c in calls],
        getattr(message, "tool_call_id", None),
    )
