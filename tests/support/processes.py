"""Separate server processes for tests that must share nothing (scale-out, stateless resume).

Each process runs ``python -m uvicorn <app>`` from the repository root on its own free
127.0.0.1 port, with no API key, SDK tracing off, ``tests`` importable and its own name in the
environment. :func:`server_processes` starts them in parallel and always stops them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

TESTS_DIR = Path(__file__).resolve().parents[1]
PROJECT_DIR = TESTS_DIR.parent
STOP_SECONDS = 10.0


@dataclass
class Server:
    """One server process."""

    name: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def logs(self) -> str:
        """What the process printed so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def free_port() -> int:
    """A port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket listening on ``port`` (True where ``/proc``
    cannot tell). A port found free can be taken meanwhile by a server of a test running
    beside this one: the answers of that server must not be taken for those of ours."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return True
    inodes = set()
    for table in filter(Path.exists, tables):
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            listening = fields[3] == "0A"
            if listening and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):  # closed meanwhile (the listing's own, for one)
            if os.readlink(fd) in inodes:
                return True
    return False


def server_env(
    name_variable: str, name: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of one process: no API key, tracing off, ``tests`` importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    paths = [str(TESTS_DIR), *filter(None, [env.get("PYTHONPATH")])]
    env.update(
        PYTHONPATH=os.pathsep.join(paths),
        OPENAI_AGENTS_DISABLE_TRACING="true",
        **{name_variable: name},
        **(extra or {}),
    )
    return env


def launch(app: str, name: str, env: Mapping[str, str], log_dir: Path, attempt: int) -> Server:
    """Start one uvicorn process serving ``app`` (``module:attribute``)."""
    port = free_port()
    log = log_dir / f"server-{name}-{attempt}.log"
    command = [
        sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
        "--log-level", "warning", "--lifespan", "off",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=PROJECT_DIR, env=dict(env), stdout=out, stderr=subprocess.STDOUT
        )
    return Server(name, f"http://127.0.0.1:{port}", process, log)


def wait_ready(server: Server, health_path: str, seconds: float) -> bool:
    """Poll the health route; False when the process exits or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            return False
        try:
            answered = httpx.get(f"{server.url}{health_path}", timeout=2.0).status_code == 200
            if answered and listens(server.process.pid, int(server.url.rpartition(":")[2])):
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a process, killing it if it does not exit in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_SECONDS)


@contextmanager
def server_processes(
    app: str,
    names: tuple[str, ...],
    envs: Mapping[str, Mapping[str, str]],
    log_dir: Path,
    *,
    health_path: str = "/agent/health",
    start_seconds: float = 60.0,
) -> Iterator[list[Server]]:
    """Start one process per name (in parallel), each retried at most twice; always stopped."""
    started: list[subprocess.Popen[bytes]] = []

    def tracked(name: str, attempt: int) -> Server:
        server = launch(app, name, envs[name], log_dir, attempt)
        started.append(server.process)
        return server

    try:
        servers = [tracked(name, 0) for name in names]
        for position, server in enumerate(servers):
            attempt = 0
            while not wait_ready(server, health_path, start_seconds):
                stop(server.process)
                attempt += 1
                if attempt == 3:
                    raise RuntimeError(f"server {server.name} did not start:\n{server.logs()}")
                server = tracked(server.name, attempt)
            servers[position] = server
        yield servers
    finally:
        for process in started:
            stop(process)
