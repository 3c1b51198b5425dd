"""The adapter inside a real run: the SDK's runner on the scripted model, with and without it.

The throughput benchmark replays recorded events, so it times the adapter against encoding
alone. Here the whole run is timed, ``Runner.run_streamed`` included, the way a server runs
it (with a model that answers instantly, the most the adapter can weigh):

- *bare*: the run's ``stream_events()`` consumed, nothing done with the events;
- *adapted*: the run's ``RunResultStreaming`` given to ``AGUITranslator().to_agui`` and every
  AG-UI event encoded with ``EventEncoder``;
- *fast*: the same with ``FastEventEncoder``, as the endpoint does.

The three alternate, in rotating order, repetition by repetition. Each run is timed twice:
wall clock, and the CPU time of this thread (the run never leaves it: the scripted model
answers in the event loop), which leaves out the moments the machine gave the core to
someone else.
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

from ._support import Timing, scripted
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
    bare_cpu: list[float]
    """CPU seconds of the bare runs."""
    fast_cpu: list[float]
    """CPU seconds of the ``FastEventEncoder`` runs."""

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

    @property
    def fast_overhead_cpu(self) -> list[float]:
        """Per repetition: the same as :attr:`fast_overhead`, in CPU time."""
        pairs = zip(self.bare_cpu, self.fast_cpu, strict=True)
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
            "fast_overhead_cpu": self.fast_overhead_cpu,
            "fast_median_us": statistics.median(self.per_event(self.fast)),
            "bare_median_us": statistics.median(bare),
            "adapted_median_us": statistics.median(adapted),
        }


async def _bare(workload: Workload) -> tuple[Timing, int]:
    """One run with its stream consumed as it comes: its time and SDK events."""
    gc.collect()
    cpu, started = time.thread_time(), time.perf_counter()
    result, model = scripted().run_streamed(
        workload.agent, "Begin.", turns=workload.turns(), max_turns=workload.max_turns
    )
    count = 0
    async for _ in result.stream_events():
        count += 1
    elapsed = Timing(time.perf_counter() - started, time.thread_time() - cpu)
    model.assert_consumed()
    return elapsed, count


async def _adapted(workload: Workload, request: RunAgentInput, encoder: EventEncoder) -> Timing:
    """One run translated and encoded: its time."""
    encode = encoder.encode
    gc.collect()
    cpu, started = time.thread_time(), time.perf_counter()
    result, model = scripted().run_streamed(
        workload.agent, "Begin.", turns=workload.turns(), max_turns=workload.max_turns
    )
    async for event in AGUITranslator().to_agui(result, request):
        encode(event)
    elapsed = Timing(time.perf_counter() - started, time.thread_time() - cpu)
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
    times: dict[str, list[Timing]] = {"bare": [], "adapted": [], "fast": []}
    order = list(times)
    events = 0
    for repetition in range(repetitions):
        turn = repetition % len(order)
        for side in order[turn:] + order[:turn]:
            if side == "bare":
                timing, events = await _bare(workload)
            else:
                timing = await _adapted(workload, request, fast if side == "fast" else standard)
            times[side].append(timing)
    walls = {side: [timing.wall for timing in timings] for side, timings in times.items()}
    return RealRunResult(
        workload.name,
        events,
        walls["bare"],
        walls["adapted"],
        walls["fast"],
        bare_cpu=[timing.cpu for timing in times["bare"]],
        fast_cpu=[timing.cpu for timing in times["fast"]],
    )
