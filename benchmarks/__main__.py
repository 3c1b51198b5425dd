"""Run the benchmarks and print their report as Markdown.

uv run --group bench python -m benchmarks            # quick sizes, about a minute
uv run --group bench python -m benchmarks --full     # the sizes of results.md
... --out report.md                                  # also write the report to a file
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from .concurrency import measure_concurrency
from .event_log import event_log_table, measure_event_log
from .live_load import live_load_table, measure_live_load
from .loop_lag import loop_lag_table, measure_loop_lag
from .open_streams import measure_open_streams
from .per_token import measure_memory, measure_per_token
from .report import (
    concurrency_sweep_table,
    environment,
    memory_table,
    open_streams_table,
    per_token_table,
)
from .resume import measure_resume, resume_table
from .serve import SERVERS
from .sides import pydantic_ai_version

__all__ = ["Sizes", "main", "run"]


@dataclass
class Sizes:
    """How big each benchmark runs."""

    tokens: int
    repetitions: int
    memory_tokens: int
    streams: tuple[int, ...]
    """The concurrent loads, each run on both uvicorn configurations."""
    stream_tokens: int
    rate: float
    ramp: float
    resume_calls: int = 200
    """N of the resume benchmark: it times N and 10N open calls and entries."""
    open_streams: int = 20
    """Runs held open at once for the memory per open stream."""
    open_tokens: int = 200
    """Tokens of each model call of those runs."""
    lag_calls: tuple[int, ...] = (1_000, 5_000)
    """Answered tool calls of the requests the loop lag is measured against."""
    lag_state_mb: tuple[float, ...] = (0.25, 1.0)
    """Shared state sizes (MB) the loop lag is measured against, ten changes each."""
    log_lengths: tuple[int, ...] = (1_000, 10_000)
    """Events of the logged runs a reattach is timed on."""
    log_catch_up: int = 100
    """Events a reattach near a run's end catches up on."""
    live_streams: int = 50
    """Paced streams of the live-run load (each a run of its own thread, logged or not)."""

    @classmethod
    def quick(cls) -> Sizes:
        """About a minute on 2 cores."""
        return cls(300, 5, 2_000, (50,), 40, 20.0, 1.0, 200, 20, 200)

    @classmethod
    def full(cls) -> Sizes:
        """The sizes of results.md: a few minutes on 2 cores."""
        return cls(
            2_000, 15, 10_000, (100, 200, 300, 500), 100, 20.0, 2.0, 1_000, 100, 400,
            (1_000, 5_000, 25_000), (0.25, 1.0, 5.6), live_streams=200,
        )  # fmt: skip


def run(sizes: Sizes, *, concurrency: bool = True) -> str:
    """Run every benchmark at `sizes`; the report."""
    with_pai = pydantic_ai_version() is not None
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = ["# Benchmark results", "", f"Measured {started}.", "", *environment(), ""]
    if not with_pai:
        lines += ["pydantic-ai is not installed (`--group bench`): its columns are left out.", ""]
    lines += ["## CPU per streamed token and time to first event", ""]
    lines += per_token_table(measure_per_token(sizes.tokens, sizes.repetitions, with_pai=with_pai))
    lines += ["", "## Memory per stream", ""]
    lines += memory_table(measure_memory(sizes.memory_tokens, with_pai=with_pai))
    lines += ["", "## Memory per open stream", ""]
    lines += open_streams_table(measure_open_streams(sizes.open_streams, sizes.open_tokens))
    lines += ["", "## Resume matching: N and 10N open calls and entries", ""]
    lines += resume_table(measure_resume(sizes.resume_calls))
    lines += ["", "## Event loop lag: request size and state size", ""]
    lines += loop_lag_table(measure_loop_lag(sizes.lag_calls, sizes.lag_state_mb))
    lines += ["", "## Event log: CPU per token, memory per live run, reattach", ""]
    lines += event_log_table(
        measure_event_log(
            sizes.tokens, sizes.repetitions, memory_tokens=(sizes.tokens, sizes.memory_tokens),
            lengths=sizes.log_lengths, catch_up=sizes.log_catch_up,
        )
    )  # fmt: skip
    if concurrency:
        reports = [
            measure_concurrency(
                streams, sizes.stream_tokens, sizes.rate, ramp=sizes.ramp, server_kind=kind
            )
            for kind in SERVERS
            for streams in sizes.streams
        ]
        lines += ["", "## Concurrent paced streams on one uvicorn process", ""]
        lines += _load_sizes(sizes) + concurrency_sweep_table(reports)
        live = measure_live_load(
            sizes.live_streams, sizes.stream_tokens, sizes.rate, ramp=sizes.ramp
        )
        lines += ["", "## Detached runs under load: logged against attached", ""]
        lines += live_load_table(live)
    return "\n".join(lines) + "\n"


def _load_sizes(sizes: Sizes) -> list[str]:
    return [
        f"Each stream: {sizes.stream_tokens} tokens at {sizes.rate:g} tokens/s; the streams "
        f"start evenly over {sizes.ramp:g} s.",
        "",
    ]


def main() -> None:
    """Parse the flags, run, print (and write) the report."""
    parser = argparse.ArgumentParser(description="AG-UI adapter benchmarks")
    parser.add_argument("--full", action="store_true", help="the sizes of results.md")
    parser.add_argument("--no-concurrency", action="store_true", help="skip the server load")
    parser.add_argument(
        "--streams", type=int, nargs="+", help="concurrent stream counts (override the sizes)"
    )
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args()
    sizes = Sizes.full() if args.full else Sizes.quick()
    if args.streams:
        sizes.streams = tuple(args.streams)
    text = run(sizes, concurrency=not args.no_concurrency)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
