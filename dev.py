#!/usr/bin/env python3
"""Developer commands that work on a fresh machine with only Python and pip.

    python3 dev.py serve [--host HOST] [--port PORT]
        the example server (offline demo model when OPENAI_API_KEY is unset)
    python3 dev.py test [--quick]
        every test: the package and examples suites (real AG-UI clients, CopilotKit's
        runtime, the browser page, server processes included) on the newest SDK, then the
        fast tier (pytest -m "not slow") on the oldest SDK on the oldest Python
        (--quick: package and examples only)

When uv is not on PATH it is installed into a virtual environment of this script's own,
.venvs/tools, so nothing is installed into the system Python (which may refuse it, PEP 668);
everything else comes from the projects' own pyproject.toml and package.json files. Stopping
this script (Ctrl-C, SIGTERM) stops every process it started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT / "examples"
OLDEST_SDK = "openai-agents==0.23.1"
OLDEST_PYTHON = "3.10"
STOP_GRACE_SECONDS = 5.0
TOOLS_VENV = ROOT / ".venvs" / "tools"
BINDIR = "Scripts" if os.name == "nt" else "bin"
NO_TESTS_RAN = 5  # pytest's exit status when it collected nothing
ALL_EXTRAS = "fastapi,redis,a2ui"  # the package's extras: the tests need every one
# How the suites of the newest SDK are cut into parts that run side by side (see `test`).
SERVER_DIRS = ("tests/runs", "tests/threads")  # the package's tests of servers and stores
HEAVY = (  # the package's slow tests that build wheels, run benchmarks or start many processes
    "tests/test_benchmarks.py",
    "tests/test_dev.py",
    "tests/test_packaging.py",
    "tests/test_reliability_faults.py",
    "tests/test_reliability_isolation.py",
    "tests/test_reliability_scaleout.py",
)
BROWSER = "tests/test_browser_*.py"  # the examples' Chromium tests
RUNTIME = ("tests/test_examples_copilot_runtime.py", "tests/test_examples_real_client.py")
PAGES = ("tests/test_examples_page_loads.py", "tests/test_frontends_docs.py")


class Stopped(Exception):
    """This script received SIGINT or SIGTERM; its children have been stopped."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_children: list[subprocess.Popen[bytes]] = []


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Stop a running child with its whole process group (uv run and what it started)."""
    if child.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(child.pid, signal.SIGTERM)
        else:
            child.terminate()
    except ProcessLookupError:
        return
    try:
        child.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        if os.name == "posix":
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
        else:
            child.kill()
        child.wait()


def _stop_children() -> None:
    """Stop every child still running."""
    for child in list(_children):
        _stop(child)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def install_signal_handlers() -> None:
    """Turn SIGINT and SIGTERM into :class:`Stopped`, so children are stopped on the way out."""
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def _wait(child: subprocess.Popen[bytes]) -> tuple[int, float]:
    """The child's exit status, and the CPU seconds it and the descendants it waited for used
    (0 where the platform does not say)."""
    if not hasattr(os, "wait4"):
        return child.wait(), 0.0
    try:
        _, status, usage = os.wait4(child.pid, 0)
    except ChildProcessError:  # already waited for, by a stop on the way out
        return child.wait(), 0.0
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_utime + usage.ru_stime


def call(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, log: Path | None = None
) -> tuple[int, float]:
    """Run a command in its own process group (its output into ``log`` when given); return its
    exit status and the CPU seconds it used."""
    print(f"$ {' '.join(args)}  (in {cwd.relative_to(ROOT.parent)})", flush=True)
    with open(log, "ab") if log else contextlib.nullcontext() as out:
        child = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT if out else None,
            start_new_session=os.name == "posix",
        )
        _children.append(child)
        try:
            return _wait(child)
        finally:
            _stop(child)
            _children.remove(child)


def run(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, log: Path | None = None
) -> None:
    """:func:`call`, raising CalledProcessError when the command fails."""
    code, _ = call(*args, cwd=cwd, env=env, log=log)
    if code != 0:
        raise subprocess.CalledProcessError(code, args)


def uv() -> str:
    """The uv on PATH, else the one in .venvs/tools (installed there by that venv's pip)."""
    found = shutil.which("uv")
    if found:
        return found
    tool = TOOLS_VENV / BINDIR / ("uv.exe" if os.name == "nt" else "uv")
    if tool.exists():
        return str(tool)
    print(f"uv not found: installing it into {TOOLS_VENV.relative_to(ROOT)}", flush=True)
    try:
        run(sys.executable, "-m", "venv", str(TOOLS_VENV))
        run(str(TOOLS_VENV / BINDIR / "python"), "-m", "pip", "install", "--quiet", "uv")
    except subprocess.CalledProcessError:
        shutil.rmtree(TOOLS_VENV, ignore_errors=True)
        raise SystemExit(
            f"could not make {TOOLS_VENV} with {sys.executable} -m venv and install uv in it; "
            "on Debian or Ubuntu, install python3-venv (apt-get install python3-venv), "
            "or install uv (https://docs.astral.sh/uv/) and put it on PATH"
        ) from None
    return str(tool)


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
    # Only what serving needs: no dev group; --inexact keeps what `test` installed.
    run(tool, "sync", "--no-default-groups", "--inexact", cwd=EXAMPLES, env=clean_env())
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
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def log(self) -> Path:
        """Where the suite's commands write their output."""
        return self.reports / f"{self.name}.log"

    def pytest(self, *command: str, cwd: Path, env: dict[str, str]) -> None:
        """Run one pytest command (its arguments after ``pytest``) and add up its counts."""
        report = self.reports / f"{self.name}-{len(list(self.reports.iterdir()))}.xml"
        started = time.monotonic()
        code, cpu = call(*command, f"--junitxml={report}", cwd=cwd, env=env, log=self.log)
        self.seconds += time.monotonic() - started
        self.cpu_seconds += cpu
        if code != 0:
            self.broken = True
            if code == NO_TESTS_RAN:
                self.notes.append("no tests ran")
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
        text += "".join(f" ({note})" for note in self.notes if note.startswith("on "))
        if "no tests ran" in self.notes:
            text += " (no tests ran)"
        elif self.broken and not self.failed:
            text += " (did not complete)"
        return text


def pytest_env(ci_profile: bool, **extra: str) -> dict[str, str]:
    """A child's environment, with the Hypothesis profile its conftest loads."""
    return clean_env(HYPOTHESIS_PROFILE="ci" if ci_profile else "dev", **extra)


class Environment:
    """A project's uv environment (its default dependency groups and ``groups``), made once
    for every lane that tests the project: the first suite to ask makes it."""

    def __init__(self, tool: str, cwd: Path, groups: tuple[str, ...] = ()) -> None:
        self.tool, self.cwd, self.groups = tool, cwd, groups
        self._lock = threading.Lock()
        self._made: bool | None = None

    def ready(self, suite: Suite) -> bool:
        """Whether the environment is made (``suite`` broken, and saying why, when not)."""
        with self._lock:
            if self._made is None:
                extra = [arg for group in self.groups for arg in ("--group", group)]
                try:
                    run(self.tool, "sync", *extra, cwd=self.cwd, env=clean_env(), log=suite.log)
                    self._made = True
                except subprocess.CalledProcessError:
                    self._made = False
        if not self._made:
            suite.broken = True
            suite.notes.append("no environment")
        return self._made


def tests_step(
    env: Environment, suite: Suite, ci_profile: bool, selection: tuple[str, ...]
) -> Step:
    """The step that runs :func:`project_tests`."""
    return lambda: project_tests(env, suite, ci_profile, *selection)


def project_tests(env: Environment, suite: Suite, ci_profile: bool, *selection: str) -> None:
    """The project's tests that ``selection`` (pytest arguments) selects, in its environment,
    on the newest SDK."""
    if env.ready(suite):
        command = (env.tool, "run", "--no-sync", "pytest", "-p", "no:cacheprovider", *selection)
        suite.pytest(*command, cwd=env.cwd, env=pytest_env(ci_profile))


def compat_suite(tool: str, python: str, sdk: str | None, suite: Suite) -> None:
    """The package's fast tier in a separate venv (another Python, or the oldest SDK)."""
    venv = ROOT / ".venvs" / suite.name
    env = clean_env(VIRTUAL_ENV=str(venv))
    quiet_pip = (tool, "pip", "install", "--quiet", "-p", str(venv))
    try:
        run(tool, "venv", "--quiet", "--allow-existing", "--no-python-downloads", "-p", python,
            str(venv), log=suite.log)  # fmt: skip
        run(*quiet_pip, "-e", f".[{ALL_EXTRAS}]", "--group", "dev", env=env, log=suite.log)
        if sdk:
            run(*quiet_pip, sdk, env=env, log=suite.log)
    except subprocess.CalledProcessError:
        suite.broken = True
        return
    python_in_venv = str(venv / BINDIR / "python")
    command = (python_in_venv, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not slow")
    suite.pytest(*command, cwd=ROOT, env=pytest_env(True, VIRTUAL_ENV=str(venv)))


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


def oldest_suite(tool: str, suite: Suite) -> None:
    """The fast tier on the oldest supported versions: the oldest SDK on the oldest Python
    (on Python 3.11 when no Python 3.10 is installed, which the summary says)."""
    python = find_python(tool, OLDEST_PYTHON)
    if python is None:
        suite.notes.append(f"on Python 3.11: no Python {OLDEST_PYTHON} interpreter")
        python = "3.11"
    compat_suite(tool, python, OLDEST_SDK, suite)


Step = Callable[[], None]


def run_lanes(lanes: list[list[tuple[Suite, Step]]]) -> None:
    """Run the lanes side by side, the suites of each lane one after the other; print each
    suite's output when it ends."""
    printing = threading.Lock()

    def play(lane: list[tuple[Suite, Step]]) -> None:
        for suite, step in lane:
            with printing:
                print(f"--- {suite.name}: started", flush=True)
            try:
                step()
            except BaseException:
                suite.broken = True
                raise
            finally:
                with printing:
                    print(f"--- {suite.name}: output", flush=True)
                    if suite.log.exists():
                        sys.stdout.write(suite.log.read_text(errors="replace"))
                    cost = f"{suite.seconds:.0f} s, {suite.cpu_seconds:.0f} CPU-s"
                    print(f"--- {suite.name}: {suite.summary()} ({cost})", flush=True)

    threads = [threading.Thread(target=play, args=(lane,), daemon=True) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(timeout=0.5)  # wakes up for SIGINT / SIGTERM


def test(quick: bool) -> int:
    """Run the suites, print one summary line, and return the exit status.

    Five lanes run side by side, each its parts one after the other, so that two cores keep
    busy (the Node, browser and server-process tests wait a lot, and one lane waits less when
    another does), balanced by the time each part took: the package's slow tests of detached
    runs, then CopilotKit's runtime and the real clients; its slow tests of threads and stores,
    then the examples' page loads and the frontends guide; the examples, then the package's
    heaviest slow tests (wheels, benchmarks, many processes); the Chromium tests, then the fast
    tier on the oldest supported versions (the oldest SDK on the oldest Python, in one
    environment); the package's fast tier, then the rest of its slow tier.
    Each project's environment is made once, by the first part that needs it.
    """
    tool = uv()
    ci_profile = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    suites: list[Suite] = []
    with tempfile.TemporaryDirectory(prefix="dev-test-") as folder:
        reports = Path(folder)

        def suite(name: str) -> Suite:
            suites.append(Suite(name, reports))
            return suites[-1]

        package, demos = Environment(tool, ROOT, ("bench",)), Environment(tool, EXAMPLES)
        browser = tuple(str(path.relative_to(EXAMPLES)) for path in sorted(EXAMPLES.glob(BROWSER)))
        others = (f"--ignore-glob={BROWSER}", *(f"--ignore={f}" for f in RUNTIME + PAGES))
        rest = ("-m", "slow", *(f"--ignore={path}" for path in SERVER_DIRS + HEAVY))
        plan: list[list[tuple[str, Environment, tuple[str, ...]]]] = [
            [
                ("package-slow-runs", package, ("-m", "slow", "tests/runs")),
                ("examples-runtime", demos, RUNTIME),
            ],
            [
                ("package-slow-threads", package, ("-m", "slow", "tests/threads")),
                ("examples-pages", demos, PAGES),
            ],
            [("examples", demos, others), ("package-slow-heavy", package, ("-m", "slow", *HEAVY))],
            [("examples-browser", demos, browser)],
            [("package-fast", package, ("-m", "not slow")), ("package-slow", package, rest)],
        ]
        lanes: list[list[tuple[Suite, Step]]] = []
        for planned in plan:
            lanes.append([])
            for name, env, selection in planned:
                made = suite(name)
                lanes[-1].append((made, tests_step(env, made, ci_profile, selection)))
        if not quick:  # after the browser tests
            oldest = suite(f"python-{OLDEST_PYTHON}-{OLDEST_SDK.replace('==', '-')}")
            lanes[3].append((oldest, lambda: oldest_suite(tool, oldest)))
        try:
            run_lanes(lanes)
        finally:
            print("SUMMARY: " + " | ".join(s.summary() for s in suites), flush=True)
    return 1 if any(s.broken or s.failed for s in suites) else 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dev.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serving = commands.add_parser("serve", help="run the example server")
    serving.add_argument("--host", help="bind address (default: HOST or 127.0.0.1)")
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
        _stop_children()
        print(f"dev.py: stopped by {stop}", file=sys.stderr, flush=True)
        return 128 + stop.signum


if __name__ == "__main__":
    sys.exit(main(sys.argv))
