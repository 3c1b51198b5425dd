"""Tables for the terminal and for ``results.md``."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

__all__ = ["fmt_spread", "markdown_report", "table"]


def fmt_spread(values: Sequence[float], digits: int = 2) -> str:
    """``median (min-max)`` of ``values``."""
    if not values:
        return "n/a"
    median = statistics.median(values)
    return f"{median:.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, padded so it also reads well in a terminal."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


TOTAL_TARGET = 1.4
"""to_agui + EventEncoder, against the floor."""
FAST_TARGET = 0.7
"""to_agui + FastEventEncoder, against the floor (which encodes with EventEncoder)."""


def _verdict(spread: dict[str, Any] | None, target: float) -> str:
    if not spread:
        return "n/a"
    return "yes" if spread["median"] <= target else "NO"


def _throughput_table(results: Sequence[dict[str, Any]]) -> str:
    rows = []
    for result in results:
        fast = result.get("fast_ratio_per_repetition")
        rows.append(
            [
                result["name"],
                f"{result['sdk_events']:,}",
                f"{result['agui_events']:,}",
                fmt_spread(result["floor_us_per_event"]["samples"]),
                fmt_spread(result["total_us_per_event"]["samples"]),
                fmt_spread(result["ratio_per_repetition"]["samples"], 3),
                _verdict(result["ratio_per_repetition"], TOTAL_TARGET),
                fmt_spread(result.get("fast_us_per_event", {}).get("samples", [])),
                fmt_spread(fast["samples"] if fast else [], 3),
                _verdict(fast, FAST_TARGET),
                fmt_spread(
                    result.get("interleaved_ratio_per_repetition", {}).get("samples", []), 3
                ),
                fmt_spread(result.get("bound_ratio_per_repetition", {}).get("samples", []), 3),
                fmt_spread(result.get("minimal_ratio_per_repetition", {}).get("samples", []), 3),
            ]
        )
    headers = [
        "workload",
        "SDK events",
        "AG-UI events",
        "floor µs/SDK event",
        "total µs/SDK event",
        "total / floor",
        f"≤ {TOTAL_TARGET}",
        "fast total µs/SDK event",
        "fast / floor",
        f"≤ {FAST_TARGET}",
        "interleaved / floor",
        "bound / floor",
        "minimal / floor",
    ]
    return table(headers, rows)


def _scaling_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    linear = data.get("linearity")
    if linear:
        verdict = "yes" if linear["ratio"] <= 11 else "NO"
        lines.append(
            f"- time({linear['large']:,} SDK events) / time({linear['small']:,} SDK events), "
            f"paired runs, translation + EventEncoder: **{linear['ratio']:.2f}** (target ≤ 11: "
            f"{verdict}; per repetition {fmt_spread(linear['samples'])}); translation + "
            f"FastEventEncoder: {fmt_spread(linear.get('fast_samples', []))}; translation "
            f"alone, without encoding: {fmt_spread(linear['translation_samples'])}"
        )
    memory = data.get("memory")
    if memory:
        lines += _memory_lines(memory)
    return lines


def _real_run_table(runs: Sequence[dict[str, Any]], replays: Sequence[dict[str, Any]]) -> str:
    """Runs bare and adapted; the translation's share comes from the replay of the same stream."""
    replay = {entry["name"]: entry for entry in replays}
    rows = []
    for run in runs:
        same = replay.get(run["name"])
        translation = "n/a"
        if same is not None:
            # What translating adds per SDK event in the replay (total - floor, medians).
            added = same["total_us_per_event"]["median"] - same["floor_us_per_event"]["median"]
            translation = f"{added / run['adapted_median_us']:.1%}"
        rows.append(
            [
                run["name"],
                f"{run['sdk_events']:,}",
                fmt_spread(run["bare_us_per_event"], 1),
                fmt_spread(run["adapted_us_per_event"], 1),
                fmt_spread([share * 100 for share in run["added_share"]], 1),
                fmt_spread(run.get("fast_us_per_event", []), 1),
                fmt_spread([share * 100 for share in run.get("fast_overhead", [])], 1),
                fmt_spread([share * 100 for share in run.get("fast_overhead_cpu", [])], 1),
                translation,
            ]
        )
    headers = [
        "workload",
        "SDK events",
        "run alone µs/SDK event",
        "run + to_agui + EventEncoder µs/SDK event",
        "added by to_agui + EventEncoder, % of the adapted run",
        "run + to_agui + FastEventEncoder µs/SDK event",
        "FastEventEncoder run over the bare run, % (target ≤ 15 on the long answer)",
        "the same in CPU time, %",
        "translation alone (replay total - floor)",
    ]
    return table(headers, rows)


def _server_table(levels: Sequence[dict[str, Any]]) -> str:
    rows = []
    for level in levels:
        rows.append(
            [
                str(level["workers"]),
                str(level.get("encoder", "standard")),
                str(level["clients"]),
                str(sum(level["runs"])),
                fmt_spread(level["runs_per_second"], 1),
                fmt_spread(level["ttfe_p50_ms"], 1),
                fmt_spread(level["ttfe_p99_ms"], 1),
                str(level["errors"]),
                f"{level['valid_streams']}/{sum(level['runs'])}",
            ]
        )
    headers = [
        "workers",
        "encoder",
        "clients",
        "runs",
        "runs/s",
        "p50 first event ms",
        "p99 first event ms",
        "errors",
        "valid streams",
    ]
    return table(headers, rows)


def _machine_lines(machine: dict[str, Any]) -> list[str]:
    packages = ", ".join(f"{name} {version}" for name, version in machine["packages"].items())
    return [
        f"- CPU: {machine['cpu']}, nproc {machine['nproc']}",
        f"- Python {machine['python']} ({machine['implementation']}), {machine['platform']}",
        f"- {packages}",
    ]


def _memory_lines(memory: dict[str, Any]) -> list[str]:
    """The peak-memory figures: the endpoint's case (live stream, FastEventEncoder) first."""

    def peak(key: str) -> str:
        size = memory.get(f"{key}_peak_bytes")
        if not size:
            return "not measured"
        ratio = memory[f"{key}_ratio"]
        return f"{size / 1e6:.2f} MB = {ratio:.2f}x"

    live = memory.get("live_fast_encode_ratio")
    verdict = "not measured" if not live else ("yes" if live <= 2 else "NO")
    return [
        f"- peak memory, {memory['deltas']:,} deltas, streamed text "
        f"{memory['text_bytes'] / 1e6:.2f} MB. Live stream (every delta a fresh string, as "
        f"from the provider): translation + FastEventEncoder **{peak('live_fast_encode')}** "
        f"the text (target ≤ 2: {verdict}); translation alone {peak('live_translate')}. "
        f"Recorded stream (the deltas held by the recording): translation alone "
        f"{peak('translate')}; + EventEncoder {peak('encode')}; + FastEventEncoder "
        f"{peak('fast_encode')}",
    ]


def markdown_report(data: dict[str, Any]) -> str:
    """The whole results file."""
    settings = data["settings"]
    parts = [
        "# Benchmark results",
        "",
        f"Measured {data['when']} with `{data['command']}`; "
        f"{settings['repetitions']} repetitions after {settings['warmups']} warmups "
        "(median, then min-max).",
        "",
        *_machine_lines(data["machine"]),
        f"- load average when starting: {data['load_average']}",
        "",
    ]
    if data.get("throughput"):
        seconds = settings.get("sample_seconds")
        loops = ", ".join(f"{entry.get('loops_per_sample', 1)}" for entry in data["throughput"])
        length = f" for the total to last about {seconds} s" if seconds else ""
        note = (
            f"Each sample sums enough replays{length} (replays per sample, by row: {loops}); "
            "the replays of floor, interleaved floor, total (to_agui + EventEncoder), fast "
            "total (to_agui + FastEventEncoder), bound and minimal alternate one by one. "
            "Interleaved: the floor's work in the stream's order (after each SDK event, the "
            "encoding of its events). Bound: the same events freshly built and yielded after "
            "each SDK event, with no translating. Minimal: the bound in a translator's shape, "
            "one method call per SDK event keeping each delta (see benchmarks/README.md)."
        )
        parts += [
            "## Translator throughput",
            "",
            _throughput_table(data["throughput"]),
            "",
            note,
            "",
        ]
    if data.get("real_run"):
        parts += [
            "## Inside a real run",
            "",
            _real_run_table(data["real_run"], data.get("throughput", [])),
            "",
            "The whole `Runner.run_streamed` run on the scripted model, which answers at once; "
            "bare and adapted runs alternate. The last column divides what translating adds "
            "per SDK event in the replay above (total - floor) by the adapted run's time.",
            "",
        ]
    scaling = _scaling_lines(data)
    if scaling:
        parts += ["## Linear cost and memory", "", *scaling, ""]
    server = data.get("server")
    if server:
        parts += [
            "## Server",
            "",
            f"Target: {server['target']}. Request budget per repetition: "
            f"max({server['min_requests']}, {server['requests_per_client']} x clients), "
            f"time limit {server['time_limit']} s.",
            "",
            _server_table(server["levels"]),
            "",
        ]
    return "\n".join(parts)
