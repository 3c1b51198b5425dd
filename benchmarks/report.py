"""The benchmarks' report as Markdown."""

from __future__ import annotations

import os
import platform
from importlib.metadata import PackageNotFoundError, version

from ._encode import ENCODER_NAME
from .concurrency import ConcurrencyReport
from .open_streams import OpenStreamsReport
from .per_token import MemoryReport, TokenReport

__all__ = [
    "concurrency_table",
    "environment",
    "memory_table",
    "open_streams_table",
    "per_token_table",
]

LABELS = {
    "sdk_bare": "OpenAI Agents SDK run alone",
    "sdk_adapted": "the same through ag-ui-openai-agents, encoded",
    "sdk_adapted_state": "the same with a shared state (as OpenAIAgentsAgent runs it)",
    "pai_bare": "pydantic-ai run alone",
    "pai_adapted": "the same through pydantic-ai's AGUIAdapter, encoded",
}
PACKAGES = ("ag-ui-openai-agents", "openai-agents", "pydantic-ai-slim", "ag-ui-protocol")
PACKAGES += ("pydantic", "fastapi", "uvicorn", "httptools", "uvloop", "httpx")


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"


def environment() -> list[str]:
    """The machine and the versions, as list items."""
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return [
        f"- {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"load average at the start {load}",
        f"- Python {platform.python_version()} ({platform.python_implementation()})",
        "- " + ", ".join(f"{name} {_version(name)}" for name in PACKAGES),
        f"- SSE encoding: `{ENCODER_NAME}`",
    ]


def per_token_table(report: TokenReport) -> list[str]:
    """CPU per token and time to first event, one row per side, then the added figures."""
    lines = [
        f"{report.tokens} tokens per run, {report.repetitions} interleaved repetitions "
        "(median (min-max)).",
        "",
        "| run | CPU µs per token | first event ms | first token ms |",
        "|---|---|---|---|",
    ]
    for name, cpu in report.cpu_us.items():
        lines.append(
            f"| {LABELS[name]} | {cpu.show()} | {report.first_event_ms[name].show()} "
            f"| {report.first_token_ms[name].show()} |"
        )
    lines.append("")
    assert report.ours_added_us is not None
    lines.append(f"- added by ag-ui-openai-agents: **{report.ours_added_us.show()} µs per token**")
    if report.ours_state_added_us is not None:
        lines.append(
            f"- added with a shared state: **{report.ours_state_added_us.show()} µs per token**"
        )
    if report.pai_added_us is not None:
        lines.append(f"- added by pydantic-ai's adapter: **{report.pai_added_us.show()} µs**")
    if report.pai_added_us is not None and report.ratio is not None:
        verdict = "met" if report.ratio.median <= 1 / 3 else "missed"
        lines.append(
            f"- ours / pydantic-ai's, per repetition: **{report.ratio.show(3)}** "
            f"(target at most 0.333: {verdict}; repetitions where pydantic-ai's adapter "
            "added no CPU are left out)"
        )
    elif report.pai_added_us is not None:
        lines.append(
            "- ours / pydantic-ai's: not measured: pydantic-ai's adapter added no CPU in any "
            "repetition (the run is too short for the machine's noise)"
        )
    return lines


def memory_table(report: MemoryReport) -> list[str]:
    """Peak traced memory of one long stream, by side."""
    lines = [
        f"One stream of {report.tokens} tokens, peak of `tracemalloc`:",
        "",
        "| run | peak KB | bytes per token |",
        "|---|---|---|",
    ]
    for name, peak in report.peak_kb.items():
        per = peak * 1024 / report.tokens
        lines.append(f"| {LABELS[name]} | {peak:,.0f} | {per:,.0f} |")
    return lines


def open_streams_table(report: OpenStreamsReport) -> list[str]:
    """Memory per open stream, one row per run, one column pair per scenario."""
    scenarios = list(report.bytes_per_stream)
    header = " | ".join(f"{s}: KB per stream | above the SDK alone" for s in scenarios)
    lines = [
        f"{report.streams} runs at once, each of {report.turns} model calls of {report.tokens} "
        "tokens, stopped half-way through the first; `tracemalloc`:",
        "",
        f"| run | {header} |",
        "|---|" + "---|---|" * len(scenarios),
    ]
    for name in report.bytes_per_stream[scenarios[0]]:
        cells = []
        for scenario in scenarios:
            figures = report.bytes_per_stream[scenario]
            above = (figures[name] - figures["sdk_bare"]) / 1024
            cells += [f"{figures[name] / 1024:,.1f}", "" if name == "sdk_bare" else f"{above:,.1f}"]
        lines.append(f"| {LABELS[name]} | " + " | ".join(cells) + " |")
    return lines


def concurrency_table(report: ConcurrencyReport) -> list[str]:
    """The concurrent load's figures as a two-column table."""
    r = report
    wall = r.wall_s or 1.0
    rows = [
        ("streams, tokens each, model pace", f"{r.streams}, {r.tokens}, {r.rate:g} tokens/s"),
        ("started over", f"{r.ramp_s:g} s"),
        ("tokens received", f"{r.tokens_received:,} of {r.streams * r.tokens:,}"),
        ("tokens/s per stream, median (min)", _pair(r.stream_rate, "median", "min")),
        ("tokens/s in all (had every stream kept pace)",
         f"{r.aggregate_rate:,.0f} ({r.offered_rate:,.0f})"),
        ("model token to client receipt, p50 / p90 / p99 / max ms", _latency(r.latency_ms)),
        ("request to first event, median (max) ms", _pair(r.first_event_ms, "median", "max")),
        ("server CPU during the load", f"{r.server_cpu_s:.2f} s ({r.server_cpu_s / wall:.0%})"),
        ("load generators' CPU", f"{r.load_cpu_s:.2f} s ({r.load_cpu_s / wall:.0%}), "
         f"{r.clients} processes"),
        ("server RSS idle, peak", f"{r.server_rss_idle_mb:.1f} MB, {r.server_rss_peak_mb:.1f} MB"),
        ("memory per open stream", f"{r.kb_per_open_stream:.1f} KB"),
        ("errors", f"{r.errors} {'; '.join(r.error_kinds)}".strip()),
    ]  # fmt: skip
    rows.insert(0, ("uvicorn HTTP, event loop", SERVER_LABELS.get(r.server, r.server)))
    lines = [f"Load of {r.wall_s:.1f} s.", "", "| measure | value |", "|---|---|"]
    return lines + [f"| {name} | {value} |" for name, value in rows]


SWEEP_COLUMNS = (
    "uvicorn", "streams", "tokens/s per stream, median (min)", "tokens/s in all (offered)",
    "added latency p50 / p99 ms", "first event median ms", "server CPU", "server µs per token",
    "load generators' CPU (processes)", "KB per open stream", "errors",
)  # fmt: skip


def concurrency_sweep_table(reports: list[ConcurrencyReport]) -> list[str]:
    """One row per load: the stream count and the uvicorn configuration it ran on."""
    lines = ["| " + " | ".join(SWEEP_COLUMNS) + " |", "|" + "---|" * len(SWEEP_COLUMNS)]
    for r in reports:
        wall = r.wall_s or 1.0
        latency = r.latency_ms
        cells = [
            SERVER_LABELS.get(r.server, r.server), str(r.streams),
            _pair(r.stream_rate, "median", "min"),
            f"{r.aggregate_rate:,.0f} ({r.offered_rate:,.0f})",
            f"{latency['p50']:.1f} / {latency['p99']:.1f}" if latency else "n/a",
            f"{r.first_event_ms['median']:.1f}" if r.first_event_ms else "n/a",
            f"{r.server_cpu_s / wall:.0%}",
            f"{r.server_cpu_s * 1e6 / max(r.tokens_received, 1):.0f}",
            f"{r.load_cpu_s / wall:.0%} ({r.clients})", f"{r.kb_per_open_stream:.0f}",
            str(r.errors),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines


SERVER_LABELS = {"h11": "h11, asyncio", "standard": "httptools, uvloop"}


def _pair(values: dict[str, float], first: str, second: str) -> str:
    if not values:
        return "n/a"
    return f"{values[first]:.1f} ({values[second]:.1f})"


def _latency(values: dict[str, float]) -> str:
    if not values:
        return "n/a"
    return " / ".join(f"{values[k]:.1f}" for k in ("p50", "p90", "p99", "max"))
