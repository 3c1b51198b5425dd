"""Run real AG-UI TypeScript clients (``e2e/run-client.mjs``) against a local server.

Typical use in a test::

    from support.e2e import ensure_node_modules, run_client, serve_app

    def test_conversation() -> None:
        ensure_node_modules()  # skips the test when Node or npm is missing
        with serve_app(app) as base_url:
            result = run_client("v1", {"url": f"{base_url}/agent", "turns": [{"user": "hi"}]})
        assert result["ok"], result["turns"][-1]["error"]

``run_client`` returns the JSON document the script prints; e2e/README.md describes it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal

import pytest
import uvicorn
from starlette.types import ASGIApp

E2E_DIR = Path(__file__).resolve().parents[2] / "e2e"
RUN_CLIENT = E2E_DIR / "run-client.mjs"
COPILOTKIT_DIR = E2E_DIR / "copilotkit"
COPILOTKIT_RUNTIME = COPILOTKIT_DIR / "runtime.mjs"
CLIENT_VERSIONS: tuple[Literal["v1", "v0"], ...] = ("v1", "v0")
"""The clients every real-client check plays: 1.0.0, and 0.0.59 (CopilotKit 1.75's)."""
OLDEST_CLIENT: Literal["v057"] = "v057"
"""``@ag-ui/client`` 0.0.57 (CopilotKit 1.61, the AG-UI Dojo): it predates subagent events."""
MIN_NODE_MAJOR = 18
NPM_INSTALL_TIMEOUT_SECONDS = 300.0
SERVER_START_TIMEOUT_SECONDS = 10.0

ClientVersion = Literal["v1", "v0", "v057"]


class E2EHarnessError(RuntimeError):
    """The client script could not produce a result document."""


def _node_major() -> int | None:
    """Major version of the ``node`` on PATH, or None when there is none."""
    node = shutil.which("node")
    if node is None:
        return None
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def node_available() -> bool:
    """True when a recent enough ``node`` and an ``npm`` are on PATH."""
    major = _node_major()
    return major is not None and major >= MIN_NODE_MAJOR and shutil.which("npm") is not None


def _pinned_versions(folder: Path = E2E_DIR) -> dict[str, str]:
    """Dependency name -> exact version, as pinned in ``folder``'s package.json."""
    manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    pinned: dict[str, str] = {}
    for name, spec in manifest["dependencies"].items():
        # An npm alias reads "npm:<package>@<version>".
        pinned[name] = spec.rsplit("@", 1)[1] if spec.startswith("npm:") else spec
    return pinned


def _installed_version(name: str, folder: Path = E2E_DIR) -> str | None:
    """Version of a package installed in ``folder``'s node_modules, or None."""
    manifest = folder / "node_modules" / name / "package.json"
    if not manifest.is_file():
        return None
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    return version if isinstance(version, str) else None


def node_modules_current(folder: Path = E2E_DIR) -> bool:
    """True when every pinned dependency of ``folder`` is installed at its pinned version."""
    return all(
        _installed_version(name, folder) == version
        for name, version in _pinned_versions(folder).items()
    )


_install_lock = threading.Lock()


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s install lock: the package and examples suites may run at once."""
    try:
        import fcntl
    except ImportError:  # Windows: one suite at a time there
        yield
        return
    with (folder / ".npm-install.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_node_modules(folder: Path = E2E_DIR) -> None:
    """Install ``folder``'s pinned packages (by default the clients in e2e/) into its
    node_modules unless they are already there.

    Skips the calling test when Node or npm is missing; fails it when ``npm install``
    does not succeed.
    """
    if not node_available():
        pytest.skip(
            f"real-client e2e checks need Node >= {MIN_NODE_MAJOR} and npm on PATH "
            "(install Node to run them)"
        )
    with _install_lock, _folder_lock(folder):
        if node_modules_current(folder):
            return
        npm = shutil.which("npm")
        assert npm is not None
        try:
            proc = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-package-lock"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=NPM_INSTALL_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"npm install in {folder} timed out ({NPM_INSTALL_TIMEOUT_SECONDS} s)")
        if proc.returncode != 0 or not node_modules_current(folder):
            pytest.fail(f"npm install in {folder} failed:\n{proc.stdout}\n{proc.stderr}")


class _BatchClient:
    """One ``run-client.mjs --batch`` process for the whole test session: each scenario is one
    stdin line, its result one stdout line, so Node starts and loads the clients once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: IO[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        node = shutil.which("node")
        if node is None:
            raise E2EHarnessError("node is not on PATH")
        # Kept open while the process lives: its log, read when a result is missing.
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._proc = subprocess.Popen(
            [node, str(RUN_CLIENT), "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
        )
        return self._proc

    def play(self, version: ClientVersion, scenario: dict[str, Any], timeout: float) -> str:
        """Send one request; return its answer line (empty when the process ended)."""
        with self._lock:
            proc = self._proc if self._proc and self._proc.poll() is None else self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(json.dumps({"client": version, "scenario": scenario}) + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                return ""
            answer: list[str] = []
            stdout = proc.stdout
            reader = threading.Thread(target=lambda: answer.append(stdout.readline()))
            reader.start()
            reader.join(timeout)
            if reader.is_alive():
                self.close()
                raise E2EHarnessError(f"run-client.mjs did not finish within {timeout} s")
            return answer[0]

    def stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read()[-4000:]

    def close(self) -> None:
        """Stop the process (it exits at the end of its stdin)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


_batch = _BatchClient()
atexit.register(_batch.close)


def run_client(
    version: ClientVersion, scenario: dict[str, Any], *, timeout: float = 300.0
) -> dict[str, Any]:
    """Play ``scenario`` through the real client ``version`` and return its result document.

    The document's ``ok`` is False when any turn was rejected; that is a result, not an
    error. :class:`E2EHarnessError` is raised only when the script produced no document
    (bad scenario, crash, missing node_modules). Every call goes to the same Node process.
    """
    line = _batch.play(version, scenario, timeout)
    try:
        answer = json.loads(line)
        status, document = answer["status"], answer["document"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        _batch.close()
        raise E2EHarnessError(
            f"run-client.mjs gave no JSON result: {line[-2000:]!r}\nstderr: {_batch.stderr_tail()}"
        ) from exc
    if not isinstance(document, dict):
        raise E2EHarnessError(f"unexpected result document: {line[-2000:]}")
    if status == 2:
        raise E2EHarnessError(f"run-client.mjs refused the scenario: {document.get('error')}")
    if bool(document.get("ok")) != (status == 0):
        raise E2EHarnessError(f"status {status} disagrees with ok={document.get('ok')}")
    return document


def turn_errors(result: dict[str, Any]) -> list[str]:
    """The error of every failed turn, numbered, for assertion messages."""
    return [f"turn {i}: {t['error']}" for i, t in enumerate(result["turns"]) if not t["ok"]]


def _free_socket() -> socket.socket:
    """A TCP socket bound to a free port on 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def serve_app(app: ASGIApp) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 in a background thread; yield its base URL."""
    sock = _free_socket()
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        _wait_started(server, thread)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _wait_started(server: uvicorn.Server, thread: threading.Thread) -> None:
    """Block until uvicorn accepts connections, or raise if it stopped or took too long."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT_SECONDS
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the test server stopped while starting")
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start in time")
        time.sleep(0.02)
