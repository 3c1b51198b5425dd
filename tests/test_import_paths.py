"""The documented import paths outlive the grouping of modules into subpackages."""

from __future__ import annotations

import importlib

import pytest

STABLE_PATHS = {
    "ag_ui_openai_agents.engine": "ag_ui_openai_agents.outbound.engine",
    "ag_ui_openai_agents.approval": "ag_ui_openai_agents.approvals.resume",
    "ag_ui_openai_agents.endpoint": "ag_ui_openai_agents.server.endpoint",
    "ag_ui_openai_agents.logs": "ag_ui_openai_agents.server.logs",
    "ag_ui_openai_agents.shutdown": "ag_ui_openai_agents.server.shutdown",
    "ag_ui_openai_agents.inbound": "ag_ui_openai_agents.inbound.messages",
}


@pytest.mark.parametrize(("stable", "home"), list(STABLE_PATHS.items()))
def test_a_stable_path_offers_the_same_objects(stable: str, home: str) -> None:
    public, real = importlib.import_module(stable), importlib.import_module(home)
    names = list(public.__all__)
    assert names, f"{stable} exports nothing"
    for name in names:
        assert getattr(public, name) is getattr(real, name), name
    if stable != "ag_ui_openai_agents.inbound":
        assert sorted(names) == sorted(real.__all__), "every public name of the home module"
