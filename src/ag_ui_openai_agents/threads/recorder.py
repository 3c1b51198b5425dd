"""Internal: what a run showed its client, gathered from its events, as the thread to store.

The stored thread is exactly what the client was shown: the messages of the run's
MESSAGES_SNAPSHOT (the ids it streamed), the last state it sent (STATE_SNAPSHOT, with the
STATE_DELTA patches after it applied), and the interrupts of its RUN_FINISHED. Until that
snapshot comes, :class:`StreamedTurn` builds the run's messages from the stream as its client
does, for a run cut short before it ends (:mod:`.partial`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)

from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.history import open_calls
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE
from ag_ui_openai_agents.approvals.verify import APPROVAL_DENIED_CODE, APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.threads.record import StoredThread

NOTHING_RAN_CODES = frozenset(
    {APPROVAL_REFUSED_CODE, APPROVAL_DENIED_CODE, INVALID_APPROVAL_CODE, RESUME_LIMIT_CODE}
)
"""RUN_ERROR codes of a resume that ran nothing: its claimed calls are still paused."""


class Recorder:
    """Watches one run's events."""

    def __init__(self, run_input: RunAgentInput) -> None:
        self.run_input = run_input
        self.state: Any = run_input.state
        self.messages: list[Message] | None = None
        self.interrupts: list[Interrupt] = []
        self.results: dict[str, ToolMessage] = {}
        self.refused = False
        self.failed = False
        """Whether the run ended with a RUN_ERROR."""
        self.streamed = StreamedTurn()
        """The run's own messages, as streamed so far."""

    def see(self, event: BaseEvent) -> None:
        """Take what ``event`` tells the client about the thread."""
        self.streamed.see(event)
        if isinstance(event, StateSnapshotEvent):
            self.state = event.snapshot
        elif isinstance(event, StateDeltaEvent):
            operations = [op.model_dump(mode="json", by_alias=True) for op in event.delta]
            self.state = jsonpatch.apply_patch(self.state, operations)
        elif isinstance(event, MessagesSnapshotEvent):
            self.messages = list(event.messages)
        elif isinstance(event, ToolCallResultEvent):
            self.results.setdefault(
                event.tool_call_id,
                ToolMessage(
                    id=event.message_id, tool_call_id=event.tool_call_id, content=event.content
                ),
            )
        elif isinstance(event, RunFinishedEvent):
            outcome = event.outcome
            if isinstance(outcome, RunFinishedInterruptOutcome):
                self.interrupts = list(outcome.interrupts)
        elif isinstance(event, RunErrorEvent):
            self.failed = True
            self.refused = self.refused or event.code in NOTHING_RAN_CODES

    def thread(self) -> StoredThread:
        """The thread after a run that finished."""
        messages = self.messages if self.messages is not None else list(self.run_input.messages)
        paused = {i.tool_call_id or i.id for i in self.interrupts}
        client_names = {tool.name for tool in self.run_input.tools or []}
        waiting = [
            call.call_id
            for call in open_calls(messages)
            if call.call_id not in paused and call.name in client_names
        ]
        return StoredThread(
            messages=messages,
            state=self.state,
            interrupts=self.interrupts,
            client_calls=waiting,
        )


@dataclass
class _Call:
    """A tool call as streamed: its name, the argument fragments, whether it ended."""

    name: str
    args: list[str] = field(default_factory=list)
    ended: bool = False

    def arguments(self) -> str:
        """The streamed arguments; ``{}`` for a call cut short mid-way through them (a JSON
        fragment is no call's arguments, and some providers refuse to read one back)."""
        text = "".join(self.args)
        if self.ended:
            return text
        try:
            json.loads(text)
        except ValueError:
            return "{}"
        return text


@dataclass
class _Assistant:
    """An assistant message as streamed: its text fragments and calls."""

    message_id: str
    subagent_run_id: str | None
    chunks: list[str] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)

    def message(self) -> AssistantMessage | None:
        text = "".join(self.chunks)
        calls = [
            ToolCall(id=call_id, function=FunctionCall(name=call.name, arguments=call.arguments()))
            for call_id, call in self.calls.items()
        ]
        if not text and not calls:
            return None
        return AssistantMessage(
            id=self.message_id,
            content=text or None,
            tool_calls=calls or None,
            subagent_run_id=self.subagent_run_id,
        )


class StreamedTurn:
    """A run's own messages as its client builds them from the stream: assistant text and
    tool calls (joined to the message their ``parentMessageId`` names), and the results of
    those calls, each attributed to the subagent that made it. Reasoning is left out: it is
    replayed to the model only with the provider's ids, which a cut-short stream never
    confirms. Results of calls made before this run are :attr:`Recorder.results`."""

    def __init__(self) -> None:
        self._entries: list[_Assistant | ToolMessage] = []
        self._assistants: dict[str, _Assistant] = {}
        self._calls: dict[str, _Call] = {}

    @property
    def anything(self) -> bool:
        """Whether the run streamed a message of its own."""
        return bool(self._entries)

    def see(self, event: BaseEvent) -> None:
        """Take one event of the run."""
        if isinstance(event, TextMessageStartEvent):
            self._assistant(event.message_id, event.subagent_run_id)
        elif isinstance(event, TextMessageContentEvent):
            self._assistant(event.message_id, event.subagent_run_id).chunks.append(event.delta)
        elif isinstance(event, ToolCallStartEvent):
            parent = event.parent_message_id or event.tool_call_id
            call = self._calls[event.tool_call_id] = _Call(event.tool_call_name)
            self._assistant(parent, event.subagent_run_id).calls[event.tool_call_id] = call
        elif isinstance(event, ToolCallArgsEvent) and event.tool_call_id in self._calls:
            self._calls[event.tool_call_id].args.append(event.delta)
        elif isinstance(event, ToolCallEndEvent) and event.tool_call_id in self._calls:
            self._calls[event.tool_call_id].ended = True
        elif isinstance(event, ToolCallResultEvent) and event.tool_call_id in self._calls:
            result = ToolMessage(
                id=event.message_id,
                tool_call_id=event.tool_call_id,
                content=event.content,
                subagent_run_id=event.subagent_run_id,
            )
            self._entries.append(result)

    def messages(self) -> list[Message]:
        """The messages streamed so far, in the order the client made them."""
        out: list[Message] = []
        for entry in self._entries:
            message = entry.message() if isinstance(entry, _Assistant) else entry
            if message is not None:
                out.append(message)
        return out

    def _assistant(self, message_id: str, subagent_run_id: str | None) -> _Assistant:
        assistant = self._assistants.get(message_id)
        if assistant is None:
            assistant = self._assistants[message_id] = _Assistant(message_id, subagent_run_id)
            self._entries.append(assistant)
        return assistant
