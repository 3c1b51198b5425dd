"""``dev.py``: its flags, stopping the server with dev.py, the test summary line, and ``serve``
on a system Python that refuses ``pip install`` (PEP 668).

The processes are real: ``python3 dev.py serve`` runs with a stand-in ``uv`` first on PATH, which
(like ``uv run``) starts the server as its own child and does not pass signals on, so only
stopping the whole process group stops the server. The PEP 668 check runs the real thing on a
copy of the project: Debian's python3, no uv on PATH, the example server's /health answered.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "dev.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX"),
]

FAKE_UV = textwrap.dedent(
    """\
    #!{python}
    import os, signal, subprocess, sys
    # Like `uv run`, but deaf to SIGTERM and SIGINT and passing nothing on to its child.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.argv[1] == "sync":
        sys.exit(0)
    server = (
        "import http.server, os, signal\\n"
        "signal.signal(signal.SIGTERM, signal.SIG_DFL)\\n"
        "signal.signal(signal.SIGINT, signal.SIG_DFL)\\n"
        "class H(http.server.BaseHTTPRequestHandler):\\n"
        "    def do_GET(self):\\n"
        "        self.send_response(200); self.end_headers()\\n"
        "        self.wfile.write(os.environ['HOST'].encode())\\n"
        "    def log_message(self, *a): pass\\n"
        "http.server.HTTPServer(('127.0.0.1', int(os.environ['PORT'])), H).serve_forever()\\n"
    )
    with open(os.environ['FAKE_UV_LOG'], 'a') as log:
        log.write(' '.join(sys.argv[1:]) + '\\n')
    sys.exit(subprocess.call([sys.executable, '-c', server]))
    """
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as response:
            return str(response.read().decode())
    except OSError:
        return None


def wait_for(check: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def fake_uv(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "bin"
    folder.mkdir()
    uv = folder / "uv"
    uv.write_text(FAKE_UV.format(python=sys.executable))
    uv.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")}
    env["PATH"] = f"{folder}{os.pathsep}{env['PATH']}"
    env["FAKE_UV_LOG"] = str(tmp_path / "uv.log")
    return env


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_dev_py_stops_the_server(signum: int, fake_uv: dict[str, str]) -> None:
    port = free_port()
    dev = subprocess.Popen(
        [sys.executable, str(DEV), "serve", "--host", "127.0.0.9", "--port", str(port)],
        env=fake_uv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: answers(port) is not None)
        assert answers(port) == "127.0.0.9"
        dev.send_signal(signum)
        assert dev.wait(timeout=20) == 128 + signum
        # Nothing of the process tree is left: the port is closed at once.
        assert answers(port) is None
    finally:
        if dev.poll() is None:
            dev.kill()
    log = Path(fake_uv["FAKE_UV_LOG"]).read_text().splitlines()
    assert log == ["run --no-sync python server.py"]


@pytest.mark.parametrize(
    "argv", [["serve", "--prot", "9000"], ["serve", "extra"], ["test", "--fast"], ["deploy"], []]
)
def test_unknown_commands_and_flags_are_rejected(argv: list[str], fake_uv: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, str(DEV), *argv], env=fake_uv, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert "usage: dev.py" in done.stderr
    assert not Path(fake_uv["FAKE_UV_LOG"]).exists()


def test_a_suite_that_ran_no_tests_fails_and_says_so(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        import dev
    finally:
        sys.path.remove(str(ROOT))
    empty = dev.Suite("sdk-0.23.1", tmp_path)
    python = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q")
    # A marker nothing has: pytest collects nothing and exits 5.
    empty.pytest(*python, "-m", "no_such_marker", str(DEV.parent / "tests" / "test_dev.py"),
                 cwd=ROOT, env=dict(os.environ))  # fmt: skip
    assert empty.broken
    assert empty.summary() == "sdk-0.23.1 0 passed, 0 failed, 0 skipped (no tests ran)"
    # What the run cost is counted: the child's own CPU, not this process's.
    assert empty.seconds > 0
    if hasattr(os, "wait4"):  # where the platform tells a child's CPU time
        assert 0 < empty.cpu_seconds < empty.seconds * (os.cpu_count() or 1)


def test_summary_counts_each_suite_from_its_report(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        import dev
    finally:
        sys.path.remove(str(ROOT))
    report = tmp_path / "r.xml"
    report.write_text(
        '<testsuites><testsuite tests="10" failures="1" errors="1" skipped="2"/></testsuites>'
    )
    suite = dev.Suite("package", tmp_path)
    suite._count(report)
    suite._count(report)
    assert suite.summary() == "package 12 passed, 4 failed, 4 skipped"
    missing = dev.Suite("examples", tmp_path)
    missing._count(tmp_path / "absent.xml")
    missing.broken = True
    assert missing.summary() == "examples 0 passed, 0 failed, 0 skipped (did not complete)"
    oldest = dev.Suite("python-3.10", tmp_path)
    oldest.notes.append("SKIPPED: no Python 3.10 interpreter")
    assert oldest.summary() == "python-3.10 skipped: no python 3.10 interpreter"


SYSTEM_PYTHON = Path("/usr/bin/python3")


def _externally_managed(python: Path) -> bool:
    """True when ``python`` refuses ``pip install`` outside a virtual environment (PEP 668)."""
    if not python.exists():
        return False
    code = "import sysconfig; print(sysconfig.get_path('stdlib'))"
    stdlib = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return (Path(stdlib.stdout.strip()) / "EXTERNALLY-MANAGED").exists()


def _copy_project(into: Path) -> Path:
    """The project's files as a fresh clone has them: no environments, no node_modules."""
    ignored = shutil.ignore_patterns(
        ".git", ".venv", ".venvs", "node_modules", "__pycache__", ".*_cache", ".hypothesis", "dist"
    )
    shutil.copytree(ROOT, into, ignore=ignored)
    return into


def _health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
            return dict(json.loads(response.read()))
    except (OSError, ValueError):
        return None


@pytest.mark.skipif(
    not _externally_managed(SYSTEM_PYTHON), reason="needs a PEP 668 python3 at /usr/bin/python3"
)
def test_serve_works_on_a_system_python_that_refuses_pip_install(tmp_path: Path) -> None:
    project = _copy_project(tmp_path / "project")
    path = os.pathsep.join(["/usr/bin", "/bin"])
    assert shutil.which("uv", path=path) is None, "uv must not be on this PATH"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
    env.update(PATH=path, HOME=env.get("HOME", str(tmp_path)))
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    dev = subprocess.Popen(
        [str(SYSTEM_PYTHON), "dev.py", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=project,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # Installing uv and the example's dependencies takes a while: bounds a broken test only.
        wait_for(lambda: _health(port) is not None or dev.poll() is not None, timeout=600)
        health = _health(port)
        assert health is not None, (tmp_path / "serve.log").read_text(errors="replace")
        dev.send_signal(signal.SIGTERM)
        assert dev.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if dev.poll() is None:
            dev.kill()
        log.close()
    tools = project / ".venvs" / "tools"
    assert (tools / "bin" / "uv").exists(), "uv went into dev.py's own environment"
    examples_venv = project / "examples" / ".venv"
    assert list(examples_venv.glob("lib/python*/site-packages/uvicorn"))
    assert not list(examples_venv.glob("lib/python*/site-packages/pytest")), "no test tools"
