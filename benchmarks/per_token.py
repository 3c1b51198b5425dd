"""CPU per streamed token that each AG-UI adapter adds over its framework's bare run, time to
first event, and memory per stream.

Every repetition runs the four sides of `sides.py` once each, in an order that rotates from
one repetition to the next, in the same process and event loop. A side's CPU is
`time.process_time()` around its whole run (from the request to the last event), divided by
the tokens streamed. What an adapter adds is, per repetition, its adapted run minus its
framework's bare run; the figures are medians over repetitions, with min and max.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
import tracemalloc
from dataclasses import dataclass, field

from .sides import SIDES, Probe

__all__ = ["MemoryReport", "Spread", "TokenReport", "measure_memory", "measure_per_token", "spread"]

OURS = ["sdk_bare", "sdk_adapted", "sdk_adapted_state"]
"""The sides measured without pydantic-ai."""


@dataclass
class Spread:
    """Median, min and max of a sample."""

    median: float
    low: float
    high: float

    def show(self, digits: int = 2) -> str:
        """`median (min-max)`."""
        return f"{self.median:.{digits}f} ({self.low:.{digits}f}-{self.high:.{digits}f})"


def spread(values: list[float]) -> Spread:
    """The `Spread` of a non-empty sample."""
    return Spread(statistics.median(values), min(values), max(values))


@dataclass
class TokenReport:
    """Per-token CPU (µs), time to first event and first token (ms), by side."""

    tokens: int
    repetitions: int
    cpu_us: dict[str, Spread] = field(default_factory=dict)
    ours_added_us: Spread | None = None
    ours_state_added_us: Spread | None = None
    """Added with a shared state (`sdk_adapted_state` over `sdk_bare`)."""
    pai_added_us: Spread | None = None
    ratio: Spread | None = None
    """Per repetition, ours added / pydantic-ai added."""
    first_event_ms: dict[str, Spread] = field(default_factory=dict)
    first_token_ms: dict[str, Spread] = field(default_factory=dict)
    tokens_seen: dict[str, int] = field(default_factory=dict)


async def _sample(name: str, tokens: int) -> tuple[float, Probe]:
    probe = Probe()
    gc.collect()
    start = time.process_time()
    await SIDES[name](tokens, probe)
    return time.process_time() - start, probe


async def _samples(
    names: list[str], tokens: int, repetitions: int, warmup: int
) -> dict[str, list[tuple[float, Probe]]]:
    got: dict[str, list[tuple[float, Probe]]] = {name: [] for name in names}
    for rep in range(warmup + repetitions):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            sample = await _sample(name, tokens)
            if rep >= warmup:
                got[name].append(sample)
    return got


def _added(got: dict[str, list[tuple[float, Probe]]], bare: str, adapted: str) -> list[float]:
    return [(a[0] - b[0]) for a, b in zip(got[adapted], got[bare], strict=True)]


def measure_per_token(
    tokens: int, repetitions: int, *, warmup: int = 1, with_pai: bool = True
) -> TokenReport:
    """Run the sides interleaved and report; without pydantic-ai only this package's sides."""
    names = list(SIDES) if with_pai else OURS
    got = asyncio.run(_samples(names, tokens, repetitions, warmup))
    report = TokenReport(tokens=tokens, repetitions=repetitions)
    per_token = 1e6 / tokens
    for name, samples in got.items():
        report.cpu_us[name] = spread([cpu * per_token for cpu, _ in samples])
        report.first_event_ms[name] = spread([_ms(p.first_output) for _, p in samples])
        report.first_token_ms[name] = spread([_ms(p.first_token) for _, p in samples])
        report.tokens_seen[name] = min(p.tokens for _, p in samples)
    ours = _added(got, "sdk_bare", "sdk_adapted")
    report.ours_added_us = spread([v * per_token for v in ours])
    with_state = _added(got, "sdk_bare", "sdk_adapted_state")
    report.ours_state_added_us = spread([v * per_token for v in with_state])
    if with_pai:
        pai = _added(got, "pai_bare", "pai_adapted")
        report.pai_added_us = spread([v * per_token for v in pai])
        ratios = [o / p for o, p in zip(ours, pai, strict=True) if p > 0]
        report.ratio = spread(ratios) if ratios else None  # None: no repetition to divide by
    return report


def _ms(seconds: float | None) -> float:
    return float("nan") if seconds is None else seconds * 1e3


@dataclass
class MemoryReport:
    """Peak Python memory (tracemalloc) of one long stream, by side."""

    tokens: int
    peak_kb: dict[str, float] = field(default_factory=dict)


async def _peak(name: str, tokens: int) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        await SIDES[name](tokens, Probe())
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def measure_memory(tokens: int, *, with_pai: bool = True) -> MemoryReport:
    """The peak of each side over one stream of `tokens` tokens, after one unmeasured run."""
    names = list(SIDES) if with_pai else OURS

    async def run() -> MemoryReport:
        report = MemoryReport(tokens=tokens)
        for name in names:
            await SIDES[name](10, Probe())
            report.peak_kb[name] = await _peak(name, tokens)
        return report

    return asyncio.run(run())
