"""The public surface: the root names, each importable and documented, and the engine module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

from ag_ui.core import Context

import ag_ui_openai_agents
from ag_ui_openai_agents import AGUITranslator
from ag_ui_openai_agents.engine import AGUIToOpenAITranslator, OpenAIToAGUITranslator

REPOSITORY = Path(__file__).resolve().parents[1]


def _root_names() -> list[str]:
    return [name for name in ag_ui_openai_agents.__all__ if name != "__version__"]


def _documentation() -> str:
    pages = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def test_the_root_names_are_unique() -> None:
    names = _root_names()
    assert names
    assert len(set(names)) == len(names)
    assert isinstance(ag_ui_openai_agents.__version__, str)


def test_every_root_name_is_importable_public_and_documented() -> None:
    documentation = _documentation()
    for name in _root_names():
        value = getattr(ag_ui_openai_agents, name)
        assert re.search(rf"\b{name}\b", documentation), f"{name} is not in README.md or docs/"
        if isinstance(value, str):  # a RUN_ERROR code
            assert name.endswith("_CODE") and value.isupper(), name
            continue
        module = importlib.import_module(value.__module__)
        assert getattr(module, name) is value, name
        assert inspect.getdoc(value), f"{name} has no docstring"


SUBMODULE_IMPORT = re.compile(
    r"^from (ag_ui_openai_agents\.[\w.]+) import (?:\(([^)]*)\)|([\w ,]+)$)", re.MULTILINE
)


def _imported_from_modules() -> set[tuple[str, str]]:
    """(module, name) of every ``from ag_ui_openai_agents.<module> import ...`` in the docs."""
    found: set[tuple[str, str]] = set()
    for module, grouped, inline in SUBMODULE_IMPORT.findall(_documentation()):
        names = re.sub(r"#.*", "", grouped or inline).replace("\n", ",").split(",")
        found.update((module, name.strip()) for name in names if name.strip())
    return found


def test_every_name_the_docs_import_from_a_module_is_in_the_root() -> None:
    """The guides may import from a module; a program can import the same name from the root
    (the engine classes, to subclass, stay in their module)."""
    imported = _imported_from_modules()
    assert ("ag_ui_openai_agents.engine", "AGUIToOpenAITranslator") in imported
    for module, name in sorted(imported):
        if module == "ag_ui_openai_agents.engine":
            continue
        assert name in ag_ui_openai_agents.__all__, f"{module}.{name}"
        assert getattr(importlib.import_module(module), name) is getattr(
            ag_ui_openai_agents, name
        ), f"{module}.{name}"


HOME_MODULES = {
    "ag_ui_openai_agents",
    "ag_ui_openai_agents.engine",
    "ag_ui_openai_agents.a2ui",
    "ag_ui_openai_agents.agent",
    "ag_ui_openai_agents.errors",
    "ag_ui_openai_agents.translator",
    "ag_ui_openai_agents.state",
    "ag_ui_openai_agents.subagents",
    "ag_ui_openai_agents.options",
    "ag_ui_openai_agents.approvals.options",
    "ag_ui_openai_agents.approvals.limits",
    "ag_ui_openai_agents.approvals.resume",
    "ag_ui_openai_agents.approvals.signing",
    "ag_ui_openai_agents.approvals.interrupts",
    "ag_ui_openai_agents.inbound.messages",
    "ag_ui_openai_agents.server.endpoint",
    "ag_ui_openai_agents.server.limits",
    "ag_ui_openai_agents.server.logs",
    "ag_ui_openai_agents.server.shutdown",
    "ag_ui_openai_agents.server.streaming",
    "ag_ui_openai_agents.threads",
    "ag_ui_openai_agents.threads.store",
    "ag_ui_openai_agents.threads.sqlite_store",
    "ag_ui_openai_agents.threads.redis_store",
}
"""The modules a user reads: the root, the engine path, the homes of the root names, the
``RUN_ERROR`` codes, and the edge pieces the deployment guide names (request limits, the SSE
response helper, run-ids logging, shutdown). Every other module is
internal and says so."""


def test_every_other_module_says_it_is_internal() -> None:
    names = [
        module.name
        for module in pkgutil.walk_packages(ag_ui_openai_agents.__path__, "ag_ui_openai_agents.")
    ]
    assert set(HOME_MODULES) - {"ag_ui_openai_agents"} <= set(names)
    unmarked = [
        name
        for name in names
        if name not in HOME_MODULES
        and not (importlib.import_module(name).__doc__ or "").startswith("Internal:")
    ]
    assert unmarked == []


def test_the_threads_module_offers_documented_stores() -> None:
    threads = importlib.import_module("ag_ui_openai_agents.threads")
    documentation = _documentation()
    for name in ("SQLiteThreadStore", "RedisThreadStore", "ThreadStore", "ThreadSettings"):
        assert name in threads.__all__
        value = getattr(threads, name)
        assert inspect.getdoc(value), f"{name} has no docstring"
        assert re.search(rf"\b{name}\b", documentation), f"{name} is not documented"


def test_the_engine_module_offers_the_override_points_the_translator_takes() -> None:
    engine = importlib.import_module("ag_ui_openai_agents.engine")
    assert sorted(engine.__all__) == ["AGUIToOpenAITranslator", "OpenAIToAGUITranslator"]
    for cls in (AGUIToOpenAITranslator, OpenAIToAGUITranslator):
        hooks = [name for name in dir(cls) if name.startswith("translate_")]
        assert hooks, cls.__name__

    class Inbound(AGUIToOpenAITranslator):
        def translate_context(self, items: Iterable[Context] | None) -> str:
            return "from the subclass"

    translator = AGUITranslator(inbound_cls=Inbound)
    assert translator.translate_context([Context(description="d", value="v")]) == (
        "from the subclass"
    )
