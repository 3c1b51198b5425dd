"""A2UI error recovery: an invalid generated surface is generated again with its errors.

The same designer as ``a2ui_dynamic_schema``, served with ``A2UI(max_attempts=3)``, for the
AG-UI Dojo's recovery page. Each surface the forced ``render_a2ui`` call writes is validated
(a root, unique ids, child references that resolve, data bindings) before it becomes the tool's
result. An invalid one is not returned: the errors are added to the prompt ("Previous attempt
was invalid — fix these and regenerate") and the surface is generated again, so the page paints
only the valid one. After the third invalid attempt the tool returns the failure envelope
(``"code": "a2ui_recovery_exhausted"`` with every attempt's errors), the middleware shows a
failed surface, the agent says in words that it could not build it, and the run ends normally:
the conversation goes on.
"""

from __future__ import annotations

from ag_ui_openai_agents.a2ui import A2UI
from fastapi import FastAPI

from .a2ui_dynamic_schema import build_agent, serve_designer
from .settings import ExampleSettings

__all__ = ["DESCRIPTION", "MAX_ATTEMPTS", "build_agent", "mount"]

DESCRIPTION = "Generated A2UI surfaces validated, retried with their errors, failing gracefully."
MAX_ATTEMPTS = 3


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    serve_designer(
        app,
        path,
        settings,
        name="a2ui_recovery",
        description=DESCRIPTION,
        a2ui=A2UI(max_attempts=MAX_ATTEMPTS),
    )
