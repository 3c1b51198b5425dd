"""Subagents: an orchestrator that delegates to specialist agents used as tools.

Each specialist runs as its own agent inside the orchestrator's tool call; the client sees
an ordinary tool call with the specialist's answer as its result.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent
from fastapi import FastAPI

from .settings import ExampleSettings

DESCRIPTION = "Agents-as-tools orchestration (research, write, review)."


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The orchestrator, with a researcher, a writer and a reviewer as tools."""
    researcher = Agent(
        name="Researcher",
        instructions="List the three most useful facts about the topic, one per line.",
        model=settings.model,
    )
    writer = Agent(
        name="Writer",
        instructions="Write a short, plain paragraph from the notes you are given.",
        model=settings.model,
    )
    reviewer = Agent(
        name="Reviewer",
        instructions="Review the text you are given and suggest at most two improvements.",
        model=settings.model,
    )
    return Agent(
        name="Orchestrator",
        instructions=(
            "You coordinate specialists. Use research_topic to gather facts, write_draft to "
            "turn notes into prose, and review_text to check a draft. Call only the "
            "specialists the request needs, then answer with their combined result."
        ),
        tools=[
            researcher.as_tool(
                tool_name="research_topic",
                tool_description="Research a topic and return key facts.",
            ),
            writer.as_tool(
                tool_name="write_draft",
                tool_description="Write prose from the notes it is given.",
            ),
            reviewer.as_tool(
                tool_name="review_text",
                tool_description="Review or proofread a text and suggest improvements.",
            ),
        ],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="subagents",
        description=DESCRIPTION,
        run_config=settings.run_config,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
