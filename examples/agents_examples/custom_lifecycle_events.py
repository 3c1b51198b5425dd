"""Custom lifecycle events: a CUSTOM event after RUN_STARTED and one before RUN_FINISHED.

The start event describes the request; the end event summarises the run from the SDK's
``RunResultStreaming`` (agent, tool calls, model calls, tokens, time). Reading the result needs
the translator directly: the wrapper does not expose it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import CustomEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui_openai_agents import AGUITranslator
from agents import Agent, Runner, function_tool
from agents.items import ToolCallItem
from agents.result import RunResultStreaming
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from .settings import ExampleSettings

DESCRIPTION = "Start and end CUSTOM events computed from run data."
logger = logging.getLogger(__name__)


@function_tool
def count_words(text: str) -> str:
    """Count the words in a text.

    Args:
        text: The text to count.
    """
    return f"{len(text.split())} words"


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A small assistant with one tool, so the summary has something to count."""
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


def run_summary_event(result: RunResultStreaming, started: float) -> CustomEvent:
    """What the run did, read from the finished ``RunResultStreaming``."""
    calls = [item.raw_item for item in result.new_items if isinstance(item, ToolCallItem)]
    usage = result.context_wrapper.usage
    return CustomEvent(
        name="run_summary",
        value={
            "agent": result.current_agent.name,
            "tool_calls": [getattr(call, "name", None) for call in calls],
            "model_calls": usage.requests,
            "total_tokens": usage.total_tokens,
            "duration_ms": round((time.perf_counter() - started) * 1000),
        },
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``: one run framed by the two custom events."""
    agent = build_agent(settings)
    translator = AGUITranslator()

    @app.post(path, name="custom_lifecycle_events")
    async def run_with_custom_events(body: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        async def stream() -> AsyncIterator[str]:
            started = time.perf_counter()
            translated = translator.to_openai(body)
            result = Runner.run_streamed(
                agent,
                input=translated.messages,
                context=translated.context,
                run_config=settings.run_config,
            )
            try:
                async for event in translator.to_agui(
                    result,
                    body,
                    start_custom_event=run_started_event(body),
                    # A function: it runs after the stream ends, when the result is complete.
                    end_custom_event=lambda: run_summary_event(result, started),
                ):
                    yield encoder.encode(event)
            except Exception:  # The client already has RUN_ERROR; keep the details in the log.
                logger.exception("Run %s failed", body.run_id)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())
