"""Human in the loop: the agent proposes steps through a tool the frontend owns.

The client declares ``generate_task_steps`` in ``RunAgentInput.tools`` and renders its
arguments as a checklist. The run stops at that call; the user edits the steps, and the client
sends its choice back as a tool message in the next request, where the agent continues.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, StopAtTools
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Frontend-owned tool (generate_task_steps) plus user review."
CLIENT_TOOL = "generate_task_steps"


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A planner; the client adds ``generate_task_steps`` to each request."""
    return Agent(
        name="Task planner",
        instructions=(
            f"When the user asks for a plan or steps, call {CLIENT_TOOL} with short, "
            "imperative steps. The user reviews them and answers with the steps they kept; "
            "then confirm the plan in one or two sentences using only the kept steps."
        ),
        # Stop the run at the client's tool: the frontend executes it, not the server.
        tool_use_behavior=StopAtTools(stop_at_tool_names=[CLIENT_TOOL]),
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="human_in_the_loop",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
