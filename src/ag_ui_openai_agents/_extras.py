"""Internal: the package's extras, and the names of the root that need one.

``pip install ag-ui-openai-agents`` installs what the translator, the wrapper, the state,
approvals and the SQLite thread store need. Three extras add the rest: ``fastapi`` (the FastAPI
shortcut and the HTTP edge), ``a2ui`` (the A2UI toolkit) and ``redis`` (``RedisThreadStore``'s
client). The root imports without them: the names that need FastAPI or the A2UI toolkit are
imported on first use by the root's ``__getattr__`` (:func:`root_getattr`), and a use without
the extra raises an ``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib
import sys

PACKAGE = "ag_ui_openai_agents"
DISTRIBUTION = "ag-ui-openai-agents"

EXTRA_MODULES: dict[str, frozenset[str]] = {
    "fastapi": frozenset({"fastapi", "starlette"}),
    "a2ui": frozenset({"ag_ui_a2ui_toolkit"}),
    "redis": frozenset({"redis"}),
}
"""The top-level modules each extra installs, of those the package imports."""

OPTIONAL_NAMES: dict[str, tuple[str, str]] = {
    "A2UI": (f"{PACKAGE}.a2ui", "a2ui"),
    "A2UIRequest": (f"{PACKAGE}.a2ui", "a2ui"),
    "FixedSurface": (f"{PACKAGE}.a2ui", "a2ui"),
    "RequestLimitMiddleware": (f"{PACKAGE}.server.limits", "fastapi"),
    "SHUTDOWN_ERROR_CODE": (f"{PACKAGE}.server.streaming", "fastapi"),
    "add_openai_agents_fastapi_endpoint": (f"{PACKAGE}.server.endpoint", "fastapi"),
    "agui_sse_response": (f"{PACKAGE}.server.streaming", "fastapi"),
}
"""The root's names that need an extra: the module each is imported from, and the extra."""


def missing_extra(what: str, extra: str) -> ImportError:
    """The error for ``what`` used without ``extra`` installed."""
    return ImportError(f"{what} needs the {extra} extra: pip install '{DISTRIBUTION}[{extra}]'")


def import_with_extra(module: str, what: str, extra: str) -> object:
    """Import ``module``; a module of ``extra`` missing raises :func:`missing_extra`'s error."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in EXTRA_MODULES[extra]:
            raise
        raise missing_extra(what, extra) from exc


def root_getattr(name: str) -> object:
    """The root's ``__getattr__``: a name that needs an extra, imported on first use."""
    if name not in OPTIONAL_NAMES:
        raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
    module, extra = OPTIONAL_NAMES[name]
    value: object = getattr(import_with_extra(module, name, extra), name)
    setattr(sys.modules[PACKAGE], name, value)  # later uses find it without this function
    return value


def root_dir() -> list[str]:
    """The root's ``__dir__``: its own names and the ones imported on first use."""
    return sorted({*vars(sys.modules[PACKAGE]), *OPTIONAL_NAMES})
