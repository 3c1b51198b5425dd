"""``add_openai_agents_fastapi_endpoint``: an AG-UI route (SSE), health and capabilities."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from ag_ui.core import RunAgentInput, RunErrorEvent
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from .agent import OpenAIAgentsAgent

__all__ = ["add_openai_agents_fastapi_endpoint"]

logger = logging.getLogger(__name__)

ENCODING_ERROR_MESSAGE = "The agent produced an event that could not be sent."


def _operation_prefix(app: FastAPI, path: str) -> str:
    """An OpenAPI operation-id prefix for ``path`` that no route of ``app`` uses yet."""
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", path).strip("_") or "root"
    taken = {getattr(route, "operation_id", None) for route in app.routes}
    prefix, n = slug, 1
    while f"{prefix}_run" in taken:
        n += 1
        prefix = f"{slug}_{n}"
    return prefix


def add_openai_agents_fastapi_endpoint(
    app: FastAPI,
    agent: OpenAIAgentsAgent,
    path: str = "/agent",
    include_health: bool = True,
) -> None:
    """Add ``POST path`` (AG-UI run, streamed as SSE), ``GET path/health`` and
    ``GET path/capabilities`` to ``app``. Several agents can share one app under distinct paths.

    A body that is not a valid ``RunAgentInput`` is answered with HTTP 422 naming the bad
    fields, before any stream starts. Errors during the run end the stream with RUN_ERROR and
    are logged here; no traceback reaches the client.
    """
    base = path.rstrip("/") or ""
    prefix = _operation_prefix(app, path)

    async def run_agent(run_input: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder(accept=request.headers.get("accept", ""))
        run_id = run_input.run_id

        async def stream() -> AsyncIterator[str]:
            events = agent.run_streamed(run_input)
            try:
                # Closed when the client goes away: that cancels the SDK run.
                async with aclosing(events):
                    async for event in events:
                        try:
                            chunk = encoder.encode(event)
                        except Exception:
                            # An event JSON cannot carry (a lone surrogate, an object in the
                            # state): end the run with RUN_ERROR rather than cut the stream.
                            logger.exception("Could not encode %s of run %s", event.type, run_id)
                            message = agent.run_error_message or ENCODING_ERROR_MESSAGE
                            yield encoder.encode(RunErrorEvent(message=message))
                            return
                        yield chunk
            except Exception:
                logger.exception("AG-UI run %s of %s failed", run_id, agent.name)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    app.add_api_route(
        path,
        run_agent,
        methods=["POST"],
        operation_id=f"{prefix}_run",
        summary=f"Run {agent.name} (AG-UI)",
        response_class=StreamingResponse,
    )

    async def capabilities() -> dict[str, Any]:
        return agent.capabilities().model_dump(mode="json", by_alias=True, exclude_none=True)

    app.add_api_route(
        f"{base}/capabilities",
        capabilities,
        methods=["GET"],
        operation_id=f"{prefix}_capabilities",
        summary=f"AG-UI capabilities of {agent.name}",
    )
    if include_health:

        async def health() -> dict[str, Any]:
            return {"status": "ok", "agent": {"name": agent.name}}

        app.add_api_route(
            f"{base}/health",
            health,
            methods=["GET"],
            operation_id=f"{prefix}_health",
            summary=f"Health of {agent.name}",
        )
