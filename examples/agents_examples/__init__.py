"""The example agents. Each module has ``DESCRIPTION``, ``build_agent(settings)`` and
``mount(app, path, settings)``, and ``KEEPS_THREADS = True`` when it keeps its threads on the
server (``settings.threads``); :data:`EXAMPLES` lists them by route name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agents import Agent
from fastapi import FastAPI

from . import (
    a2ui_dynamic_schema,
    a2ui_fixed_schema,
    a2ui_recovery,
    ag_ui_docs_copilot,
    agentic_chat,
    agentic_chat_multimodal,
    agentic_chat_reasoning,
    agentic_generative_ui,
    backend_tool_rendering,
    custom_lifecycle_events,
    dynamic_system_prompt,
    human_in_the_loop,
    human_in_the_loop_approval,
    media_results,
    predictive_state_updates,
    shared_state,
    subagents,
    subgraphs,
    tool_based_generative_ui,
)
from .settings import ExampleSettings, settings_from_env

__all__ = ["ALIASES", "EXAMPLES", "Example", "ExampleSettings", "settings_from_env"]


@dataclass(frozen=True)
class Example:
    """One runnable example: its route name, what it shows, and how to build and mount it."""

    name: str
    description: str
    build_agent: Callable[[ExampleSettings], Agent[Any]]
    mount: Callable[[FastAPI, str, ExampleSettings], None]
    written_by_hand: bool = False
    """Whether its route is written by hand around the translator (not the FastAPI shortcut)."""
    keeps_threads: bool = False
    """Whether the example keeps its threads on the server when the settings name a store."""

    @property
    def path(self) -> str:
        """The route the example is served under."""
        return f"/{self.name}"


def _example(module: ModuleType) -> Example:
    name = module.__name__.rsplit(".", 1)[-1]
    by_hand = getattr(module, "ROUTE_WRITTEN_BY_HAND", False)
    keeps = bool(getattr(module, "KEEPS_THREADS", False))
    return Example(
        name,
        module.DESCRIPTION,
        module.build_agent,
        module.mount,
        written_by_hand=by_hand,
        keeps_threads=keeps,
    )


EXAMPLES: dict[str, Example] = {
    example.name: example
    for example in map(
        _example,
        (
            ag_ui_docs_copilot,
            agentic_chat,
            backend_tool_rendering,
            human_in_the_loop,
            human_in_the_loop_approval,
            tool_based_generative_ui,
            subagents,
            custom_lifecycle_events,
            dynamic_system_prompt,
            agentic_chat_reasoning,
            agentic_chat_multimodal,
            media_results,
            agentic_generative_ui,
            shared_state,
            subgraphs,
            predictive_state_updates,
            a2ui_fixed_schema,
            a2ui_dynamic_schema,
            a2ui_recovery,
        ),
    )
}

ALIASES: dict[str, str] = {
    "v1_agentic_chat": "agentic_chat",
    "a2ui_advanced": "a2ui_dynamic_schema",
}
"""Other routes for an example: the Dojo's CopilotKit v1 chat page talks to ``agentic_chat``,
its advanced A2UI page to ``a2ui_dynamic_schema``."""
