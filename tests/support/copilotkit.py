"""Serve AG-UI routes through CopilotKit's runtime 1.75 (``e2e/copilotkit/runtime.mjs``).

Most applications put ``@copilotkit/runtime`` between the browser and an AG-UI server: one
``HttpAgent`` (``@ag-ui/client`` 0.0.59) per route, behind ``POST <base>/agent/<id>/run``.
Typical use in a test::

    from support.copilotkit import ensure_copilotkit, serve_copilot_runtime

    def test_through_the_runtime() -> None:
        ensure_copilotkit()  # skips the test when Node or npm is missing
        with serve_app(app) as upstream, serve_copilot_runtime(upstream, ["agent"]) as runtime:
            result = run_client("v0", {"url": runtime.run_url("agent"), "turns": [...]})
        assert result["ok"]
        assert runtime.errors() == []

The runtime's own log (stderr, one ``[level]`` prefix a line) is collected while it runs, so
a test can fail on any error it logged, as an operator would see it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .e2e import COPILOTKIT_DIR, COPILOTKIT_RUNTIME, E2EHarnessError, ensure_node_modules

RUNTIME_START_TIMEOUT_SECONDS = 60.0
RUNTIME_STOP_TIMEOUT_SECONDS = 10.0


def ensure_copilotkit() -> None:
    """Install the pinned ``@copilotkit/runtime`` into e2e/copilotkit unless it is there."""
    ensure_node_modules(COPILOTKIT_DIR)


@dataclass
class CopilotRuntimeProcess:
    """A running CopilotKit runtime in front of one upstream AG-UI server."""

    base_url: str
    """The runtime's base URL, ``http://127.0.0.1:<port>/api/copilotkit``."""
    log_lines: list[str] = field(default_factory=list)
    """Every line the runtime logged so far, with its ``[level]`` prefix."""

    def run_url(self, agent_id: str) -> str:
        """Where CopilotKit's frontend posts a run of ``agent_id``."""
        return f"{self.base_url}/agent/{agent_id}/run"

    def errors(self) -> list[str]:
        """The lines the runtime logged at error level (or as uncaught failures)."""
        return [line for line in self.log_lines if line.startswith("[error]")]


def _collect(stream: Iterable[str], into: list[str]) -> None:
    for line in stream:
        into.append(line.rstrip("\n"))


def _first_line(stream: IO[str], into: list[str]) -> None:
    into.append(stream.readline())


@contextmanager
def serve_copilot_runtime(
    upstream: str, agent_ids: Iterable[str], *, fetch_module: Path | None = None
) -> Iterator[CopilotRuntimeProcess]:
    """Start the runtime with one ``HttpAgent`` per id posting to ``<upstream>/<id>``; with
    ``fetch_module``, each agent's ``fetch`` is that module's ``resumingFetch()``."""
    node = shutil.which("node")
    if node is None:
        raise E2EHarnessError("node is not on PATH")
    ids = ",".join(agent_ids)
    wrap = [] if fetch_module is None else ["--resuming-fetch", str(fetch_module)]
    proc = subprocess.Popen(
        [node, str(COPILOTKIT_RUNTIME), "--upstream", upstream, "--agents", ids, *wrap],
        cwd=COPILOTKIT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(target=_collect, args=(proc.stderr, lines), daemon=True)
    reader.start()
    try:
        runtime = CopilotRuntimeProcess(_read_url(proc), lines)
        yield runtime
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=RUNTIME_STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=RUNTIME_STOP_TIMEOUT_SECONDS)


def _read_url(proc: subprocess.Popen[str]) -> str:
    """The base URL from the runtime's first stdout line, or an error with its exit code."""
    assert proc.stdout is not None
    result: list[str] = []
    reader = threading.Thread(target=_first_line, args=(proc.stdout, result), daemon=True)
    reader.start()
    reader.join(RUNTIME_START_TIMEOUT_SECONDS)
    line = result[0] if result else ""
    if not line:
        raise E2EHarnessError(
            f"the CopilotKit runtime did not start (exit code {proc.poll()}); see its stderr"
        )
    try:
        url = json.loads(line)["url"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise E2EHarnessError(f"unexpected first line from the runtime: {line!r}") from exc
    if not isinstance(url, str):
        raise E2EHarnessError(f"unexpected first line from the runtime: {line!r}")
    return url
