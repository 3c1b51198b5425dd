"""Agentic chat: a plain streaming conversation, served with the FastAPI shortcut."""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Basic streaming conversation."


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A friendly assistant with no tools."""
    return Agent(
        name="Chat assistant",
        instructions="You are a friendly assistant. Answer clearly, in a few sentences.",
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="agentic_chat",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
