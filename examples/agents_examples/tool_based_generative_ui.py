"""Tool-based generative UI: the frontend draws a card from a tool call's arguments.

The client declares ``generate_haiku`` in ``RunAgentInput.tools``. The agent calls it with the
haiku as arguments; the frontend renders them and answers with a short tool message.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, StopAtTools
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Frontend renders UI from tool arguments (generate_haiku)."
CLIENT_TOOL = "generate_haiku"


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A poet whose only output channel is the client's ``generate_haiku`` tool."""
    return Agent(
        name="Haiku poet",
        instructions=(
            f"When asked for a haiku, call {CLIENT_TOOL} with three lines in Japanese, their "
            "English translation, and the other fields the tool asks for. After the tool "
            "answers, say in one sentence that the haiku is ready."
        ),
        tool_use_behavior=StopAtTools(stop_at_tool_names=[CLIENT_TOOL]),
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="tool_based_generative_ui",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
