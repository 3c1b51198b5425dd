"""Many concurrent network-paced streams on one uvicorn process.

The app of `serve.py` runs in a uvicorn process of its own; the load generator of `load.py`
runs in two others, each with half of the streams. While the load runs, the server's CPU time
and resident memory are read from `/proc` every 0.1 s. Reported: the token rate held (per
stream and in all, against the model's pace), the delay from the model's token to the client's
receipt (p50, p99), the server's CPU, its memory per open stream (peak RSS during the load
minus its RSS before, per stream), the load generators' CPU (summed), and errors. Loopback
only; bounded by the stream count and a timeout.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .load import percentiles

__all__ = ["ConcurrencyReport", "measure_concurrency"]

ROOT = Path(__file__).resolve().parents[1]
LOAD_PROCESSES = 2
"""One httpx client in one process cannot read 500 streams' lines on time on its own."""
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class ConcurrencyReport:
    """What one load against the served app gave (see the module's docstring)."""

    streams: int
    tokens: int
    rate: float
    """Tokens per second of each stream, as the model paces them."""
    ramp_s: float
    server: str = "h11"
    """uvicorn's HTTP implementation and loop: "h11" (asyncio) or "standard" (httptools, uvloop)."""
    clients: int = 1
    """Load generator processes, each with its share of the streams."""
    wall_s: float = 0.0
    tokens_received: int = 0
    stream_rate: dict[str, float] = field(default_factory=dict)
    """Per stream, tokens/s between its first and last token: median and min."""
    aggregate_rate: float = 0.0
    """Tokens received / the time from the first to the last token anywhere."""
    offered_rate: float = 0.0
    """The same had every stream kept the model's pace."""
    latency_ms: dict[str, float] = field(default_factory=dict)
    first_event_ms: dict[str, float] = field(default_factory=dict)
    server_cpu_s: float = 0.0
    server_rss_idle_mb: float = 0.0
    server_rss_peak_mb: float = 0.0
    kb_per_open_stream: float = 0.0
    load_cpu_s: float = 0.0
    errors: int = 0
    error_kinds: list[str] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _proc(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) and resident MB of process `pid`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return cpu, rss


def _wait_healthy(url: str, server: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            if httpx.get(url + "/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not answer its health check")


def _load_args(url: str, streams: int, ramp: float, timeout: float, unique: bool) -> list[str]:
    args = [sys.executable, "-m", "benchmarks.load", "--url", url, "--streams", str(streams)]
    return [*args, "--ramp", str(ramp), "--timeout", str(timeout)] + ["--unique"] * unique


def _run_load(
    url: str, streams: int, ramp: float, timeout: float, clients: int = 1, unique: bool = False
) -> dict[str, Any]:
    """Run the load from `clients` processes at once, each with its share of the streams."""
    shares = [streams // clients + (i < streams % clients) for i in range(clients)]
    running = [
        subprocess.Popen(
            _load_args(url, share, ramp, timeout, unique),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for share in shares
        if share
    ]
    outputs = [process.communicate(timeout=timeout + 60)[0] for process in running]
    if any(process.returncode for process in running):
        raise RuntimeError("a load generator failed")
    return _merge([json.loads(output) for output in outputs])


def _merge(loads: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary of several load generators' (their clocks start within a few ms)."""
    latencies = sorted(v for load in loads for v in load["latencies_ms"])
    return {
        "wall_s": max(load["wall_s"] for load in loads),
        "cpu_s": sum(load["cpu_s"] for load in loads),
        "tokens": sum(load["tokens"] for load in loads),
        "latency_ms": percentiles(latencies),
        "errors": sum(load["errors"] for load in loads),
        "error_kinds": sorted({kind for load in loads for kind in load["error_kinds"]})[:5],
        "streams": [stream for load in loads for stream in load["streams"]],
    }


def _sample_while(pid: int, running: threading.Event, peaks: list[float]) -> None:
    while running.is_set():
        peaks.append(_proc(pid)[1])
        time.sleep(0.1)


def _start_server(
    port: int, tokens: int, interval: float, server: str, serve_args: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "benchmarks.serve", "--port", str(port), *serve_args]
    args += ["--tokens", str(tokens), "--interval", str(interval)]
    args += ["--standard"] if server == "standard" else []
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL)


def measure_concurrency(
    streams: int,
    tokens: int,
    rate: float,
    *,
    ramp: float = 1.0,
    timeout: float = 120.0,
    server_kind: str = "h11",
    clients: int = LOAD_PROCESSES,
    serve_args: tuple[str, ...] = (),
    full_warm_up: bool = False,
) -> ConcurrencyReport:
    """Serve (`serve_args`: more flags of `serve.py`), warm up with a few streams (with
    `full_warm_up`, the whole load once: a running server's connection pools and caches are
    then as large as the load makes them), then run the load (from `clients` processes) and
    read the server meanwhile. With `serve_args`, each stream is a run of its own thread."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/agent"
    server = _start_server(port, tokens, 1.0 / rate, server_kind, serve_args)
    unique = bool(serve_args)
    try:
        _wait_healthy(url, server)
        if full_warm_up:
            _run_load(url, streams, ramp, timeout, clients, unique)
        else:
            _run_load(url, min(streams, 5), 0.0, timeout, unique=unique)
        cpu_before, idle = _proc(server.pid)
        running, peaks = threading.Event(), [idle]
        running.set()
        sampler = threading.Thread(target=_sample_while, args=(server.pid, running, peaks))
        sampler.start()
        try:
            load = _run_load(url, streams, ramp, timeout, clients, unique)
        finally:
            running.clear()
            sampler.join()
        cpu_after = _proc(server.pid)[0]
    finally:
        server.terminate()
        server.wait(timeout=30)
    report = ConcurrencyReport(streams, tokens, rate, ramp, server=server_kind, clients=clients)
    report.server_cpu_s = cpu_after - cpu_before
    report.server_rss_idle_mb, report.server_rss_peak_mb = idle, max(peaks)
    report.kb_per_open_stream = (max(peaks) - idle) * 1024 / max(streams, 1)
    _fill_from_load(report, load)
    return report


def _fill_from_load(report: ConcurrencyReport, load: dict[str, Any]) -> None:
    report.wall_s, report.load_cpu_s = load["wall_s"], load["cpu_s"]
    report.tokens_received, report.latency_ms = load["tokens"], load["latency_ms"]
    report.errors, report.error_kinds = load["errors"], load["error_kinds"]
    done = [s for s in load["streams"] if s["tokens"] > 1 and s["last_token"] is not None]
    rates = [(s["tokens"] - 1) / (s["last_token"] - s["first_token"]) for s in done]
    if rates:
        report.stream_rate = {"median": statistics.median(rates), "min": min(rates)}
    firsts = [s["first_token"] for s in done]
    if firsts:
        span = max(s["last_token"] for s in done) - min(firsts)
        report.aggregate_rate = report.tokens_received / span if span > 0 else 0.0
        ideal_span = report.ramp_s * (1 - 1 / max(report.streams, 1))
        ideal_span += (report.tokens - 1) / report.rate
        report.offered_rate = report.streams * report.tokens / ideal_span
    starts = sorted(
        (s["first_event"] - s["requested"]) * 1e3 for s in load["streams"] if s["first_event"]
    )
    if starts:
        report.first_event_ms = {"median": statistics.median(starts), "max": starts[-1]}
