"""AG-UI Docs Copilot: an agent that answers questions from documentation it reads on demand.

The endpoint is written out in full with :class:`AGUITranslator`, one step after the other:
RunAgentInput → ``to_openai`` → ``Runner.run_streamed`` → ``to_agui`` → ``agui_sse_response``.
Two tools look things up, one section at a time: ``read_ag_ui_openai_agents_docs`` reads this
package's README and its guides in docs/, ``read_ag_ui_protocol_docs`` a short AG-UI protocol
summary shipped with the examples. Both take an optional ``heading``; without one they list the
headings.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui_openai_agents import AGUITranslator
from ag_ui_openai_agents.server.streaming import agui_sse_response
from agents import Agent, Runner, function_tool
from fastapi import FastAPI, Request, Response

from .page_loads import answer_nothing, asks_nothing
from .settings import ExampleSettings

DESCRIPTION = "Answers AG-UI integration questions from the package docs and a protocol summary."
ROUTE_WRITTEN_BY_HAND = True
"""Its route is written by hand around the translator; the server caps its body."""
README = Path(__file__).resolve().parents[2] / "README.md"
PACKAGE_DOCS = (README, *sorted((README.parent / "docs").glob("*.md")))
"""The package's README, then its guides in docs/: the sections the copilot can read."""
PROTOCOL_SUMMARY = Path(__file__).resolve().parents[1] / "docs" / "ag_ui_protocol.md"
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_sections(text: str) -> dict[str, str]:
    """Split markdown into ``{heading: body}``; a body runs to the next heading of the same or a
    higher level, so it holds its subsections. ``#`` lines inside code fences are not headings.
    """
    lines = text.splitlines()
    headings: list[tuple[int, int, str]] = []  # (line index, level, title)
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            headings.append((index, len(match.group(1)), match.group(2)))
    sections: dict[str, str] = {}
    for position, (index, level, title) in enumerate(headings):
        later = [i for i, lvl, _ in headings[position + 1 :] if lvl <= level]
        body = "\n".join(lines[index + 1 : later[0] if later else len(lines)]).strip()
        sections.setdefault(title, body)
    return sections


def _closest_heading(wanted: str, headings: list[str]) -> str | None:
    """The heading equal to ``wanted`` (any case), else the one sharing the most words."""
    for heading in headings:
        if heading.lower() == wanted.strip().lower():
            return heading
    words = set(re.findall(r"[a-z0-9]+", wanted.lower()))
    scored = [(len(words & set(re.findall(r"[a-z0-9]+", h.lower()))), h) for h in headings]
    best = max(scored, default=(0, ""), key=lambda pair: pair[0])
    return best[1] if best[0] > 0 else None


def read_section(documents: tuple[Path, ...], heading: str) -> str:
    """One section of ``documents`` as markdown, or their headings (one per line) when
    ``heading`` is empty or matches none."""
    text = "\n\n".join(d.read_text(encoding="utf-8") for d in documents if d.exists())
    sections = markdown_sections(text)
    if not sections:
        return f"{documents[0].name} has no sections."
    listing = "\n".join(sections)
    if not heading.strip():
        return listing
    found = _closest_heading(heading, list(sections))
    if found is None:
        return f"No section matches {heading!r}. The headings are:\n{listing}"
    return f"## {found}\n\n{sections[found]}"


# Not strict: ``heading`` may be left out, which lists the headings.
@function_tool(strict_mode=False)
def read_ag_ui_openai_agents_docs(heading: str = "") -> str:
    """Read a section of the ag-ui-openai-agents documentation (its README and guides):
    installation, the translator, the wrapper, the FastAPI route, client tools, shared state,
    subagents, approvals, deployment and examples.

    Args:
        heading: The section heading to read; leave it out to list the headings.
    """
    return read_section(PACKAGE_DOCS, heading)


@function_tool(strict_mode=False)
def read_ag_ui_protocol_docs(heading: str = "") -> str:
    """Read a section of the AG-UI protocol 1.0 summary: the request, lifecycle, events,
    outcomes, interrupts, usage and subagents.

    Args:
        heading: The section heading to read; leave it out to list the headings.
    """
    return read_section((PROTOCOL_SUMMARY,), heading)


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The copilot: it owns its instructions and its two documentation tools."""
    return Agent(
        name="AG-UI Docs Copilot",
        instructions=(
            "You answer developer questions about ag-ui-openai-agents, the package that connects "
            "OpenAI Agents SDK agents to AG-UI clients, and about the AG-UI protocol. Look the "
            "answer up before replying: read_ag_ui_openai_agents_docs for the package, "
            "read_ag_ui_protocol_docs for the protocol. Call a tool without a heading to see "
            "its headings, then read the relevant sections, and cite the section you used. "
            "Be clear and concise."
        ),
        tools=[read_ag_ui_openai_agents_docs, read_ag_ui_protocol_docs],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``: one AG-UI run of the copilot, streamed as Server-Sent Events."""
    copilot_agent = build_agent(settings)
    translator = AGUITranslator()  # Stateless: one instance serves every request.

    @app.post(path, name="ag_ui_docs_copilot")
    async def run_ag_ui_docs_copilot(body: RunAgentInput, request: Request) -> Response:
        async def events() -> AsyncIterator[BaseEvent]:
            if asks_nothing(body):  # a page loading: nothing to answer, no model call
                for event in answer_nothing(body):
                    yield event
                return
            translated = translator.to_openai(body)
            result = Runner.run_streamed(
                copilot_agent,
                input=translated.messages,
                context=translated.context,
                run_config=settings.run_config,
            )
            async for event in translator.to_agui(result, body):
                yield event

        # SSE with keepalive, a safe RUN_ERROR on failure, a clean end on shutdown.
        return agui_sse_response(request, body, events())
