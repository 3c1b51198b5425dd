"""Subagents: a manager that delegates to three specialist agents used as tools.

The manager calls ``research_topic``, ``write_prose`` and ``critique_draft`` in turn; each is
an ``Agent.as_tool`` with the SDK's default ``{"input": string}`` arguments, so a page can
render a delegation log from the three tool calls and their results. Each specialist does
visible work of its own before answering: it calls one small tool, then writes its text. With
``on_stream=subagent_events`` that work streams live as an AG-UI subagent (SUBAGENT_STARTED,
its tool call and text tagged with its ``subagentRunId``, SUBAGENT_FINISHED) inside the
manager's call, before the call's result, to clients that declare AG-UI 1.0. Requests without
``protocolVersion`` (CopilotKit's runtime, the AG-UI Dojo) get the three calls and their
results only, unless ``AG_UI_SUBAGENTS_FOR_PRE_1_0_CLIENTS=true`` (``settings.subagents``,
``Subagents(pre_1_0_clients=True)``) says every client accepts the events.
"""

from __future__ import annotations

import re
from typing import Any

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    subagent_events,
)
from agents import Agent, ModelSettings, function_tool
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Agents-as-tools orchestration (research_topic, write_prose, critique_draft)."
DELEGATIONS = ("research_topic", "write_prose", "critique_draft")

# A tiny offline fact sheet, so the researcher's lookup returns something real.
_FACTS: dict[frozenset[str], tuple[str, ...]] = {
    frozenset({"ai", "artificial", "intelligence", "machine", "learning"}): (
        "The term 'artificial intelligence' was coined for the 1956 Dartmouth workshop.",
        "Neural networks date back to the perceptron of the late 1950s.",
        "Deep learning took off in the 2010s with GPUs and large labelled data sets.",
    ),
    frozenset({"programming", "languages", "language", "code", "software"}): (
        "Fortran (1957) was one of the first widely used high-level languages.",
        "C (1972) shaped the syntax of many later languages.",
        "Python was first released in 1991.",
    ),
    frozenset({"coffee", "espresso", "caffeine"}): (
        "Coffee drinking is first recorded in 15th-century Yemen.",
        "Coffeehouses spread across Europe in the 17th century.",
        "The espresso machine was patented in Italy in 1884.",
    ),
    frozenset({"solar", "panels", "photovoltaic", "sun", "energy"}): (
        "Solar panels turn sunlight into electricity through the photovoltaic effect.",
        "Typical modern panels convert about 20 percent of sunlight to power.",
        "Panel prices fell by around 90 percent between 2010 and 2020.",
    ),
}


@function_tool
def look_up_facts(topic: str) -> str:
    """Look a topic up in the research fact sheet.

    Args:
        topic: The topic to look up, in a few words.
    """
    words = set(re.findall(r"[a-z]+", topic.lower()))
    for keys, facts in _FACTS.items():
        if words & keys:
            return "\n".join(f"- {fact}" for fact in facts)
    return f"The fact sheet has nothing on {topic!r}; rely on general knowledge."


@function_tool
def outline_piece(notes: str) -> str:
    """Turn research notes into a numbered outline, one point per line (headings dropped).

    Args:
        notes: The research notes to outline.
    """
    lines = (line.strip(" -*•") for line in notes.splitlines())
    points = [line for line in lines if line and not line.endswith(":")]  # No headings.
    return "\n".join(f"{number}. {point}" for number, point in enumerate(points, 1))


@function_tool
def measure_readability(text: str) -> str:
    """Measure a draft: words, sentences and the average sentence length.

    Args:
        text: The draft to measure.
    """
    words = len(text.split())
    sentences = max(1, len(re.findall(r"[.!?](?:\s|$)", text)))
    return f"{words} words, {sentences} sentences, {words / sentences:.1f} words per sentence."


def _specialist(name: str, instructions: str, tool: Any, settings: ExampleSettings) -> Agent[Any]:
    """A specialist that always starts with its own tool (``tool_choice="required"``; the SDK
    resets the choice after the call, so it then writes its answer)."""
    return Agent(
        name=name,
        instructions=instructions,
        tools=[tool],
        model_settings=ModelSettings(tool_choice="required"),
        model=settings.model,
    )


def build_specialists(settings: ExampleSettings) -> dict[str, Agent[Any]]:
    """The researcher, the writer and the critic, by the name of the tool each becomes.

    Each one's instructions open as the AG-UI Dojo's end-to-end fixtures expect ("You research
    a topic", "You turn bullet-point facts", "You review a draft"): the Dojo's mock model
    answers a specialist's request by matching its instructions on those words."""
    return {
        "research_topic": _specialist(
            "Researcher",
            "You research a topic. Call look_up_facts with the topic you are given, then list "
            "the three most useful facts as bullet points.",
            look_up_facts,
            settings,
        ),
        "write_prose": _specialist(
            "Writer",
            "You turn bullet-point facts into prose. Call outline_piece with the facts you are "
            "given, then write one short, plain paragraph that follows the outline.",
            outline_piece,
            settings,
        ),
        "critique_draft": _specialist(
            "Critic",
            "You review a draft. Call measure_readability on the draft you are given, then "
            "suggest at most two improvements.",
            measure_readability,
            settings,
        ),
    }


_TOOL_DESCRIPTIONS = {
    "research_topic": "Research a topic and return a few key facts as short notes.",
    # Naming the tool whose output each one works on tells the model (and the offline demo
    # model) the order: research, then write, then critique.
    "write_prose": "Write a short piece of prose from the notes research_topic returned.",
    "critique_draft": "Critique the draft write_prose returned and suggest improvements.",
}


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The manager, with the three specialists as tools."""
    return Agent(
        name="Manager",
        instructions=(
            "You coordinate a team of specialists. For any writing request, call research_topic "
            "with the topic, then write_prose with the research notes, then critique_draft "
            "with the draft. Finish with the draft, improved along the critic's suggestions. "
            "Answer simple questions yourself, without the team."
        ),
        tools=[
            specialist.as_tool(
                tool_name=name,
                tool_description=_TOOL_DESCRIPTIONS[name],
                on_stream=subagent_events,
            )
            for name, specialist in build_specialists(settings).items()
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
        # True only when every client without protocolVersion accepts SUBAGENT_* events
        # (CopilotKit 1.75 / @ag-ui/client 0.0.59, not 0.0.57).
        subagents=settings.subagents,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
