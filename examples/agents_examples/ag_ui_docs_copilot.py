"""AG-UI Docs Copilot: an agent that answers questions from this package's README.

The endpoint is written out in full with :class:`AGUITranslator`, one step after the other:
RunAgentInput → ``to_openai`` → ``Runner.run_streamed`` → ``to_agui`` → ``EventEncoder``.
The agent reads the README on demand, one section at a time, through two tools.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui_openai_agents import AGUITranslator
from agents import Agent, Runner, function_tool
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from .settings import ExampleSettings

DESCRIPTION = "Answers AG-UI integration questions from the package README."
README = Path(__file__).resolve().parents[2] / "README.md"
logger = logging.getLogger(__name__)
_HEADING = re.compile(r"^(#{1,4})\s+(.+?)\s*#*\s*$")


def readme_sections(text: str) -> dict[str, str]:
    """Split markdown into ``{heading: body}``, ignoring ``#`` lines inside code fences."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            current = sections.setdefault(heading.group(2), [])
        elif current is not None:
            current.append(line)
    return {title: "\n".join(body).strip() for title, body in sections.items()}


def _load_sections() -> dict[str, str]:
    return readme_sections(README.read_text(encoding="utf-8")) if README.exists() else {}


def _closest_title(wanted: str, titles: list[str]) -> str | None:
    """The title equal to ``wanted`` (any case), else the one sharing the most words."""
    for title in titles:
        if title.lower() == wanted.strip().lower():
            return title
    words = set(re.findall(r"[a-z0-9]+", wanted.lower()))
    scored = [(len(words & set(re.findall(r"[a-z0-9]+", t.lower()))), t) for t in titles]
    best = max(scored, default=(0, ""), key=lambda pair: pair[0])
    return best[1] if best[0] > 0 else None


@function_tool
def list_readme_sections() -> str:
    """List the section titles of the ag-ui-openai-agents README, one per line."""
    titles = list(_load_sections())
    return "\n".join(titles) if titles else "The README has no sections."


@function_tool
def read_readme_section(title: str) -> str:
    """Read one section of the ag-ui-openai-agents README.

    Args:
        title: The section title, as listed by list_readme_sections.
    """
    sections = _load_sections()
    found = _closest_title(title, list(sections))
    if found is None:
        return f"No README section matches {title!r}. Sections: {', '.join(sections)}."
    return f"## {found}\n\n{sections[found]}"


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The copilot: it owns its instructions and its two README tools."""
    return Agent(
        name="AG-UI Docs Copilot",
        instructions=(
            "You answer developer questions about ag-ui-openai-agents, the package that connects "
            "OpenAI Agents SDK agents to AG-UI clients. Look up the README before answering: "
            "list its sections, read the relevant ones, and cite the section you used. "
            "Be clear and concise."
        ),
        tools=[list_readme_sections, read_readme_section],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``: one AG-UI run of the copilot, streamed as Server-Sent Events."""
    copilot_agent = build_agent(settings)
    translator = AGUITranslator()  # Stateless: one instance serves every request.

    @app.post(path, name="ag_ui_docs_copilot")
    async def run_ag_ui_docs_copilot(body: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        async def stream() -> AsyncIterator[str]:
            translated = translator.to_openai(body)

            result = Runner.run_streamed(
                copilot_agent,
                input=translated.messages,
                context=translated.context,
                run_config=settings.run_config,
            )

            try:
                async for event in translator.to_agui(result, body):
                    yield encoder.encode(event)
            except Exception:  # The client already has RUN_ERROR; keep the details in the log.
                logger.exception("Run %s failed", body.run_id)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())
