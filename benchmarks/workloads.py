"""Benchmark workloads: real ``Runner.run_streamed`` runs on the scripted model, recorded.

Each workload runs the real SDK runner once, offline, and keeps every SDK stream event it
yields in memory. The throughput benchmarks replay those events afterwards, so the timed
part contains neither the model nor the runner.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agents import Agent, function_tool, handoff
from agents.stream_events import StreamEvent

from ._support import scripted

__all__ = [
    "Workload",
    "handoff_chain",
    "long_answer",
    "record",
    "replay",
    "tool_turns",
]

_FILLER = (
    "the adapter streams every token of the answer to the client as soon as the model "
    "produces it while keeping ids order and snapshots consistent across long runs"
)
_WORDS = _FILLER.split()


@dataclass(frozen=True)
class Workload:
    """A named scripted run: the agent, its scripted turns and how many turns it may take."""

    name: str
    agent: Agent[Any]
    turns: Callable[[], list[Any]]
    max_turns: int = 10
    text_chars: int = 0
    """Characters of assistant text the run streams (for the memory ratio)."""
    deltas: int | None = None
    """For a single long answer: how many text deltas stream it."""


def words(count: int, offset: int = 0) -> str:
    """``count`` words of filler text (about 5.6 characters per word with its space)."""
    cycle = itertools.islice(itertools.cycle(_WORDS), offset, offset + count)
    return " ".join(cycle)


def long_answer(deltas: int) -> Workload:
    """One assistant message streamed as ``deltas`` text deltas."""
    sc = scripted()
    text = words(deltas)
    agent: Agent[Any] = Agent(name="writer", instructions="Write at length.")
    return Workload(
        name=f"long answer, {deltas:,} deltas",
        agent=agent,
        turns=lambda: [sc.Turn(items=[sc.Text(text, chunks=deltas)])],
        text_chars=len(text),
        deltas=deltas,
    )


@function_tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """The weather in a city."""
    return json.dumps({"city": city, "unit": unit, "temperature": 21, "sky": "clear"})


@function_tool
def search_docs(query: str, limit: int = 3) -> str:
    """Search the documentation."""
    return json.dumps([{"title": f"{query} #{n}", "score": 1.0 / (n + 1)} for n in range(limit)])


@function_tool
def convert_currency(amount: float, source: str, target: str) -> str:
    """Convert an amount between currencies."""
    return json.dumps({"amount": round(amount * 1.1, 2), "currency": target, "from": source})


def _tool_turn(sc: Any, index: int) -> Any:
    """Reasoning (two summary parts), text, then three calls; deltas are about one token each:
    a word of reasoning or text, eight characters of arguments."""
    reasoning = sc.Reasoning(summary=[words(24, index), words(16, index + 3)], encrypted="enc")
    calls = [
        sc.Call("get_weather", {"city": words(3, index), "unit": "celsius"}),
        sc.Call("search_docs", {"query": words(8, index), "limit": 2}),
        sc.Call("convert_currency", {"amount": 10.5 + index, "source": "EUR", "target": "USD"}),
    ]
    return sc.Turn(items=[reasoning, sc.Text(words(30, index)), *calls])


def tool_turns(turns: int = 50) -> Workload:
    """``turns`` model turns of reasoning summary, text and three parallel tool calls."""
    sc = scripted()
    agent: Agent[Any] = Agent(
        name="assistant",
        instructions="Use the tools.",
        tools=[get_weather, search_docs, convert_currency],
    )

    def script() -> list[Any]:
        steps = [_tool_turn(sc, n) for n in range(turns)]
        return [*steps, sc.Turn(items=[sc.Text(words(60))])]

    return Workload(
        name=f"{turns} turns: reasoning + 3 tool calls + text",
        agent=agent,
        turns=script,
        max_turns=turns + 5,
        text_chars=sum(len(words(30, n)) for n in range(turns)) + len(words(60)),
    )


def handoff_chain(agents: int = 6, handoffs: int = 18) -> Workload:
    """``agents`` agents in a ring, handing off ``handoffs`` times, each reasoning and saying
    something first (deltas of about one token, as in :func:`tool_turns`)."""
    sc = scripted()
    ring: list[Agent[Any]] = [Agent(name=f"specialist_{n}") for n in range(agents)]
    for index, current in enumerate(ring):
        current.handoffs = [handoff(ring[(index + 1) % agents])]
    tool_names = [handoff(ring[(n + 1) % agents]).tool_name for n in range(handoffs)]

    def script() -> list[Any]:
        steps = [
            sc.Turn(
                items=[
                    sc.Reasoning(summary=[words(20, n)]),
                    sc.Text(words(40, n)),
                    sc.Call(name, {"reason": words(6, n)}),
                ]
            )
            for n, name in enumerate(tool_names)
        ]
        return [*steps, sc.Turn(items=[sc.Text(words(80))])]

    return Workload(
        name=f"handoff chain, {agents} agents, {handoffs} handoffs",
        agent=ring[0],
        turns=script,
        max_turns=handoffs + 5,
        text_chars=sum(len(words(40, n)) for n in range(handoffs)) + len(words(80)),
    )


async def record(workload: Workload) -> list[StreamEvent]:
    """Run the workload once through the real runner and keep every SDK stream event."""
    sc = scripted()
    result, model = sc.run_streamed(
        workload.agent, "Begin.", turns=workload.turns(), max_turns=workload.max_turns
    )
    events = [event async for event in result.stream_events()]
    model.assert_consumed()
    return events


async def replay(events: Sequence[StreamEvent]) -> AsyncIterator[StreamEvent]:
    """Yield recorded events as a bare async iterator, like ``stream_events()`` does."""
    for event in events:
        yield event
