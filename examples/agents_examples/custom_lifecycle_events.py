"""Custom lifecycle events: a CUSTOM event after RUN_STARTED and one before RUN_FINISHED.

The start event (``run_context``) describes the request. The end event (``run_usage``) comes
after MESSAGES_SNAPSHOT and carries the run's token totals, read from the SDK's
``RunResultStreaming`` once the stream is over; a page can attach it to the last assistant
message of the snapshot. Reading the result needs the translator directly: the wrapper does not
expose it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, CustomEvent, RunAgentInput
from ag_ui_openai_agents import AGUITranslator
from ag_ui_openai_agents.server.streaming import agui_sse_response
from agents import Agent, Runner, function_tool
from agents.result import RunResultStreaming
from fastapi import FastAPI, Request, Response

from .page_loads import answer_nothing, asks_nothing
from .settings import ExampleSettings

DESCRIPTION = "Start and end CUSTOM events computed from run data (run_context, run_usage)."
ROUTE_WRITTEN_BY_HAND = True
"""Its route is written by hand around the translator; the server caps its body."""


@function_tool
def count_words(text: str) -> str:
    """Count the words in a text.

    Args:
        text: The text to count.
    """
    return f"{len(text.split())} words"


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A small assistant with one tool, so a run can take more than one model call."""
    return Agent(
        name="Word counter",
        instructions="Answer briefly. Use count_words when the user asks how long a text is.",
        tools=[count_words],
        model=settings.model,
    )


def run_started_event(body: RunAgentInput) -> CustomEvent:
    """What the request brought: history length and the tools the client declared."""
    return CustomEvent(
        name="run_context",
        value={
            "thread_id": body.thread_id,
            "message_count": len(body.messages),
            "client_tools": [tool.name for tool in body.tools or []],
        },
    )


def run_usage_event(result: RunResultStreaming) -> CustomEvent:
    """The run's token totals, every model call included, from the finished result."""
    usage = result.context_wrapper.usage
    return CustomEvent(
        name="run_usage",
        value={"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``: one run framed by ``run_context`` and ``run_usage``."""
    agent = build_agent(settings)
    translator = AGUITranslator()

    @app.post(path, name="custom_lifecycle_events")
    async def run_with_custom_events(body: RunAgentInput, request: Request) -> Response:
        async def events() -> AsyncIterator[BaseEvent]:
            if asks_nothing(body):  # a page loading: nothing to answer, no model call
                for event in answer_nothing(body):
                    yield event
                return
            translated = translator.to_openai(body)
            result = Runner.run_streamed(
                agent,
                input=translated.messages,
                context=translated.context,
                run_config=settings.run_config,
            )
            async for event in translator.to_agui(
                result,
                body,
                start_custom_event=run_started_event(body),
                # A function: it runs after the stream ends, when the result is complete.
                end_custom_event=lambda: run_usage_event(result),
            ):
                yield event

        # SSE with keepalive, a safe RUN_ERROR on failure, a clean end on shutdown.
        return agui_sse_response(request, body, events())
