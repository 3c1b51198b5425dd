"""Predictive state updates: a document the page shows while the model is still writing it.

The page keeps ``{"document": "<Markdown>"}`` in its state (the AG-UI Dojo's document editor).
To write or change it, the model calls ``write_document_local`` with the whole new document
(the name and ``{"document": ...}`` argument of the Dojo's fixtures). The agent declares
``PredictState(state_key="document", tool="write_document_local", tool_argument="document")``,
so CopilotKit receives a ``PredictState`` CUSTOM event before the call and copies the streamed
argument into ``state.document`` as it arrives: the editor fills in word by word. When the
arguments are complete the server's own state takes the document too (as a ``STATE_SNAPSHOT`` or
a ``STATE_DELTA``), so a later snapshot does not undo what the page shows.

Then the model asks the person to confirm with ``confirm_changes``, a frontend tool the page
declares and renders as Confirm / Reject (the page's other frontend tool, ``write_document``,
which it renders the same way, is declared as predictive too, for a model that calls it
instead). The run ends with the call pending; the page answers
``{"accepted": true}`` or ``{"accepted": false}`` (and on a rejection puts its previous
document back in the state), and the model says in a sentence what became of the change.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    PredictState,
    StateUpdates,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from agents import Agent, RunContextWrapper, function_tool
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "A document the page shows while the model writes it (PredictState), for review."
KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""
TOOL_NAME = "write_document_local"
CONFIRM_TOOL = "confirm_changes"
"""The page's frontend tool that asks the person to accept or reject the change."""
CURRENT_DOCUMENT = "The current document:"
"""The line the instructions put before the page's document."""
PAGE_TOOL = "write_document"
"""The page's own frontend tool for a whole document, which it also renders as Confirm / Reject."""
PREDICTIONS = [
    PredictState(state_key="document", tool=TOOL_NAME, tool_argument="document"),
    PredictState(state_key="document", tool=PAGE_TOOL, tool_argument="document"),
]
"""The document streams into ``state.document`` from either tool's ``document`` argument."""


@function_tool(name_override=TOOL_NAME)
def write_document_local(document: str) -> str:
    """Write the document, or change it (add a character or a section, change a name, fix the
    grammar, change the tone): the whole new document replaces the old one.

    Args:
        document: The whole document in Markdown, the unchanged parts included.
    """
    words = len(document.split())
    return f"The document on the page now has {words} words; the user is asked to confirm it."


def document_instructions(wrapper: RunContextWrapper[Any], agent: Agent[Any]) -> str:
    """The prompt, with the document the page sent (as it is now, after any change)."""
    value = shared_state().value
    document = value.get("document") if isinstance(value, dict) else None
    current = document.strip() if isinstance(document, str) and document.strip() else "(empty)"
    return (
        "You are a document editor working on the document the user sees on the page. To "
        f"write or change it, call {TOOL_NAME} once with the whole new document in Markdown "
        "(keep what the user did not ask to change; keep stories short). The page shows it as "
        f"you write. After {TOOL_NAME}, always call {CONFIRM_TOOL} when the page offers it, so "
        "the user can accept or reject the change. When the user has answered, say in one "
        "sentence what you did "
        "(or that the change was rejected); never repeat the document in the chat.\n\n"
        f"{CURRENT_DOCUMENT}\n{current}"
    )


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """An editor whose instructions carry the page's document."""
    return Agent(
        name="Document editor",
        instructions=document_instructions,
        tools=[write_document_local],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="predictive_state_updates",
        description=DESCRIPTION,
        run_config=settings.run_config,
        state=StateUpdates(deltas=True, predictive=PREDICTIONS),
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
