"""Run every benchmark, print the tables and write ``benchmarks/results.{md,json}``.

    uv run python -m benchmarks                  # everything (several minutes)
    uv run python -m benchmarks --skip-server    # translator benchmarks only
    uv run python -m benchmarks --quick          # tiny sizes, a structure check

See ``benchmarks/README.md`` for what each number means.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import set_tracing_disabled
from agents.stream_events import StreamEvent

from ._support import machine, run_input
from .real_run import measure_real_run
from .report import markdown_report
from .server_load import ServerConfig, choose_target, measure_server
from .throughput import (
    ThroughputResult,
    measure_linearity,
    measure_memory,
    measure_throughput,
)
from .workloads import Workload, handoff_chain, long_answer, record, tool_turns

__all__ = ["Settings", "main", "run_benchmarks"]

HERE = Path(__file__).resolve().parent


@dataclass
class Settings:
    """What to run and at which sizes."""

    long_deltas: tuple[int, ...] = (1_000, 10_000, 100_000)
    tool_turns: int = 50
    handoff_agents: int = 6
    handoffs: int = 18
    repetitions: int = 9
    warmups: int = 2
    sample_seconds: float = 0.3
    real_run_deltas: int = 10_000
    real_run_repetitions: int = 15
    server: bool = True
    translator: bool = True
    """The replay, real-run, linearity and memory benchmarks (all but the server)."""
    server_app: str = "auto"
    servers: tuple[ServerConfig, ...] = (ServerConfig(1), ServerConfig(2, True))
    clients: tuple[int, ...] = (1, 50, 200)
    server_repetitions: int = 5
    requests_per_client: int = 4
    min_requests: int = 40
    time_limit: float = 30.0
    server_warmup: int = 8
    out_dir: Path = field(default_factory=lambda: HERE)

    @classmethod
    def quick(cls) -> Settings:
        """Tiny sizes: seconds, for checking that everything runs."""
        return cls(
            long_deltas=(10, 100),
            tool_turns=1,
            handoff_agents=2,
            handoffs=2,
            repetitions=2,
            warmups=0,
            sample_seconds=0.0,
            real_run_deltas=100,
            real_run_repetitions=2,
            servers=(ServerConfig(1),),
            clients=(1, 4),
            server_repetitions=1,
            requests_per_client=2,
            min_requests=2,
            time_limit=10.0,
            server_warmup=0,
        )


def _workloads(settings: Settings) -> list[Workload]:
    return [
        *(long_answer(count) for count in settings.long_deltas),
        tool_turns(settings.tool_turns),
        handoff_chain(settings.handoff_agents, settings.handoffs),
    ]


async def _throughput(settings: Settings, data: dict[str, Any]) -> None:
    request = run_input()
    results: list[ThroughputResult] = []
    sizes = sorted(settings.long_deltas)
    kept: dict[int, list[StreamEvent]] = {}
    for workload in _workloads(settings):
        events = await record(workload)
        result = await measure_throughput(
            workload.name,
            events,
            request,
            repetitions=settings.repetitions,
            warmups=settings.warmups,
            sample_seconds=settings.sample_seconds,
        )
        results.append(result)
        _print_throughput(result)
        deltas = workload.deltas
        if deltas is not None and deltas in sizes[-2:]:
            kept[deltas] = events
        if deltas == sizes[-1]:
            memory = await measure_memory(events, request, workload.text_chars)
            data["memory"] = {"deltas": deltas, **memory.as_dict()}
        del events
        gc.collect()
    data["throughput"] = [result.as_dict() for result in results]
    if len(kept) == 2:
        linear = await measure_linearity(
            kept[sizes[-2]],
            kept[sizes[-1]],
            request,
            repetitions=settings.repetitions,
            warmups=min(settings.warmups, 1),
        )
        data["linearity"] = linear.as_dict()
        print(f"linearity: {linear.as_dict()['ratio']:.2f}", flush=True)
    kept.clear()
    gc.collect()


async def _real_run(settings: Settings, data: dict[str, Any]) -> None:
    request = run_input()
    workloads = [
        long_answer(settings.real_run_deltas),
        tool_turns(settings.tool_turns),
        handoff_chain(settings.handoff_agents, settings.handoffs),
    ]
    results = []
    for workload in workloads:
        result = await measure_real_run(
            workload,
            request,
            repetitions=settings.real_run_repetitions,
            warmups=min(settings.warmups, 1),
        )
        entry = result.as_dict()
        results.append(entry)
        print(
            f"real run, {result.name:<44} bare {entry['bare_median_us']:7.2f} us  "
            f"adapted {entry['adapted_median_us']:7.2f} us  "
            f"fast {entry['fast_median_us']:7.2f} us per SDK event",
            flush=True,
        )
    data["real_run"] = results


def _print_throughput(result: ThroughputResult) -> None:
    total, floor, ratio = result.total_us_per_event, result.floor_us_per_event, result.ratio
    bound, fast = result.bound_ratio, result.fast_ratio
    print(
        f"{result.name:<44} {result.sdk_events:>8,} SDK events  "
        f"total {total.median:6.2f} us  floor {floor.median:6.2f} us  "
        f"ratio {ratio.median:5.3f} ({ratio.low:.3f}-{ratio.high:.3f})  "
        f"fast {fast.median:5.3f} ({fast.low:.3f}-{fast.high:.3f})  "
        f"interleaved {result.interleaved_ratio.median:5.3f}  bound {bound.median:5.3f}  "
        f"minimal {result.minimal_ratio.median:5.3f}",
        flush=True,
    )


async def _server(settings: Settings, data: dict[str, Any]) -> None:
    target = choose_target(settings.server_app)
    print(f"server: {target.label}", flush=True)
    levels = await measure_server(
        target,
        configs=settings.servers,
        clients=settings.clients,
        repetitions=settings.server_repetitions,
        requests_per_client=settings.requests_per_client,
        min_requests=settings.min_requests,
        time_limit=settings.time_limit,
        warmup_requests=settings.server_warmup,
    )
    for level in levels:
        print(
            f"workers {level.workers} {level.encoder:<8} clients {level.clients:>3}: "
            f"{sum(level.runs)} runs, {max(level.runs_per_second):.1f} runs/s best, "
            f"errors {len(level.errors)}",
            flush=True,
        )
    data["server"] = {
        "target": target.label,
        "requests_per_client": settings.requests_per_client,
        "min_requests": settings.min_requests,
        "time_limit": settings.time_limit,
        "levels": [level.as_dict() for level in levels],
    }


async def run_benchmarks(settings: Settings, command: str = "") -> dict[str, Any]:
    """Run what ``settings`` asks for; write and return the results."""
    set_tracing_disabled(True)
    data: dict[str, Any] = {
        "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command or "uv run python -m benchmarks",
        "machine": machine(),
        "load_average": " ".join(f"{value:.2f}" for value in os.getloadavg()),
        "settings": {
            "repetitions": settings.repetitions,
            "warmups": settings.warmups,
            "sample_seconds": settings.sample_seconds,
        },
    }
    if settings.translator:
        await _throughput(settings, data)
        await _real_run(settings, data)
    if settings.server:
        await _server(settings, data)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    (settings.out_dir / "results.json").write_text(json.dumps(data, indent=2) + "\n")
    report = markdown_report(data)
    (settings.out_dir / "results.md").write_text(report + "\n")
    return data


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Run the benchmarks of ag-ui-openai-agents."
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes (seconds)")
    parser.add_argument("--repetitions", type=int, help="timed repetitions per workload (≥ 5)")
    parser.add_argument("--skip-server", action="store_true", help="translator benchmarks only")
    parser.add_argument("--server-only", action="store_true", help="the server benchmark only")
    parser.add_argument(
        "--server-app",
        choices=("auto", "example", "scripted"),
        default="auto",
        help="the example server (default when its environment works) or the scripted app",
    )
    parser.add_argument("--server-repetitions", type=int, help="repetitions per server level")
    parser.add_argument("--out", type=Path, help="directory for results.md / results.json")
    parser.add_argument(
        "--render", action="store_true", help="only rewrite results.md from results.json"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    args = _arguments(sys.argv[1:] if argv is None else argv)
    settings = Settings.quick() if args.quick else Settings()
    if args.repetitions:
        settings.repetitions = args.repetitions
        settings.real_run_repetitions = args.repetitions
    if args.server_repetitions:
        settings.server_repetitions = args.server_repetitions
    settings.server = not args.skip_server
    settings.translator = not args.server_only
    settings.server_app = args.server_app
    if args.out:
        settings.out_dir = args.out
    if args.render:
        data = json.loads((settings.out_dir / "results.json").read_text())
        (settings.out_dir / "results.md").write_text(markdown_report(data) + "\n")
        print(markdown_report(data))
        return 0
    command = "uv run python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv)
    data = asyncio.run(run_benchmarks(settings, command.strip()))
    print()
    print(markdown_report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
