"""The adapter inside a real run: the SDK's runner on the scripted model, with and without it.

The throughput benchmark replays recorded events, so it times the adapter against encoding
alone. Here the whole run is timed, ``Runner.run_streamed`` included, the way a server runs
it (with a model that answers instantly, the most the adapter can weigh):

- *bare*: the run's ``stream_events()`` consumed, nothing done with the events;
- *adapted*: the run's ``RunResultStreaming`` given to ``AGUITranslator().to_agui`` and every
  AG-UI event encoded with ``EventEncoder``;
- *fast*: the same with ``FastEventEncoder``, as the endpoint does.

The three alternate, in rotating order, repetition by repetition.
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder

from ag_ui_openai_agents import AGUITranslator, FastEventEncoder

from ._support import scripted
from .workloads import Workload

__all__ = ["RealRunResult", "measure_real_run"]


@dataclass(frozen=True)
class RealRunResult:
    """Seconds per repetition of one workload, run bare and run through the adapter."""

    name: str
    sdk_events: int
    bare: list[float]
    """Wall-clock seconds: the run, its SDK events consumed and dropped."""
    adapted: list[float]
    """Wall-clock seconds: the run translated by ``to_agui`` and encoded by ``EventEncoder``."""
    fast: list[float]
    """Wall-clock seconds: the same, encoded by ``FastEventEncoder``."""

    def per_event(self, seconds: list[float]) -> list[float]:
        """Microseconds per SDK event."""
        return [value * 1e6 / self.sdk_events for value in seconds]

    @property
    def added_share(self) -> list[float]:
        """Per repetition: the part of the adapted run that translation and encoding add."""
        pairs = zip(self.bare, self.adapted, strict=True)
        return [(adapted - bare) / adapted for bare, adapted in pairs]

    @property
    def fast_overhead(self) -> list[float]:
        """Per repetition: (fast - bare) / bare, what the adapter with ``FastEventEncoder``
        adds to the bare run."""
        pairs = zip(self.bare, self.fast, strict=True)
        return [(fast - bare) / bare for bare, fast in pairs]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        bare, adapted = self.per_event(self.bare), self.per_event(self.adapted)
        return {
            "name": self.name,
            "sdk_events": self.sdk_events,
            "bare_us_per_event": bare,
            "adapted_us_per_event": adapted,
            "added_share": self.added_share,
            "fast_us_per_event": self.per_event(self.fast),
            "fast_overhead": self.fast_overhead,
            "fast_median_us": statistics.median(self.per_event(self.fast)),
            "bare_median_us": statistics.median(bare),
            "adapted_median_us": statistics.median(adapted),
        }


async def _bare(workload: Workload) -> tuple[float, int]:
    """One run with its stream consumed as it comes: seconds and SDK events."""
    gc.collect()
    started = time.perf_counter()
    result, model = scripted().run_streamed(
        workload.agent, "Begin.", turns=workload.turns(), max_turns=workload.max_turns
    )
    count = 0
    async for _ in result.stream_events():
        count += 1
    elapsed = time.perf_counter() - started
    model.assert_consumed()
    return elapsed, count


async def _adapted(workload: Workload, request: RunAgentInput, encoder: EventEncoder) -> float:
    """One run translated and encoded: seconds."""
    encode = encoder.encode
    gc.collect()
    started = time.perf_counter()
    result, model = scripted().run_streamed(
        workload.agent, "Begin.", turns=workload.turns(), max_turns=workload.max_turns
    )
    async for event in AGUITranslator().to_agui(result, request):
        encode(event)
    elapsed = time.perf_counter() - started
    model.assert_consumed()
    return elapsed


async def measure_real_run(
    workload: Workload, request: RunAgentInput, *, repetitions: int = 9, warmups: int = 1
) -> RealRunResult:
    """Time ``repetitions`` bare, adapted and fast runs of ``workload``, in rotating order."""
    standard, fast = EventEncoder(), FastEventEncoder()
    for _ in range(warmups):
        await _bare(workload)
        await _adapted(workload, request, standard)
        await _adapted(workload, request, fast)
    times: dict[str, list[float]] = {"bare": [], "adapted": [], "fast": []}
    order = list(times)
    events = 0
    for repetition in range(repetitions):
        turn = repetition % len(order)
        for side in order[turn:] + order[:turn]:
            if side == "bare":
                seconds, events = await _bare(workload)
            else:
                seconds = await _adapted(workload, request, fast if side == "fast" else standard)
            times[side].append(seconds)
    return RealRunResult(workload.name, events, times["bare"], times["adapted"], times["fast"])
