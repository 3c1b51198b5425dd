"""Paced streams of detached, logged runs on one uvicorn process, against the same load whose
runs are not logged.

The concurrency benchmark's harness (`concurrency.py`: the served app in a process of its
own, two load generator processes, the server's CPU read from `/proc`), each stream a run of
its own thread, with a thread store:

- *SQLite, attached*: `SQLiteThreadStore(detached_runs=False)`: a run is its response, nothing
  is logged; *SQLite, logged*: the default, detached runs whose events go to the in-process
  event log and are read back from it;
- *Redis, attached* / *Redis, logged*: the same on `RedisThreadStore`, a real `redis-server`
  on loopback (its rows are left out when the binary is missing). The logged runs append to
  Redis Streams in batches (one script call, one round trip, per flush).

Each configuration is warmed up with the whole load once before it is measured, so the
server's connection pools (the Redis client's grows to the load's concurrency, each new
connection costing milliseconds) and caches are those of a server that has been running.

Reported per configuration: the delay from the model's token to its receipt (p50, p99), the
server's CPU per received token, and errors; then, per store, the logged runs' p99 as a
multiple of the attached runs' (the target: within 2x) and their added CPU per token.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .concurrency import LOAD_PROCESSES, ConcurrencyReport, measure_concurrency
from .event_log import redis_server

__all__ = ["LiveLoadReport", "live_load_table", "measure_live_load"]


@dataclass
class LiveLoadReport:
    """The loads of one size, by configuration (see the module's docstring)."""

    streams: int
    tokens: int
    rate: float
    loads: dict[str, ConcurrencyReport] = field(default_factory=dict)


def _cpu_us_per_token(report: ConcurrencyReport) -> float:
    return report.server_cpu_s * 1e6 / max(report.tokens_received, 1)


def measure_live_load(
    streams: int, tokens: int, rate: float, *, ramp: float = 1.0, clients: int = LOAD_PROCESSES
) -> LiveLoadReport:
    """Run the load on each configuration (see the module's docstring), from ``clients``
    load generator processes."""
    report = LiveLoadReport(streams, tokens, rate)
    with tempfile.TemporaryDirectory() as directory, redis_server() as redis_url:
        stores = {"SQLite": f"sqlite:{Path(directory) / 'threads.db'}"}
        if redis_url is not None:
            stores["Redis"] = redis_url
        for name, threads in stores.items():
            for mode, extra in (("attached", ("--attached",)), ("logged", ())):
                serve_args = ("--threads", threads, *extra)
                report.loads[f"{name}, {mode}"] = measure_concurrency(
                    streams,
                    tokens,
                    rate,
                    ramp=ramp,
                    clients=clients,
                    serve_args=serve_args,
                    full_warm_up=True,
                )
    return report


def live_load_table(report: LiveLoadReport) -> list[str]:
    """The report as Markdown lines."""
    lines = [
        f"{report.streams} streams of {report.tokens} tokens at {report.rate:g} tokens/s each, "
        "one uvicorn worker, each stream a run of its own thread:",
        "",
        "| configuration | p50 ms | p99 ms | server CPU µs/token | errors |",
        "|---|---|---|---|---|",
    ]
    for name, load in report.loads.items():
        lines.append(
            f"| {name} | {load.latency_ms.get('p50', 0):.1f} | {load.latency_ms.get('p99', 0):.1f}"
            f" | {_cpu_us_per_token(load):.0f} | {load.errors} |"
        )
    lines += ["", "| store | logged p99 / attached p99 | added CPU µs/token |", "|---|---|---|"]
    for store in dict.fromkeys(name.split(",")[0] for name in report.loads):
        attached, logged = (
            report.loads.get(f"{store}, attached"),
            report.loads.get(f"{store}, logged"),
        )
        if attached is None or logged is None:
            continue
        ratio = logged.latency_ms.get("p99", 0) / max(attached.latency_ms.get("p99", 0), 1e-9)
        added = _cpu_us_per_token(logged) - _cpu_us_per_token(attached)
        lines.append(f"| {store} | {ratio:.2f}x | {added:+.0f} |")
    return lines
