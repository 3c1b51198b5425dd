"""A real ``redis-server`` (Debian's package) on a free port in a temporary directory.

When the binary is missing the tests using it are skipped on a developer's machine and fail
under CI (``CI`` set), where ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from support.processes import free_port, listens, stop

START_SECONDS = 30.0


def _require_binary() -> str:
    binary = shutil.which("redis-server")
    if binary is not None:
        return binary
    message = "redis-server is not installed (apt-get install redis-server)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def redis_server_process(directory: Path) -> Iterator[str]:
    """Start ``redis-server`` (no persistence, loopback only); yield its URL; stop it."""
    binary = _require_binary()
    directory.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):
        port = free_port()
        log = directory / f"redis-{attempt}.log"
        command = [
            binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(directory), "--logfile", str(log),
        ]  # fmt: skip
        process = subprocess.Popen(command, cwd=directory)
        url = f"redis://127.0.0.1:{port}/0"
        try:
            if _ready(url, process, port):
                yield url
                return
        finally:
            stop(process)
    raise RuntimeError(f"redis-server did not start: {log.read_text(errors='replace')}")


def _ready(url: str, process: subprocess.Popen[bytes], port: int) -> bool:
    """Whether this ``process`` answers on ``port`` (not a server of another test that took
    the port first: this one then exits, and the caller tries another port)."""
    deadline = time.monotonic() + START_SECONDS
    client = redis.Redis.from_url(url)
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if client.ping() and listens(process.pid, port):
                    return True
                time.sleep(0.05)
            except redis.ConnectionError:
                time.sleep(0.05)
        return False
    finally:
        client.close()
