"""Instructions per SDK event, counted by valgrind's callgrind: a noise-free companion to timing.

On a shared machine a change worth a few percent cannot be seen in wall-clock time. Counting
the instructions of the timed loop alone (callgrind's instrumentation is switched on just
around it) gives the same number on every run, so two versions of the engine can be
compared exactly. Instructions are not time: they ignore cache misses, which a streaming
adapter suffers more than the floor (see README.md), so the time ratios stay the reference.

    uv run python -m benchmarks.instructions            # needs valgrind; about nine minutes

Each workload and side runs in its own ``valgrind --tool=callgrind`` child process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from agents.stream_events import StreamEvent

from ag_ui_openai_agents import AGUITranslator, FastEventEncoder
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator

from ._support import run_input
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
SIDES = ("engine", "total", "fast", "floor", "interleaved", "bound")
_UNDER_CALLGRIND = "AG_UI_BENCHMARK_UNDER_CALLGRIND"
REPLAYS = 2


def _instrument(on: bool) -> None:
    """Switch callgrind's instrumentation of this process (only when run by :func:`_count`)."""
    if os.environ.get(_UNDER_CALLGRIND) != "1":
        return
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
        capture_output=True,
        check=False,
    )


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
    gc.collect()
    gc.freeze()
    gc.disable()
    _instrument(True)
    try:
        for _ in range(REPLAYS):
            await _replay_side(side, events, request, produced, plan, grouped, encode)
    finally:
        _instrument(False)
        gc.enable()
        gc.unfreeze()
    print(f"sdk-events {len(events)}", flush=True)


def _count(workload: str, side: str) -> float:
    """Instructions per SDK event of one side of one workload."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "benchmarks.instructions",
        "--child",
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
    args = parser.parse_args(argv)
    if args.child:
        asyncio.run(_child(*args.child))
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind (with callgrind_control) is needed", file=sys.stderr)
        return 2
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
            f"bound/floor {counts['bound'] / counts['floor']:.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
