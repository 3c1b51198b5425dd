"""Running ``extras_probe.py`` and checking its report of a package without its extras."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

PROBE = Path(__file__).resolve().parent / "extras_probe.py"

NEEDS_AN_EXTRA = {
    "add_openai_agents_fastapi_endpoint": "fastapi",
    "agui_sse_response": "fastapi",
    "RequestLimitMiddleware": "fastapi",
    "SHUTDOWN_ERROR_CODE": "fastapi",
    "A2UI": "a2ui",
    "A2UIRequest": "a2ui",
    "FixedSurface": "a2ui",
    "ag_ui_openai_agents.a2ui": "a2ui",
    "RedisThreadStore()": "redis",
}
"""What a program uses (a root name, the A2UI module, making a ``RedisThreadStore``), and the
extra it needs."""


def probe(python: str, *options: str, cwd: Path) -> dict[str, object]:
    """The report of ``extras_probe.py`` run by ``python``."""
    done = subprocess.run(
        # -I: isolated, so tests/support (whose http.py would hide the standard library's) is
        # not on sys.path.
        [python, "-I", str(PROBE), *options],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


def check_without_extras(report: dict[str, object]) -> None:
    """The root imported no extra, and each name that needs one named it."""
    assert report["loaded"] == []
    errors = report["errors"]
    assert isinstance(errors, dict)
    assert set(errors) == set(NEEDS_AN_EXTRA)
    for name, extra in NEEDS_AN_EXTRA.items():
        assert f"pip install 'ag-ui-openai-agents[{extra}]'" in errors[name], name
