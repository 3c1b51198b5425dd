"""The AG-UI server under concurrent clients: runs per second and time to first event.

The server runs as a uvicorn subprocess on 127.0.0.1 (a free port), with one or two workers.
The preferred target is the example server (``examples/server.py`` on its offline demo
model, in the examples' own environment); when that environment is missing, an equivalent
app (:mod:`benchmarks.app`: ``OpenAIAgentsAgent`` + ``add_openai_agents_fastapi_endpoint`` on
the scripted model) stands in, and the results say so.

Each configuration runs two servers side by side, the app as it is (``FastEventEncoder``, the
endpoint's encoder) and the same app switched to ``ag_ui``'s ``EventEncoder``
(``benchmarks/encoders/standard_encoder_app.py``); their repetitions alternate.

For each concurrency level, that many httpx clients post AG-UI runs in a loop until a
request budget or a time limit is spent. Bodies are kept and checked after the timed window
(``parse_sse`` + ``check_stream`` on every one), so checking costs the server nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from ag_ui.core import RunAgentInput

from ._support import ROOT, invariants, run_input

__all__ = [
    "LevelResult",
    "ServerConfig",
    "ServerTarget",
    "choose_target",
    "measure_server",
    "running_server",
]

EXAMPLES = ROOT / "examples"
ENCODERS = ("fast", "standard")
"""``FastEventEncoder`` (the endpoint's own) and ``EventEncoder``."""
_SWITCH_DIR = Path(__file__).resolve().parent / "encoders"


@dataclass(frozen=True)
class ServerTarget:
    """How to start one server app and which route runs the agent."""

    label: str
    python: str
    app: str
    cwd: Path
    path: str
    prompt: str


def choose_target(preferred: str = "auto") -> ServerTarget:
    """The example server when its environment works (or ``preferred="scripted"``)."""
    scripted = ServerTarget(
        label="benchmarks/app.py (OpenAIAgentsAgent on the scripted model)",
        python=sys.executable,
        app="benchmarks.app:create_app",
        cwd=ROOT,
        path="/agent",
        prompt="Tell me about streaming.",
    )
    if preferred == "scripted":
        return scripted
    python = EXAMPLES / ".venv" / "bin" / "python"
    if (EXAMPLES / "server.py").exists() and python.exists():
        probe = subprocess.run(
            [str(python), "-c", "import server; server.create_app"],
            cwd=EXAMPLES,
            env=_server_env(),
            capture_output=True,
            timeout=120,
            check=False,
        )
        if probe.returncode == 0:
            return ServerTarget(
                label="examples/server.py, /agentic_chat (offline demo model)",
                python=str(python),
                app="server:create_app",
                cwd=EXAMPLES,
                path="/agentic_chat",
                prompt="Tell me about streaming events to a user interface.",
            )
    if preferred == "example":
        raise RuntimeError("the example server's environment is not usable (run dev.py serve)")
    return scripted


def _server_env(target: ServerTarget | None = None, encoder: str = "fast") -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "VIRTUAL_ENV", "PYTHONPATH")
    }
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "true"
    if target is not None and encoder == "standard":
        env["PYTHONPATH"] = str(_SWITCH_DIR)
        env["AG_UI_BENCHMARK_APP"] = target.app
    return env


def _app(target: ServerTarget, encoder: str) -> str:
    return "standard_encoder_app:create_app" if encoder == "standard" else target.app


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class ServerConfig:
    """How many uvicorn workers, and whether their sockets get ``TCP_NODELAY``.

    ``nodelay=False`` is uvicorn's own command line. With more than one worker it leaves
    Nagle's algorithm on (see ``benchmarks/serve.py``); ``nodelay=True`` starts the same
    workers through that launcher instead.
    """

    workers: int
    nodelay: bool = False

    @property
    def label(self) -> str:
        """``2`` or ``2, TCP_NODELAY``."""
        return f"{self.workers}, TCP_NODELAY" if self.nodelay else str(self.workers)


def _command(target: ServerTarget, config: ServerConfig, port: int, encoder: str) -> list[str]:
    app = _app(target, encoder)
    if config.nodelay:
        launcher = str(Path(__file__).resolve().with_name("serve.py"))
        return [
            target.python, launcher, app, "--port", str(port),
            "--workers", str(config.workers),
        ]  # fmt: skip
    return [
        target.python, "-m", "uvicorn", app, "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(config.workers),
        "--log-level", "warning", "--no-access-log", "--timeout-keep-alive", "120",
    ]  # fmt: skip


@contextlib.contextmanager
def running_server(
    target: ServerTarget, config: ServerConfig, encoder: str = "fast"
) -> Iterator[str]:
    """Start the server as ``config`` says, with ``encoder`` (one of :data:`ENCODERS`);
    yield its base URL; stop it on exit.

    Idle keep-alive connections are kept for 120 s, so that a pooled client connection
    is never closed under a client that is about to reuse it.
    """
    port = _free_port()
    workers = config.workers
    command = _command(target, config, port, encoder)
    process = subprocess.Popen(
        command,
        cwd=target.cwd,
        env=_server_env(target, encoder),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, base, workers)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        if process.stderr is not None:
            process.stderr.close()


def _wait_ready(process: subprocess.Popen[bytes], base: str, workers: int) -> None:
    deadline = time.monotonic() + 60
    ready = 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr is not None else ""
            raise RuntimeError(f"the server exited with {process.returncode}: {err[-2000:]}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                ready += 1
                if ready >= 3 * workers:
                    return
                continue
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not become ready within 60 s")


@dataclass
class _Sample:
    ttfe: float
    duration: float
    body: bytes
    run_input: RunAgentInput


@dataclass
class _Level:
    samples: list[_Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0


def _request(index: int, prompt: str) -> RunAgentInput:
    return run_input(f"run-{index}", prompt)


async def _one_run(
    client: httpx.AsyncClient, url: str, request: RunAgentInput, level: _Level
) -> None:
    payload = request.model_dump(mode="json", by_alias=True, exclude_none=True)
    start = time.perf_counter()
    ttfe: float | None = None
    chunks: list[bytes] = []
    try:
        async with client.stream(
            "POST", url, json=payload, headers={"accept": "text/event-stream"}
        ) as response:
            if response.status_code != 200:
                level.errors.append(f"HTTP {response.status_code}")
                await response.aread()
                return
            async for chunk in response.aiter_bytes():
                if ttfe is None and b"data:" in chunk:
                    ttfe = time.perf_counter() - start
                chunks.append(chunk)
    except httpx.HTTPError as exc:
        level.errors.append(f"{type(exc).__name__}: {exc}")
        return
    duration = time.perf_counter() - start
    if ttfe is None:
        level.errors.append("no event received")
        return
    level.samples.append(_Sample(ttfe, duration, b"".join(chunks), request))


async def _run_level(
    base: str, target: ServerTarget, clients: int, requests: int, time_limit: float
) -> _Level:
    level = _Level()
    url = f"{base}{target.path}"
    issued = 0
    deadline = 0.0

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal issued
        while issued < requests and time.perf_counter() < deadline:
            issued += 1
            await _one_run(client, url, _request(issued, target.prompt), level)

    # One client (one keep-alive connection) per simulated user: a shared pool of hundreds of
    # connections costs the load generator more per request than the server spends on it.
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    timeout = httpx.Timeout(60.0, connect=30.0)
    async with contextlib.AsyncExitStack() as stack:
        pool = [
            await stack.enter_async_context(httpx.AsyncClient(limits=limits, timeout=timeout))
            for _ in range(clients)
        ]
        # The time limit counts from the first request: on a loaded machine, opening hundreds
        # of clients can take longer than the limit itself.
        start = time.perf_counter()
        deadline = start + time_limit
        await asyncio.gather(*(client_loop(client) for client in pool))
        level.elapsed = time.perf_counter() - start
    return level


def _check(level: _Level) -> int:
    """Check every body with the project's stream checker; return how many were valid."""
    checker = invariants()
    valid = 0
    for sample in level.samples:
        try:
            events = checker.parse_sse(sample.body)
            checker.check_stream(events, run_input=sample.run_input)
        except AssertionError as exc:
            level.errors.append(f"invalid stream: {exc}")
        else:
            valid += 1
    return valid


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, round(fraction * (len(ordered) - 1))))
    return ordered[rank]


@dataclass(frozen=True)
class LevelResult:
    """One concurrency level of one server configuration, over its repetitions."""

    workers: str
    """The :class:`ServerConfig` label: ``1``, ``2`` or ``2, TCP_NODELAY``."""
    encoder: str
    """``fast`` (``FastEventEncoder``) or ``standard`` (``EventEncoder``)."""
    clients: int
    runs: list[int]
    runs_per_second: list[float]
    ttfe_p50_ms: list[float]
    ttfe_p99_ms: list[float]
    errors: list[str]
    valid_streams: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "workers": self.workers,
            "encoder": self.encoder,
            "clients": self.clients,
            "runs": self.runs,
            "runs_per_second": self.runs_per_second,
            "ttfe_p50_ms": self.ttfe_p50_ms,
            "ttfe_p99_ms": self.ttfe_p99_ms,
            "errors": len(self.errors),
            "error_samples": self.errors[:5],
            "valid_streams": self.valid_streams,
        }


async def measure_server(
    target: ServerTarget,
    *,
    configs: Sequence[ServerConfig] = (ServerConfig(1), ServerConfig(2, True)),
    encoders: Sequence[str] = ENCODERS,
    clients: Sequence[int] = (1, 50, 200),
    repetitions: int = 5,
    requests_per_client: int = 4,
    min_requests: int = 40,
    time_limit: float = 30.0,
    warmup_requests: int = 8,
) -> list[LevelResult]:
    """Every (workers, clients) combination, ``repetitions`` times each after a warmup, on
    one server per encoder, started together; the encoders' repetitions alternate."""
    results: list[LevelResult] = []
    for config in configs:
        with contextlib.ExitStack() as stack:
            bases = {
                encoder: stack.enter_context(running_server(target, config, encoder))
                for encoder in encoders
            }
            if warmup_requests:
                for base in bases.values():
                    await _run_level(base, target, 4, warmup_requests, time_limit)
            for client_count in clients:
                budget = max(min_requests, requests_per_client * client_count)
                results += await _measure_level(
                    bases, target, config, client_count, budget, repetitions, time_limit
                )
    return results


@dataclass
class _Figures:
    runs: list[int] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    valid: int = 0

    def add(self, level: _Level) -> None:
        self.valid += _check(level)
        ttfes = [sample.ttfe * 1e3 for sample in level.samples]
        self.runs.append(len(level.samples))
        self.rates.append(len(level.samples) / level.elapsed if level.elapsed else 0.0)
        self.p50.append(statistics.median(ttfes) if ttfes else float("nan"))
        self.p99.append(_percentile(ttfes, 0.99))
        self.errors.extend(level.errors)


async def _measure_level(
    bases: dict[str, str],
    target: ServerTarget,
    config: ServerConfig,
    clients: int,
    budget: int,
    repetitions: int,
    time_limit: float,
) -> list[LevelResult]:
    figures = {encoder: _Figures() for encoder in bases}
    order = list(bases)
    for repetition in range(repetitions):
        turn = repetition % len(order)
        for encoder in order[turn:] + order[:turn]:
            level = await _run_level(bases[encoder], target, clients, budget, time_limit)
            figures[encoder].add(level)
    return [
        LevelResult(
            config.label, encoder, clients, f.runs, f.rates, f.p50, f.p99, f.errors, f.valid
        )
        for encoder, f in figures.items()
    ]
