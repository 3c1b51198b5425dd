"""Internal: what a run showed its client, gathered from its events, as the thread to store.

The stored thread is exactly what the client was shown: the messages of the run's
MESSAGES_SNAPSHOT (the ids it streamed), the last state it sent (STATE_SNAPSHOT, with the
STATE_DELTA patches after it applied), and the interrupts of its RUN_FINISHED.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    StateDeltaEvent,
    StateSnapshotEvent,
    ToolCallResultEvent,
    ToolMessage,
)

from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.history import open_calls
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE
from ag_ui_openai_agents.approvals.verify import APPROVAL_DENIED_CODE, APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.threads.record import StoredThread, insert_results

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

    def see(self, event: BaseEvent) -> None:
        """Take what ``event`` tells the client about the thread."""
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
        elif isinstance(event, RunErrorEvent) and event.code in NOTHING_RAN_CODES:
            self.refused = True

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

    def after_failure(self, before: StoredThread, claimed: list[str]) -> StoredThread:
        """The thread after a run that failed or was cut short while answering ``claimed``.

        The history stays as it was stored, with the results of the claimed calls the run
        reported. A claimed call without a reported result stays claimed (it may have run, and
        is answered INTERRUPTED next time), unless the resume ran nothing (approvals refused or
        not authorised, an invalid answer, a request over the resume limits): then the calls
        are still paused.
        """
        answered = {c: self.results[c] for c in claimed if c in self.results}
        kept = [] if self.refused else [c for c in claimed if c not in answered]
        messages = insert_results(list(before.messages), answered)
        return StoredThread(
            messages=messages,
            state=before.state,
            interrupts=[i for i in before.interrupts if (i.tool_call_id or i.id) not in answered],
            client_calls=list(before.client_calls),
            claimed=kept,
        )
