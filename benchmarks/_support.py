"""Shared helpers: the test-suite modules loaded by path, requests, and the machine's description.

The scripted Responses model and the AG-UI stream checker live under ``tests/support``; they
are loaded from their files so the benchmarks need no test configuration on ``sys.path``. When
the test suite has already imported them (the smoke test), those same module objects are used.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from ag_ui.core import RunAgentInput, UserMessage

ROOT = Path(__file__).resolve().parent.parent
SUPPORT_DIR = ROOT / "tests" / "support"

__all__ = ["ROOT", "invariants", "machine", "run_input", "scripted"]


def _load(name: str) -> ModuleType:
    """``tests/support/<name>.py``, imported from its path (or reused when already imported)."""
    qualified = f"support.{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    private = f"_benchmarks_support_{name}"
    if private in sys.modules:
        return sys.modules[private]
    spec = importlib.util.spec_from_file_location(private, SUPPORT_DIR / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {SUPPORT_DIR / name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[private] = module
    spec.loader.exec_module(module)
    return module


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
