"""Agentic chat with reasoning: a reasoning model whose thinking the page shows as it streams.

The agent runs on ``settings.reasoning_model`` (``OPENAI_REASONING_MODEL``, a model of the
``gpt-5`` or ``o`` families) and asks for reasoning summaries, which stream as AG-UI
``REASONING_*`` events before the answer. It also asks for the encrypted reasoning content, so
the reasoning comes back with the history on the next turn (``REASONING_ENCRYPTED_VALUE`` and
the snapshot's reasoning message carry it). The offline demo model streams a reasoning summary
on every turn.

The AG-UI Dojo's page declares a frontend tool, ``change_background``, that the agent may call;
its "Reasoning Model" menu (``state.model``: OpenAI, Anthropic or Gemini) has only one choice
here, since every example runs on OpenAI.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, ModelSettings
from fastapi import FastAPI
from openai.types.shared import Reasoning

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "A reasoning model: its thinking streams as reasoning events before the answer."

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """An assistant that thinks before answering, on the reasoning model."""
    return Agent(
        name="Reasoning assistant",
        instructions=(
            "You are a helpful assistant that thinks problems through step by step before "
            "answering. Answer in a few sentences or a short list, using Markdown. When the "
            "user asks to change the background, call change_background with a CSS background."
        ),
        model=settings.reasoning_model,
        model_settings=ModelSettings(
            reasoning=Reasoning(effort="low", summary="auto"),
            response_include=["reasoning.encrypted_content"],
        ),
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="agentic_chat_reasoning",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
