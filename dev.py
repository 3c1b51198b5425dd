#!/usr/bin/env python3
"""Developer commands that work on a fresh machine with only Python and pip.

    python3 dev.py serve [--host HOST] [--port PORT]
        the example server (offline demo model when OPENAI_API_KEY is unset)
    python3 dev.py test [--quick]
        every test: package, examples, real AG-UI clients, older SDK / Python
        (--quick: package and examples only)

uv is installed through pip when it is missing; everything else comes from the projects'
own pyproject.toml and package.json files. Stopping this script (Ctrl-C, SIGTERM) stops every
process it started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT / "examples"
OLDEST_SDK = "openai-agents==0.23.1"
OLDEST_PYTHON = "3.10"
STOP_GRACE_SECONDS = 5.0


class Stopped(Exception):
    """This script received SIGINT or SIGTERM; its children have been stopped."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_children: list[subprocess.Popen[bytes]] = []


def _stop_children() -> None:
    """Stop every running child with its whole process group (uv run and what it started)."""
    for child in list(_children):
        if child.poll() is not None:
            continue
        try:
            if os.name == "posix":
                os.killpg(child.pid, signal.SIGTERM)
            else:
                child.terminate()
        except ProcessLookupError:
            continue
    for child in list(_children):
        try:
            child.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            if os.name == "posix":
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
            else:
                child.kill()
            child.wait()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def install_signal_handlers() -> None:
    """Turn SIGINT and SIGTERM into :class:`Stopped`, so children are stopped on the way out."""
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    """Run a command in its own process group; raise CalledProcessError when it fails."""
    print(f"$ {' '.join(args)}  (in {cwd.relative_to(ROOT.parent)})", flush=True)
    child = subprocess.Popen(args, cwd=cwd, env=env, start_new_session=os.name == "posix")
    _children.append(child)
    try:
        code = child.wait()
    finally:
        _stop_children()
        _children.remove(child)
    if code != 0:
        raise subprocess.CalledProcessError(code, args)


def uv() -> str:
    """The uv executable, installed with pip when absent."""
    found = shutil.which("uv")
    if found:
        return found
    print("uv not found: installing it with pip", flush=True)
    run(sys.executable, "-m", "pip", "install", "--quiet", "uv")
    found = shutil.which("uv")
    if found:
        return found
    # Not on PATH: next to this interpreter, or in the user scripts folder (pip --user).
    user_scripts = Path(sysconfig.get_path("scripts", f"{os.name}_user"))
    for folder in (Path(sys.executable).parent, user_scripts):
        for name in ("uv", "uv.exe"):
            if (folder / name).exists():
                return str(folder / name)
    raise SystemExit("uv was installed with pip but cannot be found; add its folder to PATH")


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for child projects, without the caller's active virtualenv."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")
    }
    env.update(extra)
    return env


def serve(host: str | None, port: int | None) -> None:
    """The example server; ``host`` and ``port`` override HOST and PORT."""
    tool = uv()
    extra = {"HOST": host} if host else {}
    if port is not None:
        extra["PORT"] = str(port)
    run(tool, "sync", cwd=EXAMPLES, env=clean_env())
    run(tool, "run", "--no-sync", "python", "server.py", cwd=EXAMPLES, env=clean_env(**extra))


# --------------------------------------------------------------------------- test suites


@dataclass
class Suite:
    """One named test suite: the pytest runs of its steps, counted from their JUnit reports."""

    name: str
    reports: Path
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    broken: bool = False
    notes: list[str] = field(default_factory=list)

    def pytest(self, *command: str, cwd: Path, env: dict[str, str]) -> None:
        """Run one pytest command (its arguments after ``pytest``) and add up its counts."""
        report = self.reports / f"{self.name}-{len(list(self.reports.iterdir()))}.xml"
        try:
            run(*command, f"--junitxml={report}", cwd=cwd, env=env)
        except subprocess.CalledProcessError:
            self.broken = True
        finally:
            self._count(report)

    def _count(self, report: Path) -> None:
        if not report.exists():
            self.notes.append("no report")
            return
        for suite in ET.parse(report).getroot().iter("testsuite"):
            total = int(suite.get("tests", 0))
            failed = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skipped = int(suite.get("skipped", 0))
            self.passed += total - failed - skipped
            self.failed += failed
            self.skipped += skipped

    def summary(self) -> str:
        if self.notes and self.notes[0].startswith("SKIPPED"):
            return f"{self.name} {self.notes[0].lower()}"
        text = f"{self.name} {self.passed} passed, {self.failed} failed, {self.skipped} skipped"
        if self.broken and not self.failed:
            text += " (did not complete)"
        return text


def _sync_and_pytest(tool: str, suite: Suite, cwd: Path) -> None:
    try:
        run(tool, "sync", cwd=cwd, env=clean_env())
    except subprocess.CalledProcessError:
        suite.broken = True
        return
    suite.pytest(tool, "run", "--no-sync", "pytest", cwd=cwd, env=clean_env())


def compat_suite(tool: str, python: str, sdk: str | None, suite: Suite) -> None:
    """Run the package suite in a separate venv (another Python, or the oldest supported SDK)."""
    venv = ROOT / ".venvs" / suite.name
    env = clean_env(VIRTUAL_ENV=str(venv))
    quiet_pip = (tool, "pip", "install", "--quiet", "-p", str(venv))
    try:
        run(tool, "venv", "--quiet", "--allow-existing", "--no-python-downloads", "-p", python,
            str(venv))  # fmt: skip
        run(*quiet_pip, "-e", ".", "--group", "dev", env=env)
        if sdk:
            run(*quiet_pip, sdk, env=env)
    except subprocess.CalledProcessError:
        suite.broken = True
        return
    bindir = "Scripts" if os.name == "nt" else "bin"
    python_in_venv = str(venv / bindir / "python")
    suite.pytest(python_in_venv, "-m", "pytest", "-p", "no:cacheprovider", cwd=ROOT, env=env)


def find_python(tool: str, version: str) -> str | None:
    """An interpreter of ``version``: one uv can find, else one installed under pyenv."""
    found = subprocess.run(
        [tool, "python", "find", "--no-python-downloads", version],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
    candidates = sorted(Path(root.stdout.strip()).glob(f"versions/{version}.*/bin/python{version}"))
    return str(candidates[-1]) if candidates else None


def test(quick: bool) -> int:
    """Run the suites in order, print one summary line, and return the exit status."""
    tool = uv()
    suites: list[Suite] = []
    with tempfile.TemporaryDirectory(prefix="dev-test-") as folder:
        reports = Path(folder)

        def suite(name: str) -> Suite:
            suites.append(Suite(name, reports))
            return suites[-1]

        try:
            _sync_and_pytest(tool, suite("package"), ROOT)
            _sync_and_pytest(tool, suite("examples"), EXAMPLES)
            if not quick:
                compat_suite(tool, "3.11", OLDEST_SDK, suite("sdk-0.23.1"))
                oldest = suite(f"python-{OLDEST_PYTHON}")
                python = find_python(tool, OLDEST_PYTHON)
                if python is not None:
                    compat_suite(tool, python, None, oldest)
                else:
                    oldest.notes.append(f"SKIPPED: no Python {OLDEST_PYTHON} interpreter")
        finally:
            print("SUMMARY: " + " | ".join(s.summary() for s in suites), flush=True)
    return 1 if any(s.broken or s.failed for s in suites) else 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dev.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serving = commands.add_parser("serve", help="run the example server")
    serving.add_argument("--host", help="bind address (default: HOST or 0.0.0.0)")
    serving.add_argument("--port", type=int, help="port (default: PORT or 8031)")
    testing = commands.add_parser("test", help="run the test suites")
    testing.add_argument("--quick", action="store_true", help="package and examples only")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    options = parse(argv[1:])  # exits with status 2 and a message on unknown commands or flags
    install_signal_handlers()
    try:
        if options.command == "serve":
            serve(options.host, options.port)
            return 0
        return test(quick=options.quick)
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    except Stopped as stop:
        print(f"dev.py: stopped by {stop}", file=sys.stderr, flush=True)
        return 128 + stop.signum


if __name__ == "__main__":
    sys.exit(main(sys.argv))
