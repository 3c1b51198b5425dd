"""Shared helpers: the test-suite modules loaded by path, requests, and the machine's description.

The scripted Responses model and the AG-UI stream checker live under ``tests/support``, split
over sibling modules that import each other relatively. That directory is loaded from its path
as a private package, so the benchmarks need no test configuration on ``sys.path``. Under the
test suite (``tests`` on ``sys.path``), the suite's own ``support`` modules are used instead, so
the smoke test and the benchmarks share one copy of every class.
"""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ag_ui.core import RunAgentInput, UserMessage

ROOT = Path(__file__).resolve().parent.parent
SUPPORT_DIR = ROOT / "tests" / "support"
_PACKAGE = "_benchmarks_support"

__all__ = [
    "ROOT",
    "Timing",
    "built",
    "invariants",
    "machine",
    "run_input",
    "scripted",
    "time_encoding",
]


def _package() -> ModuleType:
    """``tests/support`` as the private package ``_benchmarks_support`` (imported once)."""
    known = sys.modules.get(_PACKAGE)
    if known is not None:
        return known
    init = SUPPORT_DIR / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        _PACKAGE, init, submodule_search_locations=[str(SUPPORT_DIR)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {init}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[_PACKAGE] = package
    spec.loader.exec_module(package)
    return package


def _tests_on_path() -> bool:
    """Whether ``tests`` is on ``sys.path``, as the test suite puts it: ``support`` is ours."""
    tests = SUPPORT_DIR.parent.resolve()
    return any(entry and Path(entry).resolve() == tests for entry in sys.path)


def _load(name: str) -> ModuleType:
    """``tests/support/<name>.py``: the test suite's own module when ``tests`` is importable
    (so objects built by either side are of the same classes), else the private package."""
    qualified = f"support.{name}"
    if qualified in sys.modules or _tests_on_path():
        return importlib.import_module(qualified)
    _package()
    return importlib.import_module(f"{_PACKAGE}.{name}")


def scripted() -> ModuleType:
    """The project's scripted offline Responses model (``tests/support/scripted.py``)."""
    return _load("scripted")


def invariants() -> ModuleType:
    """The project's AG-UI stream checker (``tests/support/invariants.py``)."""
    return _load("invariants")


def run_input(run_id: str = "run-1", text: str = "Hello") -> RunAgentInput:
    """A one-message AG-UI request."""
    return RunAgentInput(
        thread_id="thread-bench",
        run_id=run_id,
        messages=[UserMessage(id=f"user-{run_id}", role="user", content=text)],
        tools=[],
        context=[],
        state={},
        forwarded_props=None,
        protocol_version="1.0",
    )


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "packages": {
            name: _version(name)
            for name in (
                "ag-ui-openai-agents",
                "openai-agents",
                "ag-ui-protocol",
                "openai",
                "pydantic",
                "pydantic-core",
                "fastapi",
                "uvicorn",
                "httpx",
            )
        },
    }


@dataclass(frozen=True)
class Timing:
    """One timed run: wall-clock seconds (``perf_counter``) and CPU seconds of this thread.

    CPU time leaves out the moments the process waited for a core, so on a shared machine it
    shows the work itself while wall-clock time also shows the contention.
    """

    wall: float
    cpu: float


async def time_encoding(stream: AsyncIterator[Any], encode: Callable[[Any], str]) -> Timing:
    """Consume ``stream`` (of AG-UI events), encoding each event: its time, after a collection."""
    gc.collect()
    cpu, wall = time.thread_time(), time.perf_counter()
    async for event in stream:
        encode(event)
    return Timing(time.perf_counter() - wall, time.thread_time() - cpu)


def built(recipes: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[Any]:
    """Fresh events from their recipes (a builder and its positional arguments each)."""
    return [build(*values) for build, values in recipes]
