"""Detached runs driven over HTTP: a model held at a gate, SSE read with its ids, and a client
that leaves, reattaches, joins and stops.

:class:`GatedModel` streams its scripted turns through the real runner and, at the point its
:class:`~support.partial_turns.Stall` names, waits until the test opens its gate (a
``threading.Event``: the server runs in another thread): so the test knows exactly what the
run streamed before the client left, and the run still completes after it left. Nothing
depends on timing: every wait is for an event, bounded by ``GUARD_SECONDS`` only for a broken
test.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from ag_ui.core import BaseEvent, Message, MessagesSnapshotEvent, RunAgentInput
from agents import RunConfig

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import ThreadStore
from support.invariants import parse_sse
from support.partial_turns import Stall, StallingModel, Tools, body, opened
from support.scripted import ScriptedProvider, Turn
from support.threads import by_thread_id


class GatedModel(StallingModel):
    """A scripted model that waits at its :class:`Stall` until :attr:`gate` is opened."""

    def __init__(self, turns: Sequence[Turn], stall: Stall | None) -> None:
        super().__init__(turns, stall, model_name="gated")
        self.gate = threading.Event()
        self.reached = threading.Event()

    async def hold(self) -> None:
        self.reached.set()
        await opened(self.gate)


def gated_wrapper(
    turns: Sequence[Turn], stall: Stall | None, store: ThreadStore, tools: Tools | None = None
) -> tuple[OpenAIAgentsAgent, GatedModel]:
    model = GatedModel(turns, stall)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = (tools or Tools()).agent()
    wrapper = OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)
    return wrapper, model


@dataclass
class Sse:
    """One SSE event as sent: its ``id`` (None when it had none) and the event."""

    id: str | None
    event: BaseEvent


def parse_blocks(text: str) -> list[Sse]:
    """The events of SSE text with their ids (comments skipped)."""
    found: list[Sse] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        ident = None
        for line in block.split("\n"):
            if line.startswith("id:"):
                ident = line[3:].strip()
        events = parse_sse(f"{block}\n\n")
        found += [Sse(ident, event) for event in events]
    return found


def events_of(blocks: Sequence[Sse]) -> list[BaseEvent]:
    return [block.event for block in blocks]


def type_names(blocks: Sequence[Sse]) -> list[str]:
    return [block.event.type.value for block in blocks]


async def read_until(
    client: httpx.AsyncClient,
    payload: dict[str, Any],
    leave_after: str,
    count: int = 1,
    headers: dict[str, str] | None = None,
) -> list[Sse]:
    """POST the run, read until the ``count``-th event of type ``leave_after``, then drop the
    connection (the response is closed unread)."""
    seen: list[Sse] = []
    text = ""
    async with client.stream("POST", "/agent", json=payload, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        async for chunk in response.aiter_text():
            text += chunk
            whole, _, text = text.rpartition("\n\n")
            if whole:
                seen += parse_blocks(f"{whole}\n\n")
            if sum(1 for b in seen if b.event.type.value == leave_after) >= count:
                break
    return seen


async def read_all(
    client: httpx.AsyncClient, payload: dict[str, Any], headers: dict[str, str] | None = None
) -> list[Sse]:
    """POST the run and read its whole stream."""
    response = await client.post("/agent", json=payload, headers=headers)
    assert response.status_code == 200, response.text
    return parse_blocks(response.text)


def payload(run_input: RunAgentInput) -> dict[str, Any]:
    return body(run_input)


def snapshot_messages(blocks: Sequence[Sse]) -> list[Message]:
    (snapshot,) = [b.event for b in blocks if isinstance(b.event, MessagesSnapshotEvent)][-1:]
    return list(snapshot.messages)
