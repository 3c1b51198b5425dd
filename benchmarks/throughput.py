"""Translator throughput against a floor, linear cost, and peak memory.

*Total*: replay the recorded SDK events as a bare async iterator through
``AGUITranslator().to_agui(...)`` and encode every AG-UI event with ``EventEncoder``.
*Fast total*: the same with ``FastEventEncoder`` (whose output is checked to be identical
before anything is timed).

*Floor*: the work any adapter must do anyway, measured in the same process on the same data:
iterate the same SDK events through the same kind of async iterator, and encode the AG-UI
events of a translation run collected once beforehand.

*Bound*: what an adapter would cost if translating were free. An async generator iterates the
same SDK events and yields, after each one, the very AG-UI events the translator produced for
it, each freshly built with the translator's cheapest constructor (``model_builder``), and
every event is encoded as it comes. It shows how much of the total is the price of producing
event objects one by one through a generator, which any streaming adapter pays.

*Minimal*: the bound in the shape of a translator (``minimal.py``): one method call per SDK
event that keeps each delta and returns the events, looped over as ``to_agui`` does.

Floor, total, fast total, bound and minimal are timed replay by replay in rotating order, after
warmups, with the recorded data moved out of the garbage collector's way (``gc.freeze``) so
that collections scanning it are not charged to whichever side happens to trigger them.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
import tracemalloc
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from agents.stream_events import RawResponsesStreamEvent, StreamEvent

from ag_ui_openai_agents import AGUITranslator, FastEventEncoder
from ag_ui_openai_agents.outbound.builders import model_builder
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator

from ._support import Timing, built, time_encoding
from .minimal import time_minimal
from .workloads import replay

__all__ = [
    "BoundPlan",
    "LinearityResult",
    "MemoryResult",
    "Spread",
    "ThroughputResult",
    "Timing",
    "assert_identical_encoding",
    "bound_events",
    "collect_agui",
    "encode_interleaved",
    "group_produced",
    "measure_linearity",
    "measure_memory",
    "measure_throughput",
    "plan_bound",
    "replay_live",
    "time_bound",
    "time_floor",
    "time_interleaved",
    "time_total",
    "time_translation",
]


@dataclass(frozen=True)
class Spread:
    """Median and range of repeated measurements."""

    median: float
    low: float
    high: float
    samples: list[float] = field(repr=False)

    @classmethod
    def of(cls, samples: Sequence[float]) -> Spread:
        """Summarise ``samples`` (at least one)."""
        values = list(samples)
        return cls(statistics.median(values), min(values), max(values), values)

    def scaled(self, factor: float) -> Spread:
        """Every figure multiplied by ``factor``."""
        return Spread.of([value * factor for value in self.samples])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"median": self.median, "min": self.low, "max": self.high, "samples": self.samples}


@dataclass(frozen=True)
class ThroughputResult:
    """One workload: sizes, per-event times and the total / floor ratio."""

    name: str
    sdk_events: int
    agui_events: int
    totals: list[Timing]
    floors: list[Timing]
    bounds: list[Timing] = field(default_factory=list)
    loops: int = 1
    """How many times each timed sample replayed the stream."""
    fasts: list[Timing] = field(default_factory=list)
    """Translator + ``FastEventEncoder``."""
    interleaved: list[Timing] = field(default_factory=list)
    """The floor's work in the total's order: each SDK event, then the encoding of its events."""
    minimals: list[Timing] = field(default_factory=list)
    """The minimal translator (``minimal.py``) + ``EventEncoder``."""

    @property
    def total_s(self) -> Spread:
        """Wall-clock seconds of translator + encoder."""
        return Spread.of([t.wall for t in self.totals])

    @property
    def floor_s(self) -> Spread:
        """Wall-clock seconds of iteration + encoding only."""
        return Spread.of([t.wall for t in self.floors])

    @property
    def ratio(self) -> Spread:
        """Per repetition: total wall time / floor wall time of the same repetition."""
        pairs = zip(self.totals, self.floors, strict=True)
        return Spread.of([total.wall / floor.wall for total, floor in pairs])

    @property
    def bound_ratio(self) -> Spread:
        """Per repetition: bound wall time / floor wall time of the same repetition."""
        pairs = zip(self.bounds, self.floors, strict=True)
        return Spread.of([bound.wall / floor.wall for bound, floor in pairs])

    @property
    def fast_ratio(self) -> Spread:
        """Per repetition: fast total wall time / floor wall time of the same repetition."""
        pairs = zip(self.fasts, self.floors, strict=True)
        return Spread.of([fast.wall / floor.wall for fast, floor in pairs])

    @property
    def minimal_ratio(self) -> Spread:
        """Per repetition: minimal translator wall time / floor wall time."""
        pairs = zip(self.minimals, self.floors, strict=True)
        return Spread.of([one.wall / floor.wall for one, floor in pairs])

    @property
    def interleaved_ratio(self) -> Spread:
        """Per repetition: interleaved floor wall time / floor wall time."""
        pairs = zip(self.interleaved, self.floors, strict=True)
        return Spread.of([one.wall / floor.wall for one, floor in pairs])

    @property
    def cpu_ratio(self) -> Spread:
        """Per repetition: total CPU time / floor CPU time of the same repetition."""
        pairs = zip(self.totals, self.floors, strict=True)
        return Spread.of([total.cpu / floor.cpu for total, floor in pairs])

    @property
    def total_us_per_event(self) -> Spread:
        """Microseconds (wall) per SDK event, translator + encoder."""
        return self.total_s.scaled(1e6 / (self.sdk_events * self.loops))

    @property
    def floor_us_per_event(self) -> Spread:
        """Microseconds (wall) per SDK event, iteration + encoding only."""
        return self.floor_s.scaled(1e6 / (self.sdk_events * self.loops))

    @property
    def median_ratio(self) -> float:
        """Median total over median floor (wall clock)."""
        return self.total_s.median / self.floor_s.median

    @property
    def median_cpu_ratio(self) -> float:
        """Median total over median floor (CPU time)."""
        total = statistics.median(t.cpu for t in self.totals)
        return total / statistics.median(t.cpu for t in self.floors)

    def _per_event(self, timings: list[Timing]) -> Spread:
        return Spread.of([t.wall for t in timings]).scaled(1e6 / (self.sdk_events * self.loops))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "sdk_events": self.sdk_events,
            "loops_per_sample": self.loops,
            "agui_events": self.agui_events,
            "total_us_per_event": self.total_us_per_event.as_dict(),
            "floor_us_per_event": self.floor_us_per_event.as_dict(),
            "ratio_of_medians": self.median_ratio,
            "ratio_per_repetition": self.ratio.as_dict(),
            "cpu_ratio_of_medians": self.median_cpu_ratio,
            "cpu_ratio_per_repetition": self.cpu_ratio.as_dict(),
            **(
                {
                    "fast_us_per_event": self._per_event(self.fasts).as_dict(),
                    "fast_ratio_per_repetition": self.fast_ratio.as_dict(),
                }
                if self.fasts
                else {}
            ),
            **(
                {"interleaved_ratio_per_repetition": self.interleaved_ratio.as_dict()}
                if self.interleaved
                else {}
            ),
            **(
                {"minimal_ratio_per_repetition": self.minimal_ratio.as_dict()}
                if self.minimals
                else {}
            ),
            **(
                {
                    "bound_us_per_event": self._per_event(self.bounds).as_dict(),
                    "bound_ratio_per_repetition": self.bound_ratio.as_dict(),
                }
                if self.bounds
                else {}
            ),
        }


async def collect_agui(events: Sequence[StreamEvent], run_input: RunAgentInput) -> list[BaseEvent]:
    """The AG-UI events of one translation of the recorded stream."""
    return [event async for event in AGUITranslator().to_agui(replay(events), run_input)]


async def time_total(
    events: Sequence[StreamEvent], run_input: RunAgentInput, encoder: EventEncoder
) -> Timing:
    """Translate and encode the recorded stream once."""
    stream = AGUITranslator().to_agui(replay(events), run_input)
    return await time_encoding(stream, encoder.encode)


async def time_floor(
    events: Sequence[StreamEvent],
    produced: Sequence[BaseEvent],
    encoder: EventEncoder,
) -> Timing:
    """Iterate the recorded stream and encode already produced AG-UI events."""
    encode = encoder.encode
    gc.collect()
    cpu, wall = time.thread_time(), time.perf_counter()
    async for _ in replay(events):
        pass
    for event in produced:
        encode(event)
    return Timing(time.perf_counter() - wall, time.thread_time() - cpu)


Build = Callable[..., BaseEvent]
Recipe = tuple[Build, tuple[Any, ...]]
BoundPlan = tuple[list[Recipe], list[list[Recipe]]]
"""What the bound yields: the events before the first SDK event, then the events after each."""

_builders: dict[tuple[type[BaseEvent], tuple[str, ...]], Build] = {}


def _recipe(event: BaseEvent) -> Recipe:
    """A builder and its positional arguments that make a fresh copy of ``event``."""
    names = tuple(name for name in type(event).model_fields if name in event.model_fields_set)
    key = (type(event), names)
    if key not in _builders:
        _builders[key] = model_builder(type(event), *names)
    return _builders[key], tuple(getattr(event, name) for name in names)


Grouped = tuple[list[BaseEvent], list[list[BaseEvent]]]
"""AG-UI events of a translation: those before the first SDK event, then those after each."""


def group_produced(
    events: Sequence[StreamEvent], run_input: RunAgentInput, produced: Sequence[BaseEvent]
) -> Grouped:
    """``produced`` (a real translation, :func:`collect_agui`) split by the SDK event that
    caused each event; RUN_STARTED leads, and the closing events follow the last SDK event."""
    engine = OpenAIToAGUITranslator(run_input)
    counts = [len(engine.translate(event)) for event in events]
    head, rest = list(produced[:1]), list(produced[1:])
    after: list[list[BaseEvent]] = []
    for count in counts:
        after.append(rest[:count])
        rest = rest[count:]
    if after:
        after[-1] += rest
    else:
        head += rest
    return head, after


async def time_interleaved(
    events: Sequence[StreamEvent], grouped: Grouped, encoder: EventEncoder
) -> Timing:
    """The floor's work in the order of a stream: after each SDK event, encode its events.

    Nothing is built and nothing goes through a generator: the distance from the floor is
    what interleaving alone costs (caches and branch predictors shared with the iteration)."""
    gc.collect()
    cpu, wall = time.thread_time(), time.perf_counter()
    await encode_interleaved(events, grouped, encoder.encode)
    return Timing(time.perf_counter() - wall, time.thread_time() - cpu)


async def encode_interleaved(
    events: Sequence[StreamEvent], grouped: Grouped, encode: Callable[[BaseEvent], str]
) -> None:
    """Iterate the stream; after each SDK event, encode the events the translator made for it."""
    head, after = grouped
    for event in head:
        encode(event)
    index = 0
    async for _ in replay(events):
        for event in after[index]:
            encode(event)
        index += 1


def plan_bound(
    events: Sequence[StreamEvent], run_input: RunAgentInput, produced: Sequence[BaseEvent]
) -> BoundPlan:
    """Which AG-UI events follow each SDK event in a real translation, as recipes.

    The lifecycle events ``to_agui`` adds (RUN_STARTED, the closing snapshot, RUN_FINISHED)
    are taken from ``produced``, the events of a real translation (:func:`collect_agui`);
    the events the engine makes are attributed to the SDK event that caused them. The
    snapshot is rebuilt around the same message objects (its messages are not rebuilt),
    which only flatters the bound.
    """
    engine = OpenAIToAGUITranslator(run_input)
    after = [engine.translate(event) for event in events]
    streamed = sum(len(batch) for batch in after)
    head, tail = produced[:1], produced[1 + streamed :]
    if after:
        after[-1] = [*after[-1], *tail]
    else:
        head = list(produced)
    return [_recipe(e) for e in head], [[_recipe(e) for e in batch] for batch in after]


async def bound_events(
    events: Sequence[StreamEvent], plan: BoundPlan
) -> AsyncGenerator[BaseEvent, None]:
    """The bound's stream: fresh copies of the planned events, after each SDK event."""
    head, after = plan
    for event in built(head):
        yield event
    index = 0
    async for _ in replay(events):
        for build, values in after[index]:
            yield build(*values)
        index += 1


async def time_bound(
    events: Sequence[StreamEvent], plan: BoundPlan, encoder: EventEncoder
) -> Timing:
    """Yield fresh copies of the translation's events and encode them (no translating)."""
    return await time_encoding(bound_events(events, plan), encoder.encode)


async def measure_throughput(
    name: str,
    events: Sequence[StreamEvent],
    run_input: RunAgentInput,
    *,
    repetitions: int = 7,
    warmups: int = 2,
    sample_seconds: float = 0.0,
) -> ThroughputResult:
    """Time every side (floor, interleaved floor, total, fast total, bound and minimal
    translator) ``repetitions`` times each.

    A sample of each side is the sum of ``loops`` runs, enough for the total to last about
    ``sample_seconds``, so that a short stream is not timed in a few milliseconds that one
    scheduling hiccup can double. The runs of the sides are interleaved one by one, in
    rotating order, so that a slow spell of the machine falls on all of them alike.
    """
    encoder, fast = EventEncoder(), FastEventEncoder()
    produced = await collect_agui(events, run_input)
    assert_identical_encoding(produced)
    plan = plan_bound(events, run_input, produced)
    grouped = group_produced(events, run_input, produced)
    sides: dict[str, Callable[[], Awaitable[Timing]]] = {
        "floor": lambda: time_floor(events, produced, encoder),
        "interleaved": lambda: time_interleaved(events, grouped, encoder),
        "total": lambda: time_total(events, run_input, encoder),
        "fast": lambda: time_total(events, run_input, fast),
        "bound": lambda: time_bound(events, plan, encoder),
        "minimal": lambda: time_minimal(events, plan, encoder),
    }
    order = list(sides)
    gc.collect()
    gc.freeze()
    try:
        for _ in range(warmups):
            for side in order:
                await sides[side]()
        one = await time_total(events, run_input, encoder)
        loops = max(1, math.ceil(sample_seconds / one.wall)) if sample_seconds > 0 else 1
        samples: dict[str, list[Timing]] = {side: [] for side in order}
        turn = 0
        for _ in range(repetitions):
            wall = dict.fromkeys(order, 0.0)
            cpu = dict.fromkeys(order, 0.0)
            for _ in range(loops):
                for side in order[turn % len(order) :] + order[: turn % len(order)]:
                    timing = await sides[side]()
                    wall[side] += timing.wall
                    cpu[side] += timing.cpu
                turn += 1
            for side in order:
                samples[side].append(Timing(wall[side], cpu[side]))
    finally:
        gc.unfreeze()
    return ThroughputResult(
        name,
        len(events),
        len(produced),
        samples["total"],
        samples["floor"],
        samples["bound"],
        loops,
        samples["fast"],
        samples["interleaved"],
        samples["minimal"],
    )


def assert_identical_encoding(produced: Sequence[BaseEvent]) -> None:
    """Raise unless ``FastEventEncoder`` writes every event exactly as ``EventEncoder`` does."""
    standard, fast = EventEncoder(), FastEventEncoder()
    for index, event in enumerate(produced):
        if fast.encode(event) != standard.encode(event):
            raise AssertionError(f"event {index} ({event.type}) is encoded differently")


async def time_translation(events: Sequence[StreamEvent], run_input: RunAgentInput) -> Timing:
    """Translate the recorded stream once, dropping the events (the adapter's cost alone)."""
    translator = AGUITranslator()
    gc.collect()
    cpu, wall = time.thread_time(), time.perf_counter()
    async for _ in translator.to_agui(replay(events), run_input):
        pass
    return Timing(time.perf_counter() - wall, time.thread_time() - cpu)


@dataclass(frozen=True)
class LinearityResult:
    """Paired runs of a small and a large stream: how time grows with the stream."""

    small: int
    large: int
    total_ratios: list[float]
    """Per repetition: large / small, translation + encoding (wall clock)."""
    translation_ratios: list[float]
    """Per repetition: large / small, translation alone (wall clock)."""
    fast_ratios: list[float] = field(default_factory=list)
    """Per repetition: large / small, translation + ``FastEventEncoder`` (wall clock)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "small": self.small,
            "large": self.large,
            "ratio": statistics.median(self.total_ratios),
            "samples": self.total_ratios,
            "translation_ratio": statistics.median(self.translation_ratios),
            "translation_samples": self.translation_ratios,
            "fast_ratio": statistics.median(self.fast_ratios) if self.fast_ratios else None,
            "fast_samples": self.fast_ratios,
        }


async def measure_linearity(
    small: Sequence[StreamEvent],
    large: Sequence[StreamEvent],
    run_input: RunAgentInput,
    *,
    repetitions: int = 7,
    warmups: int = 1,
) -> LinearityResult:
    """Time the two streams back to back in each repetition, so both see the same machine."""
    encoder, fast = EventEncoder(), FastEventEncoder()
    gc.collect()
    gc.freeze()
    try:
        for _ in range(warmups):
            await time_total(small, run_input, encoder)
            await time_total(large, run_input, encoder)
        totals: list[float] = []
        fasts: list[float] = []
        translations: list[float] = []
        for _ in range(repetitions):
            little = await time_total(small, run_input, encoder)
            big = await time_total(large, run_input, encoder)
            totals.append(big.wall / little.wall)
            little = await time_total(small, run_input, fast)
            big = await time_total(large, run_input, fast)
            fasts.append(big.wall / little.wall)
            little = await time_translation(small, run_input)
            big = await time_translation(large, run_input)
            translations.append(big.wall / little.wall)
    finally:
        gc.unfreeze()
    return LinearityResult(len(small), len(large), totals, translations, fasts)


@dataclass(frozen=True)
class MemoryResult:
    """Peak traced memory of one run, against the assistant text it streamed."""

    text_bytes: int
    translate_peak: int
    """Translation alone (events dropped as they come)."""
    encode_peak: int
    """Translation and SSE encoding with ``EventEncoder``."""
    fast_encode_peak: int = 0
    """Translation and SSE encoding with ``FastEventEncoder``, as the endpoint does."""
    live_translate_peak: int = 0
    """Translation alone of the live stream (:func:`replay_live`: every delta a new string)."""
    live_fast_encode_peak: int = 0
    """Translation and ``FastEventEncoder`` encoding of the live stream."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "text_bytes": self.text_bytes,
            "translate_peak_bytes": self.translate_peak,
            "translate_ratio": self.translate_peak / self.text_bytes,
            "encode_peak_bytes": self.encode_peak,
            "encode_ratio": self.encode_peak / self.text_bytes,
            "fast_encode_peak_bytes": self.fast_encode_peak,
            "fast_encode_ratio": self.fast_encode_peak / self.text_bytes,
            "live_translate_peak_bytes": self.live_translate_peak,
            "live_translate_ratio": self.live_translate_peak / self.text_bytes,
            "live_fast_encode_peak_bytes": self.live_fast_encode_peak,
            "live_fast_encode_ratio": self.live_fast_encode_peak / self.text_bytes,
        }


async def replay_live(events: Sequence[StreamEvent]) -> AsyncIterator[StreamEvent]:
    """Yield the recorded events as a live stream gives them: each delta a new string.

    In a recording every delta string stays alive in its event, so whatever the translator
    keeps of it costs nothing more. A live stream's deltas are fresh strings that only the
    current event holds: here each delta event is copied around a new copy of its text, so
    what the translator keeps of a delta is counted.
    """
    for event in events:
        data = getattr(event, "data", None)
        delta = getattr(data, "delta", None)
        if type(delta) is str and delta and isinstance(event, RawResponsesStreamEvent):
            fresh = "".join((delta, ""))  # a new string object with the same text
            yield RawResponsesStreamEvent(data=data.model_copy(update={"delta": fresh}))
        else:
            yield event


async def _peak(
    events: Sequence[StreamEvent],
    run_input: RunAgentInput,
    encoder: EventEncoder | None,
    *,
    live: bool = False,
) -> int:
    gc.collect()
    tracemalloc.start()
    stream = replay_live(events) if live else replay(events)
    try:
        async for event in AGUITranslator().to_agui(stream, run_input):
            if encoder is not None:
                encoder.encode(event)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def measure_memory(
    events: Sequence[StreamEvent], run_input: RunAgentInput, text_bytes: int
) -> MemoryResult:
    """Peak memory allocated while translating (and encoding) the recorded stream.

    The recorded events exist before tracing starts, so only what the run itself allocates
    is counted: windows, buffers, events, the snapshot and the encoded strings.
    """
    return MemoryResult(
        text_bytes=text_bytes,
        translate_peak=await _peak(events, run_input, None),
        encode_peak=await _peak(events, run_input, EventEncoder()),
        fast_encode_peak=await _peak(events, run_input, FastEventEncoder()),
        live_translate_peak=await _peak(events, run_input, None, live=True),
        live_fast_encode_peak=await _peak(events, run_input, FastEventEncoder(), live=True),
    )
