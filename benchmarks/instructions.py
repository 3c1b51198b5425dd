"""Instructions per SDK event, counted by valgrind's callgrind: a noise-free companion to timing.

On a shared machine a change worth a few percent cannot be seen in wall-clock time. Counting
the instructions of the timed loop alone (callgrind's instrumentation is switched on just
around it) gives the same number on every run, so two versions of the engine can be
compared exactly. Instructions are not time: they ignore cache misses, which a streaming
adapter suffers more than the floor (see README.md), so the time ratios stay the reference.

    uv run python -m benchmarks.instructions            # needs valgrind; about ten minutes
    uv run python -m benchmarks.instructions --kinds    # the engine's count per SDK event kind

Each workload and side runs in its own ``valgrind --tool=callgrind`` child process.

``--kinds`` profiles the engine alone, one SDK event kind at a time (the raw event's ``type``,
an output item's type, a run item's type, and the closing snapshot): the events of that kind
are translated through ``operator.call`` and callgrind collects only inside it
(``--toggle-collect``), so each kind's figure is exactly what translating its events costs.

The real run (``run-bare`` / ``run-fast``) counts the whole ``Runner.run_streamed`` run of a
long answer on the instant scripted model, bare and through ``to_agui`` + ``FastEventEncoder``:
the noise-free form of the real-run overhead that ``benchmarks.real_run`` times.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import operator
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from agents.stream_events import StreamEvent

from ag_ui_openai_agents import AGUITranslator, FastEventEncoder
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator

from . import real_run
from ._support import run_input
from .minimal import minimal_events
from .throughput import (
    BoundPlan,
    Grouped,
    bound_events,
    collect_agui,
    encode_interleaved,
    group_produced,
    plan_bound,
)
from .workloads import Workload, handoff_chain, long_answer, record, replay, tool_turns

__all__ = ["main"]

WORKLOADS: dict[str, Callable[[], Workload]] = {
    "long answer, 2,000 deltas": lambda: long_answer(2_000),
    "10 turns: reasoning + 3 tool calls + text": lambda: tool_turns(10),
    "handoff chain, 6 agents, 18 handoffs": lambda: handoff_chain(),
}
SIDES = ("engine", "total", "fast", "floor", "interleaved", "bound", "minimal")
REAL_RUN_SIDES = ("run-bare", "run-fast")
REAL_RUN_DELTAS = 2_000
SNAPSHOT = "messages snapshot"
"""The kind under which ``--kinds`` counts the closing MESSAGES_SNAPSHOT (once per run)."""
_UNDER_CALLGRIND = "AG_UI_BENCHMARK_UNDER_CALLGRIND"
REPLAYS = 2


def event_kind(event: StreamEvent) -> str:
    """What an SDK event is, for the per-kind profile: its raw ``type`` (an output item's with
    the item type), ``item:`` and a run item's type, or the stream event's own type."""
    data: Any = getattr(event, "data", None)
    if event.type == "raw_response_event" and data is not None:
        kind = str(data.type).removeprefix("response.")
        if kind in ("output_item.added", "output_item.done"):
            return f"{kind}:{getattr(data.item, 'type', '?')}"
        return kind
    if event.type == "run_item_stream_event":
        return f"item:{event.item.type}"
    return str(event.type)


def _instrument(on: bool) -> None:
    """Switch callgrind's instrumentation of this process (only when run by :func:`_count`)."""
    if os.environ.get(_UNDER_CALLGRIND) != "1":
        return
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
        capture_output=True,
        check=False,
    )


@contextmanager
def _counting() -> Iterator[None]:
    """Callgrind's instrumentation on, the garbage collector frozen and off, for the block."""
    gc.collect()
    gc.freeze()
    gc.disable()
    _instrument(True)
    try:
        yield
    finally:
        _instrument(False)
        gc.enable()
        gc.unfreeze()


async def _replay_side(
    side: str,
    events: Sequence[StreamEvent],
    request: RunAgentInput,
    produced: Sequence[BaseEvent],
    plan: BoundPlan,
    grouped: Grouped,
    encode: Callable[[BaseEvent], str],
) -> None:
    if side == "engine":
        engine = OpenAIToAGUITranslator(request)
        for event in events:
            engine.translate(event)
        engine.finish()
        engine.messages_snapshot()
    elif side in ("total", "fast"):
        encode = FastEventEncoder().encode if side == "fast" else encode
        async for out in AGUITranslator().to_agui(replay(events), request):
            encode(out)
    elif side == "floor":
        async for _ in replay(events):
            pass
        for out in produced:
            encode(out)
    elif side == "interleaved":
        await encode_interleaved(events, grouped, encode)
    elif side == "minimal":
        async for out in minimal_events(events, plan):
            encode(out)
    else:
        async for out in bound_events(events, plan):
            encode(out)


async def _child(workload: str, side: str) -> None:
    """Replay one workload ``REPLAYS`` times with instrumentation on; print the event count."""
    events = await record(WORKLOADS[workload]())
    request = run_input()
    produced = await collect_agui(events, request)
    plan = plan_bound(events, request, produced)
    grouped = group_produced(events, request, produced)
    encode = EventEncoder().encode
    with _counting():
        for _ in range(REPLAYS):
            await _replay_side(side, events, request, produced, plan, grouped, encode)
    print(f"sdk-events {len(events)}", flush=True)


async def _kind_child(workload: str, kind: str) -> None:
    """Translate one workload ``REPLAYS`` times, the events of ``kind`` through
    ``operator.call`` (where callgrind collects); print how many there were."""
    events = await record(WORKLOADS[workload]())
    request = run_input()
    kinds = [event_kind(event) for event in events]
    call: Callable[..., Any] = operator.call  # type: ignore[attr-defined]
    with _counting():
        for _ in range(REPLAYS):
            engine = OpenAIToAGUITranslator(request)
            translate = engine.translate
            for label, event in zip(kinds, events, strict=True):
                if label == kind:
                    call(translate, event)
                else:
                    translate(event)
            engine.finish()
            if kind == SNAPSHOT:
                call(engine.messages_snapshot)
            else:
                engine.messages_snapshot()
    print(f"sdk-events {1 if kind == SNAPSHOT else kinds.count(kind)}", flush=True)


async def _real_run_child(side: str) -> None:
    """Run the long answer ``REPLAYS`` times bare or adapted (after one warm run of each)."""
    workload, request, fast = long_answer(REAL_RUN_DELTAS), run_input(), FastEventEncoder()
    events = (await real_run._bare(workload))[1]
    await real_run._adapted(workload, request, fast)
    _instrument(True)
    try:
        for _ in range(REPLAYS):
            if side == "run-bare":
                await real_run._bare(workload)
            else:
                await real_run._adapted(workload, request, fast)
    finally:
        _instrument(False)
    print(f"sdk-events {events}", flush=True)


def _count(workload: str, side: str, *callgrind: str) -> float:
    """Instructions per SDK event of one side of one workload (``--child``, or ``--kind``
    with the extra callgrind options)."""
    mode = "--kind" if callgrind else "--child"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--callgrind-out-file=/dev/null",
        *callgrind,
        sys.executable,
        "-m",
        "benchmarks.instructions",
        mode,
        workload,
        side,
    ]
    environment = {**os.environ, "PYTHONHASHSEED": "0", _UNDER_CALLGRIND: "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=True)
    output = done.stdout + done.stderr
    events = re.search(r"sdk-events (\d+)", output)
    collected = re.search(r"Collected : (\d+)", output)
    if events is None or collected is None:
        raise RuntimeError(f"no count from callgrind:\n{output[-2000:]}")
    return int(collected.group(1)) / REPLAYS / int(events.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    """Count every side of every workload and print a table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SIDE"), help=argparse.SUPPRESS)
    parser.add_argument("--kind", nargs=2, metavar=("WORKLOAD", "KIND"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--kinds", action="store_true", help="profile the engine by SDK event kind instead"
    )
    args = parser.parse_args(argv)
    if args.child:
        child = args.child
        if child[1] in REAL_RUN_SIDES:
            asyncio.run(_real_run_child(child[1]))
        else:
            asyncio.run(_child(*child))
        return 0
    if args.kind:
        asyncio.run(_kind_child(*args.kind))
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind (with callgrind_control) is needed", file=sys.stderr)
        return 2
    if args.kinds:
        for workload in WORKLOADS:
            _print_kinds(workload)
        return 0
    rows: list[dict[str, Any]] = []
    for workload in WORKLOADS:
        counts = {side: _count(workload, side) for side in SIDES}
        rows.append({"workload": workload, **counts})
        print(
            f"{workload:<44} engine {counts['engine']:8,.0f}  total {counts['total']:8,.0f}  "
            f"fast {counts['fast']:8,.0f}  floor {counts['floor']:8,.0f}  "
            f"total/floor {counts['total'] / counts['floor']:.3f}  "
            f"fast/floor {counts['fast'] / counts['floor']:.3f}  "
            f"interleaved/floor {counts['interleaved'] / counts['floor']:.3f}  "
            f"bound/floor {counts['bound'] / counts['floor']:.3f}  "
            f"minimal/floor {counts['minimal'] / counts['floor']:.3f}",
            flush=True,
        )
    bare, fast = (_count(REAL_RUN_WORKLOAD, side) for side in REAL_RUN_SIDES)
    print(
        f"real run, long answer of {REAL_RUN_DELTAS:,} deltas: bare {bare:,.0f}  "
        f"with to_agui + FastEventEncoder {fast:,.0f}  overhead {(fast - bare) / bare:.1%}",
        flush=True,
    )
    return 0


REAL_RUN_WORKLOAD = "real run"
"""The workload name the real-run sides are counted under (their child ignores it)."""


def _print_kinds(workload: str) -> None:
    """The engine's instructions on ``workload``, by SDK event kind, largest share first."""
    events = asyncio.run(record(WORKLOADS[workload]()))
    counts = Counter(event_kind(event) for event in events)
    kinds = [*sorted(counts), SNAPSHOT]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        figures = pool.map(lambda k: _count(workload, k, "--toggle-collect=_operator_call"), kinds)
        per_event = dict(zip(kinds, figures, strict=True))
    spent = {kind: per_event[kind] * counts.get(kind, 1) for kind in kinds}
    whole = sum(spent.values())
    print(f"{workload}: {whole / len(events):,.0f} instructions per SDK event", flush=True)
    for kind in sorted(kinds, key=lambda k: -spent[k]):
        print(
            f"  {kind:<40} {counts.get(kind, 1):>5} x {per_event[kind]:>9,.0f}  "
            f"{spent[kind] / whole:6.1%}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
