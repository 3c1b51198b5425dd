"""``add_openai_agents_fastapi_endpoint``: an AG-UI route (SSE), health and capabilities.

This is the package's I/O edge. The run itself (:class:`OpenAIAgentsAgent`, the translator,
the engine) yields AG-UI events and knows nothing of HTTP. The run route reads its body after
the route's dependencies (:mod:`~ag_ui_openai_agents.server.limits`), then hands the run's
events to :mod:`~ag_ui_openai_agents.server.streaming`, which encodes them, paces them with
keepalive comments, ends them cleanly when the server shuts down, and logs with the run's ids.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from ag_ui.core import RunAgentInput
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.params import Depends
from fastapi.responses import JSONResponse, StreamingResponse

from ag_ui_openai_agents.agent import OpenAIAgentsAgent
from ag_ui_openai_agents.server.limits import (
    DEFAULT_MAX_REQUEST_BYTES,
    check_limit,
    read_run_input,
)
from ag_ui_openai_agents.server.logs import install_run_ids_filter
from ag_ui_openai_agents.server.resumable import Resumable, resumable_for
from ag_ui_openai_agents.server.shutdown import server_shutdown
from ag_ui_openai_agents.server.streaming import (
    DEFAULT_KEEPALIVE_SECONDS,
    ENCODING_ERROR_MESSAGE,
    KEEPALIVE_COMMENT,
    SHUTDOWN_ERROR_CODE,
    SHUTDOWN_MESSAGE,
    make_encoder,
    sse_response,
)
from ag_ui_openai_agents.threads.media import load_media

__all__ = [
    "DEFAULT_KEEPALIVE_SECONDS",
    "DEFAULT_MAX_REQUEST_BYTES",
    "ENCODING_ERROR_MESSAGE",
    "KEEPALIVE_COMMENT",
    "SHUTDOWN_ERROR_CODE",
    "SHUTDOWN_MESSAGE",
    "add_openai_agents_fastapi_endpoint",
    "make_encoder",
]


def _inlined(node: Any, definitions: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` to ``definitions`` replaced by the definition itself."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inlined(definitions[ref.removeprefix("#/$defs/")], definitions)
        return {key: _inlined(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inlined(value, definitions) for value in node]
    return node


@functools.cache
def _run_input_schema() -> str:
    """``RunAgentInput``'s JSON schema, inlined, as JSON text: made once per process (it takes
    tens of milliseconds, and an app may serve many agents). Its models are not recursive."""
    schema = RunAgentInput.model_json_schema(by_alias=True)
    return json.dumps(_inlined(schema, schema.pop("$defs", {})))


def _run_body() -> dict[str, Any]:
    """The run route's ``requestBody`` for the OpenAPI schema (a copy of its own per route):
    the route reads its body itself, so FastAPI does not document it."""
    schema = json.loads(_run_input_schema())
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def _operation_prefix(router: APIRouter, path: str) -> str:
    """An OpenAPI operation-id prefix for ``path`` that no route of ``router`` uses yet."""
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", path).strip("_") or "root"
    taken = {getattr(route, "operation_id", None) for route in router.routes}
    prefix, n = slug, 1
    while f"{prefix}_run" in taken:
        n += 1
        prefix = f"{slug}_{n}"
    return prefix


def _both_forms(path: str) -> list[str]:
    """``path`` without and with a trailing slash (just ``/`` for the root)."""
    base = path.rstrip("/")
    return [base, f"{base}/"] if base else ["/"]


def add_openai_agents_fastapi_endpoint(
    app_or_router: FastAPI | APIRouter,
    agent: OpenAIAgentsAgent,
    path: str = "/agent",
    *,
    include_health: bool = True,
    keepalive_seconds: float | None = DEFAULT_KEEPALIVE_SECONDS,
    max_request_bytes: int | None = DEFAULT_MAX_REQUEST_BYTES,
    dependencies: Sequence[Depends] | None = None,
) -> None:
    """Add ``POST path`` (an AG-UI run, streamed as SSE), ``GET path/health``,
    ``GET path/capabilities`` and, for an agent with a thread store, ``GET path/media/{id}``
    (the large media of tool results, to whoever may open their thread; docs/media.md) to a
    ``FastAPI`` app or an ``APIRouter``.

    Every route answers with and without a trailing slash (no redirect). ``dependencies``
    run before each of them (authentication, rate limits), and on the run route before any of
    the body is read. While a run is silent for ``keepalive_seconds``, a ``: keepalive`` SSE
    comment is written (None: never). A body over ``max_request_bytes`` (None: no cap) gets
    HTTP 413 without being read past the limit; one that is not a valid ``RunAgentInput`` gets
    a short HTTP 422 naming the bad fields, before any stream starts. Errors during the run
    end the stream with RUN_ERROR (code ``AGENT_ERROR``, no exception text unless the agent
    has ``expose_error_details``) and are logged here with the run's ids. When the server
    shuts down, runs in flight are cancelled and end with RUN_ERROR, and new ones get 503.
    """
    if keepalive_seconds is not None and not keepalive_seconds > 0:
        raise ValueError("keepalive_seconds must be positive, or None to turn keepalive off")
    check_limit(max_request_bytes)
    router = app_or_router.router if isinstance(app_or_router, FastAPI) else app_or_router
    base = path.rstrip("/")
    routes = _Routes(agent, keepalive_seconds, max_request_bytes)
    add = _RouteAdder(router, _operation_prefix(router, path), dependencies)
    install_run_ids_filter()
    add(
        path,
        routes.run,
        "run",
        methods=["POST"],
        summary=f"Run {agent.name} (AG-UI)",
        response_class=StreamingResponse,
        openapi_extra=_run_body(),
    )
    if routes.resumable is not None:
        add(
            f"{base}/stop",
            routes.resumable.stop,
            "stop",
            methods=["POST"],
            summary=f"Stop a run of {agent.name}",
            status_code=202,
        )
    add(
        f"{base}/capabilities",
        routes.capabilities,
        "capabilities",
        methods=["GET"],
        summary=f"AG-UI capabilities of {agent.name}",
    )
    if agent.threads is not None:  # media are kept in the thread store
        add(
            f"{base}/media/{{media_id}}",
            routes.media,
            "media",
            methods=["GET"],
            summary=f"A medium of a tool result of {agent.name}",
            response_class=Response,
        )
    if include_health:
        add(
            f"{base}/health",
            routes.health,
            "health",
            methods=["GET"],
            summary=f"Health of {agent.name}",
        )


class _Routes:
    """The handlers of one agent's routes."""

    def __init__(
        self,
        agent: OpenAIAgentsAgent,
        keepalive_seconds: float | None,
        max_request_bytes: int | None,
    ) -> None:
        self.agent = agent
        self.keepalive_seconds = keepalive_seconds
        self.max_request_bytes = max_request_bytes
        self.label = f"AG-UI run of {agent.name}"
        self.resumable: Resumable | None = resumable_for(
            agent, keepalive_seconds=keepalive_seconds, label=self.label
        )
        """The detached runs of the route (None: a run is its response)."""

    async def run(self, request: Request) -> Response:
        """``POST path``: the run as SSE (HTTP 503 once the server is stopping).

        The body is read here, after the route's dependencies, not by FastAPI before them.
        """
        if server_shutdown.began:
            detail = {"detail": SHUTDOWN_MESSAGE}
            return JSONResponse(detail, status_code=503, headers={"Retry-After": "1"})
        run_input = await read_run_input(request, self.max_request_bytes)
        if not isinstance(run_input, RunAgentInput):
            return run_input
        if self.resumable is not None:
            response = await self.resumable.run(request, run_input)
            if response is not None:
                return response
        return sse_response(
            request,
            run_input,
            self.agent.run_streamed(run_input, request=request),
            keepalive_seconds=self.keepalive_seconds,
            expose_error_details=self.agent.expose_error_details,
            label=self.label,
        )

    async def capabilities(self) -> dict[str, Any]:
        """``GET path/capabilities``: the agent's AG-UI capabilities document."""
        document = self.agent.capabilities()
        if self.resumable is not None and document.transport is not None:
            transport = document.transport.model_copy(update={"resumable": True})
            document = document.model_copy(update={"transport": transport})
        return document.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def media(self, media_id: str, request: Request) -> Response:
        """``GET path/media/{id}``: a medium kept in a thread the request may open (404 for
        any other: unknown, expired and forbidden alike). It is sent sandboxed, never sniffed,
        and a file that is not an image as a download."""
        threads = self.agent.threads
        found = await load_media(threads, media_id, request) if threads is not None else None
        if found is None:
            return JSONResponse({"detail": "Media not found"}, status_code=404)
        disposition = "inline" if found.mime_type.startswith("image/") else "attachment"
        if found.filename:
            disposition += f"; filename*=UTF-8''{quote(found.filename, safe='')}"
        headers = {
            "Content-Disposition": disposition,
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, max-age=3600",
        }
        return Response(found.body, media_type=found.mime_type, headers=headers)

    async def health(self) -> Any:
        """``GET path/health``: the agent's name, or 503 once the server is stopping."""
        if server_shutdown.began:
            return JSONResponse({"status": "shutting_down"}, status_code=503)
        return {"status": "ok", "agent": {"name": self.agent.name}}


class _RouteAdder:
    """Adds a route in both forms (with and without a trailing slash) with unique operation
    ids, only the first form in the OpenAPI schema."""

    def __init__(
        self, router: APIRouter, prefix: str, dependencies: Sequence[Depends] | None
    ) -> None:
        self.router, self.prefix, self.dependencies = router, prefix, dependencies

    def __call__(
        self, route_path: str, endpoint: Callable[..., Any], kind: str, **options: Any
    ) -> None:
        for position, form in enumerate(_both_forms(route_path)):
            self.router.add_api_route(
                form,
                endpoint,
                operation_id=f"{self.prefix}_{kind}" + ("_slash" if position else ""),
                include_in_schema=position == 0,
                dependencies=self.dependencies,
                **options,
            )
