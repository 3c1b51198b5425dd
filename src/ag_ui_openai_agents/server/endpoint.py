"""``add_openai_agents_fastapi_endpoint``: an AG-UI route (SSE), health and capabilities.

This is the package's I/O edge. The run itself (:class:`OpenAIAgentsAgent`, the translator,
the engine) yields AG-UI events and knows nothing of HTTP; here they are encoded, paced with
keepalive comments, ended cleanly when the server shuts down, and logged with the run's ids.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.params import Depends
from fastapi.responses import JSONResponse, StreamingResponse

from ag_ui_openai_agents.agent import OpenAIAgentsAgent
from ag_ui_openai_agents.server.encoding import encode_event
from ag_ui_openai_agents.server.keepalive import Pause, paced
from ag_ui_openai_agents.server.limits import DEFAULT_MAX_REQUEST_BYTES, run_route_class
from ag_ui_openai_agents.server.logs import (
    RunIds,
    context_with_run_ids,
    install_run_ids_filter,
    run_logger,
)
from ag_ui_openai_agents.server.shutdown import server_shutdown

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

logger = logging.getLogger(__name__)

ENCODING_ERROR_MESSAGE = "The agent produced an event that could not be sent."
SHUTDOWN_MESSAGE = "The server is shutting down. Please send the request again."
"""RUN_ERROR.message of the runs in flight when the server stops."""
SHUTDOWN_ERROR_CODE = "SERVER_SHUTTING_DOWN"
DEFAULT_KEEPALIVE_SECONDS = 15.0
KEEPALIVE_COMMENT = ": keepalive\n\n"
"""An SSE comment: clients skip it; proxies see bytes on an otherwise silent stream."""
SSE_CONTENT_TYPE = "text/event-stream"
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
"""Keep proxies and caches from storing or buffering the stream (``X-Accel-Buffering`` is
nginx's per-response ``proxy_buffering off``)."""

_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})


def make_encoder(accept: str) -> EventEncoder:
    """The encoder for a request's ``Accept`` header: the one place encoders are made."""
    return EventEncoder(accept=accept)


def _operation_prefix(router: APIRouter, path: str) -> str:
    """An OpenAPI operation-id prefix for ``path`` that no route of ``router`` uses yet."""
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", path).strip("_") or "root"
    taken = {getattr(route, "operation_id", None) for route in router.routes}
    prefix, n = slug, 1
    while f"{prefix}_run" in taken:
        n += 1
        prefix = f"{slug}_{n}"
    return prefix


@dataclass
class _Ending:
    """Why a run's stream ended, for its last log record."""

    reason: str = "the run's stream ended"


def _both_forms(path: str) -> list[str]:
    """``path`` without and with a trailing slash (just ``/`` for the root)."""
    base = path.rstrip("/")
    return [base, f"{base}/"] if base else ["/"]


async def stream_run(
    agent: OpenAIAgentsAgent,
    run_input: RunAgentInput,
    encoder: EventEncoder,
    *,
    keepalive_seconds: float | None,
    request: Any = None,
) -> AsyncIterator[str]:
    """The encoded events of one run, with keepalive comments while it is silent.

    When the server shuts down, the run is cancelled and the stream ends with RUN_ERROR
    (unless the run already ended), always between two whole events. The run's start and end
    are logged at debug level, its failure at error level with the traceback.
    """
    ids = RunIds(run_input.thread_id, run_input.run_id)
    log = run_logger(logger, ids)
    sse = encoder.get_content_type() == SSE_CONTENT_TYPE
    # encode_event writes EventEncoder's very SSE lines, cheaper for the streamed deltas.
    encode = encode_event if sse else encoder.encode
    if not sse:
        keepalive_seconds = None  # comments exist only in SSE
    ending = _Ending()
    log.debug("AG-UI run of %s started", agent.name)
    try:
        with server_shutdown.watching() as stopping:
            items = paced(
                agent.run_streamed(run_input, request=request),
                keepalive_seconds=keepalive_seconds,
                stop=stopping,
                context=context_with_run_ids(ids.thread_id, ids.run_id),
            )
            async with aclosing(items):
                async for chunk in _chunks(items, encode, agent, log, ending):
                    yield chunk
    except Exception:
        ending.reason = "the run failed"
        log.exception("AG-UI run of %s failed", agent.name)
    except BaseException:
        ending.reason = "the client went away"
        raise
    finally:
        log.debug("AG-UI run of %s ended: %s", agent.name, ending.reason)


async def _chunks(
    items: AsyncIterator[BaseEvent | Pause],
    encode: Callable[[BaseEvent], str],
    agent: OpenAIAgentsAgent,
    log: logging.LoggerAdapter,  # type: ignore[type-arg]
    ending: _Ending,
) -> AsyncIterator[str]:
    """What to write for each paced item; ``ending`` says why the stream ended early."""
    terminal = False
    async for item in items:
        if item is Pause.KEEPALIVE:
            yield KEEPALIVE_COMMENT
        elif item is Pause.STOPPED:
            ending.reason = "the server is shutting down; the run was cancelled"
            if not terminal:
                yield encode(RunErrorEvent(message=SHUTDOWN_MESSAGE, code=SHUTDOWN_ERROR_CODE))
            return
        elif isinstance(item, BaseEvent):
            try:
                chunk = encode(item)
            except Exception:
                # An event JSON cannot carry (a lone surrogate, an object in the state): end
                # the run with RUN_ERROR rather than cut the stream.
                log.exception("Could not encode %s of an AG-UI run of %s", item.type, agent.name)
                ending.reason = "an event could not be encoded"
                message = agent.lifecycle.run_error_message or ENCODING_ERROR_MESSAGE
                yield encode(RunErrorEvent(message=message))
                return
            terminal = terminal or item.type in _TERMINAL
            yield chunk


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
    """Add ``POST path`` (an AG-UI run, streamed as SSE), ``GET path/health`` and
    ``GET path/capabilities`` to a ``FastAPI`` app or an ``APIRouter``.

    Every route answers with and without a trailing slash (no redirect). ``dependencies``
    run before each of them (authentication, rate limits). While a run is silent for
    ``keepalive_seconds``, a ``: keepalive`` SSE comment is written (None: never). A body over
    ``max_request_bytes`` (None: no cap) gets HTTP 413 before it is parsed; one that is not a
    valid ``RunAgentInput`` gets HTTP 422 naming the bad fields, before any stream starts.
    Errors during the run end the stream with RUN_ERROR and are logged here with the run's
    ids; no traceback reaches the client. When the server shuts down, runs in flight are
    cancelled and end with RUN_ERROR, and new ones get HTTP 503.
    """
    if keepalive_seconds is not None and not keepalive_seconds > 0:
        raise ValueError("keepalive_seconds must be positive, or None to turn keepalive off")
    if max_request_bytes is not None and max_request_bytes < 0:
        raise ValueError("max_request_bytes must be zero or more, or None for no limit")
    router = app_or_router.router if isinstance(app_or_router, FastAPI) else app_or_router
    base = path.rstrip("/")
    routes = _Routes(agent, keepalive_seconds)
    add = _RouteAdder(router, _operation_prefix(router, path), dependencies)
    install_run_ids_filter()
    add(
        path,
        routes.run,
        "run",
        methods=["POST"],
        summary=f"Run {agent.name} (AG-UI)",
        response_class=StreamingResponse,
        route_class_override=run_route_class(max_request_bytes),
    )
    add(
        f"{base}/capabilities",
        routes.capabilities,
        "capabilities",
        methods=["GET"],
        summary=f"AG-UI capabilities of {agent.name}",
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

    def __init__(self, agent: OpenAIAgentsAgent, keepalive_seconds: float | None) -> None:
        self.agent = agent
        self.keepalive_seconds = keepalive_seconds

    async def run(self, run_input: RunAgentInput, request: Request) -> Response:
        """``POST path``: the run as SSE (HTTP 503 once the server is stopping)."""
        if server_shutdown.began:
            detail = {"detail": SHUTDOWN_MESSAGE}
            return JSONResponse(detail, status_code=503, headers={"Retry-After": "1"})
        server_shutdown.watch_signals_once()
        encoder = make_encoder(request.headers.get("accept", ""))
        events = stream_run(
            self.agent,
            run_input,
            encoder,
            keepalive_seconds=self.keepalive_seconds,
            request=request,
        )
        return StreamingResponse(
            events, media_type=encoder.get_content_type(), headers=STREAM_HEADERS
        )

    async def capabilities(self) -> dict[str, Any]:
        """``GET path/capabilities``: the agent's AG-UI capabilities document."""
        document = self.agent.capabilities()
        return document.model_dump(mode="json", by_alias=True, exclude_none=True)

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
