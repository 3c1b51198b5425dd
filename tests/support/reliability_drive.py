"""Driving the fault scenario through ``to_agui`` and checking what every case must hold.

:func:`drive` runs the scenario's agent on a :class:`FaultModel` with the real
``Runner.run_streamed``, translates the ``RunResultStreaming`` and checks: a valid stream (a
valid prefix when the consumer left), no task left behind, the SDK run complete, the model not
called after the stream ended, and usage that matches what the stream delivered.
:func:`clean_run` records the unbroken run once, for the positions the tests walk through.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from ag_ui.core import BaseEvent, RunErrorEvent, RunFinishedEvent, UserMessage
from agents import Agent, Runner
from agents.stream_events import RawResponsesStreamEvent

from ag_ui_openai_agents import AGUITranslator
from support.invariants import check_stream
from support.reliability_harness import settle_tasks
from support.reliability_scenario import (
    MODEL_NAME,
    TURN_USAGE,
    FaultModel,
    Pacer,
    Tools,
    clean_turns,
    delivered_usage,
    run_config,
)
from support.runs import check_prefix, request

__all__ = ["CASE_TIMEOUT", "RUN_INPUT", "Case", "CleanRun", "check_usage", "clean_run", "drive"]

RUN_INPUT = request(UserMessage(id="user-1", content="Weather and time in Paris?"))
ALL_INPUT = sum(u.input_tokens for u in TURN_USAGE)
ALL_OUTPUT = sum(u.output_tokens for u in TURN_USAGE)


# --------------------------------------------------------------------------- the clean run


@dataclass
class CleanRun:
    """Positions of the clean run's SDK stream."""

    kinds: list[str]
    raw: list[tuple[int, int, int]]
    """(position, model call, raw index within the call) for every raw event."""
    agui_count: int

    def item_starts(self, call: int) -> list[int]:
        """Positions of the ``output_item.added`` events of a call, then its completion."""
        found = [p for p, c, _ in self.raw if c == call and self.kinds[p].endswith("item.added")]
        found += [p for p, c, _ in self.raw if c == call and self.kinds[p] == "response.completed"]
        return found


_CLEAN: list[CleanRun] = []


async def clean_run() -> CleanRun:
    """Record the clean run once (its SDK stream and how many AG-UI events it makes)."""
    if _CLEAN:
        return _CLEAN[0]
    case = await drive(Tools().agent(), FaultModel(clean_turns()), lockstep=False)
    assert case.error is None and isinstance(case.events[-1], RunFinishedEvent)
    kinds, raw, call = [], [], -1
    for position, event in enumerate(case.pacer.delivered):
        if isinstance(event, RawResponsesStreamEvent):
            if event.data.type == "response.created":
                call, start = call + 1, position
            raw.append((position, call, position - start))
            kinds.append(str(event.data.type))
        else:
            kinds.append(str(getattr(event, "name", event.type)))
    _CLEAN.append(CleanRun(kinds, raw, len(case.events)))
    return _CLEAN[0]


# --------------------------------------------------------------------------- driving a case


@dataclass
class Case:
    """What one driven run produced."""

    events: list[BaseEvent]
    error: BaseException | None
    pacer: Pacer
    model: FaultModel
    left: set[asyncio.Task[Any]] = field(default_factory=set)
    calls_at_stop: int = 0

    @property
    def position(self) -> int:
        """How many SDK events the consumer was delivered."""
        return len(self.pacer.delivered)


CASE_TIMEOUT = 20.0
"""Seconds one driven case may take: a hang fails the test instead of stalling the suite."""


async def drive(
    agent: Agent[Any],
    model: FaultModel,
    **options: Any,
) -> Case:
    """Run one case (see :func:`_drive`), failing it when it does not end in time."""
    return await asyncio.wait_for(_drive(agent, model, **options), CASE_TIMEOUT)


async def _drive(
    agent: Agent[Any],
    model: FaultModel,
    *,
    hooks: dict[int, Callable[[Any], None]] | None = None,
    leave_after: int | None = None,
    before_run: Callable[[Pacer], None] | None = None,
    lockstep: bool = True,
    **to_agui: Any,
) -> Case:
    """Run ``agent`` on ``model`` through ``to_agui`` and check everything the module promises.

    ``hooks`` run (with the result) before the SDK event at their position is delivered;
    ``leave_after`` closes the generator once that many AG-UI events were received.
    ``lockstep`` makes the model wait until the consumer has been delivered every event before
    each of its own (the SDK drops queued events when a run fails), so positions are exact.
    """
    before = asyncio.all_tasks()
    pacer = Pacer()
    if lockstep and _CLEAN:
        where = {(call, index): position for position, call, index in _CLEAN[0].raw}

        async def keep_pace(call: int, index: int) -> None:
            await pacer.reached(where.get((call, index), 0))

        model.gate = keep_pace
    if before_run is not None:
        before_run(pacer)
    translated = AGUITranslator().to_openai(RUN_INPUT)
    result = Runner.run_streamed(agent, translated.messages, run_config=run_config(model))
    pacer.attach(result)
    for position, hook in (hooks or {}).items():
        pacer.hooks[position] = functools.partial(hook, result)
    stream = AGUITranslator().to_agui(result, RUN_INPUT, **to_agui)
    events: list[BaseEvent] = []
    error: BaseException | None = None
    try:
        async for event in stream:
            events.append(event)
            if leave_after is not None and len(events) >= leave_after:
                break
    except Exception as exc:
        error = exc
    finally:
        await cast(AsyncGenerator[BaseEvent, None], stream).aclose()
    case = Case(events, error, pacer, model, calls_at_stop=model.call_count)
    case.left = await settle_tasks(before, timeout=2.0)
    assert not case.left, f"tasks left behind: {case.left}"
    assert result.is_complete, "the SDK run is still going"
    assert model.call_count == case.calls_at_stop, "the model was called after the stream ended"
    if leave_after is not None:
        check_prefix(events, RUN_INPUT)
    else:
        check_stream(events, run_input=RUN_INPUT)
        check_usage(case)
    return case


def check_usage(case: Case) -> None:
    """The terminal event reports the delivered responses' usage, and nothing invented."""
    end = case.events[-1]
    assert isinstance(end, (RunFinishedEvent, RunErrorEvent))
    given, made = delivered_usage(case.pacer.delivered)
    entries = end.usage or []
    tagged = [(u.input_tokens, u.output_tokens) for u in entries if u.model == MODEL_NAME]
    assert tagged == ([(given, made)] if given or made else []), (tagged, given, made)
    assert sum(u.input_tokens or 0 for u in entries) <= ALL_INPUT
    assert sum(u.output_tokens or 0 for u in entries) <= ALL_OUTPUT
