"""The package's modules import one another in one direction only.

``protocol`` holds what inbound, outbound and approvals share (it imports nothing of the package
but ``_sdk``, which imports nothing of it), so neither inbound nor approvals reaches into
outbound; ``server/`` builds on the core and the core never imports it (only the package root
re-exports its public names).
"""

from __future__ import annotations

import ast
from pathlib import Path

import ag_ui_openai_agents

PACKAGE = "ag_ui_openai_agents"
ROOT = Path(ag_ui_openai_agents.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every package module ``path`` imports, at any depth of the file (TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.level:
                raise AssertionError(f"{path}: relative import of {node.module}")
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == PACKAGE or name.startswith(f"{PACKAGE}.")}


def import_graph() -> dict[str, set[str]]:
    """Each module of the package, with the package modules it imports."""
    graph = {_module_name(path): _imports(path) for path in sorted(ROOT.rglob("*.py"))}
    return {module: imported & graph.keys() for module, imported in graph.items()}


def _within(module: str, package: str) -> bool:
    return module == f"{PACKAGE}.{package}" or module.startswith(f"{PACKAGE}.{package}.")


def _forbidden(module: str, target: str) -> bool:
    if (_within(module, "inbound") or _within(module, "approvals")) and _within(target, "outbound"):
        return True
    if module != PACKAGE and not _within(module, "server") and _within(target, "server"):
        return True
    if module == f"{PACKAGE}.protocol":
        return target not in (module, f"{PACKAGE}._sdk")
    return module == f"{PACKAGE}._sdk" and target != module


def back_edges(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports the layering forbids, as (importer, imported)."""
    return [
        (module, target)
        for module, imported in graph.items()
        for target in sorted(imported)
        if _forbidden(module, target)
    ]


def test_the_graph_is_read_from_the_sources() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.protocol" in graph[f"{PACKAGE}.inbound.messages"]
    assert f"{PACKAGE}.agent" in graph[f"{PACKAGE}.server.endpoint"]


def test_no_module_imports_against_the_layering() -> None:
    assert back_edges(import_graph()) == []


def test_a_back_edge_is_reported() -> None:
    graph = {
        f"{PACKAGE}.inbound.x": {f"{PACKAGE}.outbound.replay"},
        f"{PACKAGE}.approvals.y": {f"{PACKAGE}.outbound"},
        f"{PACKAGE}.agent": {f"{PACKAGE}.server.capabilities"},
        f"{PACKAGE}.protocol": {f"{PACKAGE}.outbound.windows", f"{PACKAGE}._sdk"},
        f"{PACKAGE}._sdk": {f"{PACKAGE}.protocol"},
        f"{PACKAGE}.server.endpoint": {f"{PACKAGE}.agent", f"{PACKAGE}.server.logs"},
        PACKAGE: {f"{PACKAGE}.server.endpoint"},
    }
    assert back_edges(graph) == [
        (f"{PACKAGE}.inbound.x", f"{PACKAGE}.outbound.replay"),
        (f"{PACKAGE}.approvals.y", f"{PACKAGE}.outbound"),
        (f"{PACKAGE}.agent", f"{PACKAGE}.server.capabilities"),
        (f"{PACKAGE}.protocol", f"{PACKAGE}.outbound.windows"),
        (f"{PACKAGE}._sdk", f"{PACKAGE}.protocol"),
    ]
