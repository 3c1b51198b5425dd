"""Dynamic system prompt: instructions written from the AG-UI context of each request.

The page shares facts in ``RunAgentInput.context``: a ``Reply language`` item (the language the
user picked) and any others, such as the user's name or the page they are on. The wrapper puts
that list in the SDK context slot, and the agent's instructions function turns it into a prompt
on every model call, so a new language applies from the next message on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, RunContextWrapper
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Instructions derived from the AG-UI context (reply language and page facts)."
REPLY_LANGUAGE = "Reply language"


def _field(item: Any, name: str) -> str:
    value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
    return "" if value is None else str(value)


def _entries(context: Any) -> list[tuple[str, str]]:
    """``(description, value)`` pairs of an AG-UI context list (models or plain dicts)."""
    items = context if isinstance(context, (list, tuple)) else []
    return [(_field(item, "description"), _field(item, "value")) for item in items]


def _reply_language(entries: list[tuple[str, str]]) -> str | None:
    """The value of the last non-empty ``Reply language`` item, if the page sent one."""
    languages = [
        value.strip()
        for description, value in entries
        if description.strip().lower() == REPLY_LANGUAGE.lower() and value.strip()
    ]
    return languages[-1] if languages else None


def build_instructions(wrapper: RunContextWrapper[Any], agent: Agent[Any]) -> str:
    """Write the prompt from what the page shared in this request."""
    entries = _entries(wrapper.context)
    language = _reply_language(entries)
    facts = [(d, v) for d, v in entries if d.strip().lower() != REPLY_LANGUAGE.lower()]
    if facts:
        shared = "; ".join(f"{description}: {value}" for description, value in facts)
        prompt = (
            f"You are a helpful assistant for this page, which shared: {shared}. "
            "Tailor every answer to these facts, and mention the one you relied on."
        )
    elif language:
        prompt = "You are a helpful assistant."
    else:
        prompt = (
            "You are a helpful assistant, and the page shared nothing about the user; "
            "ask if you need to know more."
        )
    if language:
        prompt += f" Always reply in {language}, whatever language the user writes in."
    return prompt


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """An assistant whose instructions come from :func:`build_instructions`."""
    return Agent(
        name="Context-aware assistant", instructions=build_instructions, model=settings.model
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="dynamic_system_prompt",
        description=DESCRIPTION,
        run_config=settings.run_config,
        # The instructions use the context themselves; don't append it a second time.
        context_in_instructions=False,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
