"""A long answer to cut, join and resume: the server side of the reconnecting-client tests.

:func:`long_answer_app` serves ``/agent`` with a thread store (runs belong to the server) and
a scripted model that answers every turn with :data:`LONG_ANSWER`, one word a delta. With a
``hold_after`` count, each model call stops after that many text deltas until the test opens
:attr:`HeldModel.gate`, so a test knows the run is live (a reload joins it, a stop finds it)
without depending on timing; :attr:`HeldModel.reached` tells it the run got there.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, RunConfig
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import ThreadStore

from .http import app_with
from .partial_turns import GUARD_SECONDS
from .scripted import RecordedCall, ScriptedProvider, ScriptedResponsesModel, Text, Turn
from .threads import by_thread_id

__all__ = ["LONG_ANSWER", "HeldModel", "long_answer_app"]

LONG_ANSWER = " ".join(
    f"Part {n}: the tide comes in, the gulls circle the harbour and the boats rock."
    for n in range(1, 31)
)
"""About 450 words: a stream of several kilobytes, cut many times by a small byte cap."""

_TEXT_DELTA = "response.output_text.delta"


class HeldModel(ScriptedResponsesModel):
    """Answers :data:`LONG_ANSWER`; with ``hold_after``, waits at that delta for :attr:`gate`."""

    def __init__(self, hold_after: int | None) -> None:
        super().__init__(self._answer, model_name="long-answer")
        self.hold_after = hold_after
        self.gate = threading.Event()
        self.reached = threading.Event()

    @staticmethod
    def _answer(call: RecordedCall) -> Turn:
        return Turn([Text(LONG_ANSWER)])

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        seen = 0
        async for event in super().stream_response(*args, **kwargs):
            yield event
            if event.type != _TEXT_DELTA:
                continue
            seen += 1
            if seen == self.hold_after:
                self.reached.set()
                await asyncio.to_thread(self.gate.wait, GUARD_SECONDS)


def long_answer_app(
    store: ThreadStore, *, hold_after: int | None = None, path: str = "/agent"
) -> tuple[FastAPI, HeldModel]:
    """An app serving the long answer at ``path`` with ``store``, and its model."""
    model = HeldModel(hold_after)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = Agent(name="Storyteller", instructions="Tell the story.")
    wrapper = OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)
    return app_with(wrapper, path), model
