"""A request with nothing to answer: no message and no resume entry.

Pages send one when they load or connect (a reloaded page asking for its thread, a CopilotKit
page on the AG-UI Dojo). An example that keeps threads answers it from its store without
calling the model (a hydration). A stateless one would otherwise run the model on an empty
conversation: an assistant turn nobody asked for would appear (on the document editor, a
whole document written into the page) while the person is typing their first message. The
stateless examples answer it here instead, as a hydration of a thread with nothing in it: the
messages the request holds (none), its own state, and no model call.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
)
from ag_ui_openai_agents import OpenAIAgentsAgent

__all__ = ["StatelessAgent", "answer_nothing", "asks_nothing"]


def asks_nothing(run_input: RunAgentInput) -> bool:
    """Whether a request has nothing to answer: no message, no resume entry."""
    return not run_input.messages and not run_input.resume


def answer_nothing(run_input: RunAgentInput) -> list[BaseEvent]:
    """The answer to a request with nothing to answer: its own state back, no messages."""
    return [
        RunStartedEvent(
            thread_id=run_input.thread_id,
            run_id=run_input.run_id,
            parent_run_id=run_input.parent_run_id,
            protocol_version=PROTOCOL_VERSION,
        ),
        StateSnapshotEvent(snapshot=run_input.state if run_input.state is not None else {}),
        MessagesSnapshotEvent(messages=[]),
        RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
    ]


class StatelessAgent(OpenAIAgentsAgent):
    """The wrapper without a thread store, answering a request with nothing to answer
    without calling the model (:func:`answer_nothing`)."""

    async def run_streamed(
        self, run_input: RunAgentInput, *, request: Any = None
    ) -> AsyncGenerator[BaseEvent, None]:
        """One run; a request with nothing to answer gets :func:`answer_nothing`."""
        if self.threads is None and asks_nothing(run_input):
            for event in answer_nothing(run_input):
                yield event
            return
        async for event in super().run_streamed(run_input, request=request):
            yield event
