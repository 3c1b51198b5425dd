"""Agentic generative UI: a long-running tool whose progress the page draws from the state.

The model plans a task by calling ``generate_task_steps_generative_ui`` with the steps (the name
and the ``{"steps": [{"description", "status": "pending"}]}`` arguments of the AG-UI Dojo's
fixtures). The tool then carries the steps out one by one, and reports each through the shared
state (``shared_state().update(steps=...)``): the page's ``state.steps`` list fills in, and each
step turns ``"completed"`` while the tool is still running, every change streamed at once:
the first as a ``STATE_SNAPSHOT``, the next ones as ``STATE_DELTA`` patches
(``state=StateUpdates(deltas=True)``), each a one-line ``replace`` of a step's status. When all
are done the model sums up in one sentence.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    StateUpdates,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from agents import Agent, function_tool
from fastapi import FastAPI
from pydantic import BaseModel, Field

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "A long-running tool reporting plan-step progress through the shared state."
KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""
TOOL_NAME = "generate_task_steps_generative_ui"
MAX_STEPS = 12
STEP_SECONDS = 0.4
"""How long each step "takes", so a person sees the steps complete one after another."""


class Step(BaseModel):
    """One step of the plan."""

    description: str = Field(description="The step, in a few words, in gerund form.")
    status: Literal["pending", "completed"] = Field(
        description="Always 'pending' when you propose the step."
    )


@function_tool(name_override=TOOL_NAME)
async def generate_task_steps_generative_ui(steps: list[Step]) -> str:
    """Carry out a task as a list of steps, showing the user each step as it completes.

    Args:
        steps: The steps of the task, in order (a handful, each a couple of words).
    """
    state = shared_state()
    plan = [{"description": step.description, "status": "pending"} for step in steps[:MAX_STEPS]]
    state.update(steps=plan)
    for index in range(len(plan)):
        await asyncio.sleep(STEP_SECONDS)  # The work of one step.
        plan = [dict(step) for step in plan]
        plan[index]["status"] = "completed"
        state.update(steps=plan)
    done = "; ".join(step["description"] for step in plan)
    return f"Completed all {len(plan)} steps: {done}."


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A doer that plans any task as steps and carries them out through the tool."""
    return Agent(
        name="Task runner",
        instructions=(
            f"When the user asks you to do something, call {TOOL_NAME} once with the steps it "
            "takes (as many as the user asks for, else four to six, each a couple of words in "
            "gerund form, status 'pending'). The tool carries them out and the user watches the "
            "steps complete. Then say in one sentence, with an emoji, that you did the steps; "
            "do not list them again. Just chat when the user is not asking for a task."
        ),
        tools=[generate_task_steps_generative_ui],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="agentic_generative_ui",
        description=DESCRIPTION,
        run_config=settings.run_config,
        state=StateUpdates(deltas=True),
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
