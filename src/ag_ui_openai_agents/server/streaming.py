"""``agui_sse_response``: an AG-UI event stream as a safe, keepalive-paced SSE response.

The FastAPI shortcut serves every run through this module, and a hand-written route gets the
same edge by returning :func:`agui_sse_response` of the events it makes (for example
``to_agui``'s): events encoded as ``EventEncoder`` writes them, ``: keepalive`` comments while
the run is silent, a terminal event always (a failure or an unencodable event ends the stream
with RUN_ERROR rather than cutting it), no exception text unless the application opts in, the
run ended cleanly when the server shuts down (open steps finished, then RUN_ERROR
``SERVER_SHUTTING_DOWN``), HTTP 503 for runs that arrive while it stops, and the run's start,
end and failure logged with its thread and run ids (each failure once, here).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from contextlib import aclosing, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    TextMessageEndEvent,
    ToolCallEndEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from ag_ui_openai_agents.edges import failed_run, run_error, run_started
from ag_ui_openai_agents.errors import (
    AGENT_ERROR_CODE,
    ENCODING_ERROR_MESSAGE,
    SHUTDOWN_ERROR_CODE,
    SHUTDOWN_MESSAGE,
)
from ag_ui_openai_agents.safe_errors import (
    ClientError,
    ErrorPolicy,
    safe_errors,
    set_policy_in,
    spec_errors,
)
from ag_ui_openai_agents.server.encoding import encode_event
from ag_ui_openai_agents.server.keepalive import Pause, paced
from ag_ui_openai_agents.server.logs import (
    RunIds,
    context_with_run_ids,
    install_run_ids_filter,
    run_logger,
)
from ag_ui_openai_agents.server.shutdown import server_shutdown

__all__ = [
    "DEFAULT_KEEPALIVE_SECONDS",
    "ENCODING_ERROR_MESSAGE",
    "KEEPALIVE_COMMENT",
    "SHUTDOWN_ERROR_CODE",
    "SHUTDOWN_MESSAGE",
    "agui_sse_response",
    "event_json",
    "event_texts",
    "make_encoder",
    "sse_text_response",
]

logger = logging.getLogger(__name__)

DEFAULT_KEEPALIVE_SECONDS = 15.0
KEEPALIVE_COMMENT = ": keepalive\n\n"
"""An SSE comment: clients skip it; proxies see bytes on an otherwise silent stream."""
SSE_CONTENT_TYPE = "text/event-stream"
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
"""Keep proxies and caches from storing or buffering the stream (``X-Accel-Buffering`` is
nginx's per-response ``proxy_buffering off``)."""

_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})

_OPENS: dict[EventType, tuple[Callable[..., BaseEvent], str]] = {
    EventType.TEXT_MESSAGE_START: (TextMessageEndEvent, "message_id"),
    EventType.TOOL_CALL_START: (ToolCallEndEvent, "tool_call_id"),
    EventType.REASONING_MESSAGE_START: (ReasoningMessageEndEvent, "message_id"),
    EventType.REASONING_START: (ReasoningEndEvent, "message_id"),
    EventType.SUBAGENT_STARTED: (SubagentErrorEvent, "subagent_run_id"),
}
"""Each event that opens something a RUN_FINISHED may not find open, with what closes it and
the field naming it."""
_CLOSES: dict[EventType, EventType] = {
    EventType.TEXT_MESSAGE_END: EventType.TEXT_MESSAGE_START,
    EventType.TOOL_CALL_END: EventType.TOOL_CALL_START,
    EventType.REASONING_MESSAGE_END: EventType.REASONING_MESSAGE_START,
    EventType.REASONING_END: EventType.REASONING_START,
    EventType.SUBAGENT_FINISHED: EventType.SUBAGENT_STARTED,
    EventType.SUBAGENT_ERROR: EventType.SUBAGENT_STARTED,
}
STOPPED_SUBAGENT_MESSAGE = "The run was stopped."
"""``SUBAGENT_ERROR.message`` of a subagent still running when its run was stopped."""


class Halt(Protocol):
    """A way to stop a run the server owns (the stop route, its lifetime, the end of the
    shutdown's grace period): ``requested`` is set to stop it, and ``ending()`` is then its
    terminal event (RUN_FINISHED or RUN_ERROR)."""

    @property
    def requested(self) -> asyncio.Event: ...

    def ending(self) -> BaseEvent: ...


def make_encoder(accept: str) -> EventEncoder:
    """The encoder for a request's ``Accept`` header: the one place encoders are made."""
    return EventEncoder(accept=accept)


def agui_sse_response(
    request: Request,
    run_input: RunAgentInput,
    events: AsyncIterable[BaseEvent],
    *,
    keepalive_seconds: float | None = DEFAULT_KEEPALIVE_SECONDS,
    expose_error_details: bool = False,
) -> Response:
    """Stream ``events``, the AG-UI events of the run ``run_input`` asks for, as SSE.

    Pass an async generator that has not started: it runs only once the response streams (so
    nothing runs for a 503), in a task whose log records carry the run's ids, and it is closed
    (cancelling the SDK run inside it) when the client goes away or the server stops. When it
    raises, the exception is logged once, with the run's ids, and the stream ends with
    RUN_ERROR code ``AGENT_ERROR``: a message the application chose (``to_agui``'s
    ``run_error_message``) is kept, the exception's text is never put in it, unless
    ``expose_error_details`` is True (docs/errors.md: ``to_agui`` inside the generator builds
    its RUN_ERROR that way too). While the run is silent for ``keepalive_seconds`` (None:
    never) a ``: keepalive`` comment is written.
    """
    if keepalive_seconds is not None and not keepalive_seconds > 0:
        raise ValueError("keepalive_seconds must be positive, or None to turn keepalive off")
    return sse_response(
        request,
        run_input,
        events,
        keepalive_seconds=keepalive_seconds,
        expose_error_details=expose_error_details,
        label="AG-UI run",
    )


def sse_response(
    request: Request,
    run_input: RunAgentInput,
    events: AsyncIterable[BaseEvent],
    *,
    keepalive_seconds: float | None,
    expose_error_details: bool,
    label: str,
) -> Response:
    """:func:`agui_sse_response`, its log records naming the run ``label``."""
    if server_shutdown.began:
        detail = {"detail": SHUTDOWN_MESSAGE}
        return JSONResponse(detail, status_code=503, headers={"Retry-After": "1"})
    server_shutdown.watch_signals_once()
    install_run_ids_filter()
    encoder = make_encoder(request.headers.get("accept", ""))
    sse = encoder.get_content_type() == SSE_CONTENT_TYPE
    body = _encoded(
        events,
        run_input,
        # encode_event writes EventEncoder's very SSE lines, cheaper for the streamed deltas.
        encode_event if sse else encoder.encode,
        keepalive_seconds=keepalive_seconds if sse else None,  # comments exist only in SSE
        expose_error_details=expose_error_details,
        label=label,
    )
    return StreamingResponse(body, media_type=encoder.get_content_type(), headers=STREAM_HEADERS)


@dataclass
class _Progress:
    """What a stream has written so far: whether it started and ended, which steps are open,
    the RUN_ERROR it sent, and why it ended early (for the last log record)."""

    run_input: RunAgentInput
    started: bool = False
    terminal: bool = False
    steps: dict[tuple[str | None, str], None] = field(default_factory=dict)
    opened: dict[tuple[EventType, str], BaseEvent] = field(default_factory=dict)
    """Messages, tool calls, reasoning and subagents started and not yet ended."""
    reason: str = "the run's stream ended"
    error: RunErrorEvent | None = None
    """The RUN_ERROR the client was sent, if any."""
    logged: bool = False
    """Whether the failure is logged already (with its traceback)."""

    def saw(self, event: BaseEvent) -> None:
        self.started = True
        kind = event.type
        if kind in _OPENS:
            self.opened[(kind, getattr(event, _OPENS[kind][1]))] = event
        elif kind in _CLOSES:
            self.opened.pop((_CLOSES[kind], getattr(event, _OPENS[_CLOSES[kind]][1])), None)
        elif kind in _TERMINAL:
            self.terminal = True
            if isinstance(event, RunErrorEvent):
                self.error = event
        elif isinstance(event, StepStartedEvent):
            self.steps[(event.subagent_run_id, event.step_name)] = None
        elif isinstance(event, StepFinishedEvent):
            self.steps.pop((event.subagent_run_id, event.step_name), None)

    def ending(self, terminal: BaseEvent) -> list[BaseEvent]:
        """The events that end a stream cut short: open steps finished, then ``terminal``
        (nothing when the run already ended; RUN_STARTED first when nothing was sent). Before
        a RUN_FINISHED (a stopped run), whatever is still open is ended first."""
        if self.terminal:
            return []
        closing = self._closed() if isinstance(terminal, RunFinishedEvent) else []
        closing += [
            StepFinishedEvent(step_name=name, subagent_run_id=subagent)
            for subagent, name in reversed(self.steps)
        ]
        if not self.started:
            closing.insert(0, run_started(self.run_input))
        self.steps.clear()
        self.terminal = True
        if isinstance(terminal, RunErrorEvent):
            self.error = terminal
        return [*closing, terminal]

    def _closed(self) -> list[BaseEvent]:
        """The END of every open message, tool call and reasoning, and a SUBAGENT_ERROR for
        every running subagent, innermost first."""
        closing: list[BaseEvent] = []
        for (kind, ident), opener in reversed(self.opened.items()):
            close, name = _OPENS[kind]
            options: dict[str, Any] = {name: ident}
            if kind is EventType.SUBAGENT_STARTED:
                options["message"] = STOPPED_SUBAGENT_MESSAGE
            else:
                options["subagent_run_id"] = getattr(opener, "subagent_run_id", None)
            closing.append(close(**options))
        self.opened.clear()
        return closing

    def sent_code(self) -> str | None:
        return self.error.code if self.error is not None else None


def _route_policy(expose_error_details: bool) -> ErrorPolicy:
    """The error policy of a route: ``to_agui``'s own (:func:`spec_errors`, which keeps the
    application's ``run_error_message``) when the details are exposed, else
    :func:`safe_errors`."""
    return spec_errors if expose_error_details else safe_errors


def event_json(event: BaseEvent) -> str:
    """The JSON text of ``event``: its SSE line as ``EventEncoder`` writes it, without the
    ``data: `` prefix and the blank line."""
    return encode_event(event)[len("data: ") : -2]


def event_texts(
    events: AsyncIterable[BaseEvent],
    run_input: RunAgentInput,
    *,
    expose_error_details: bool,
    label: str,
    halt: Halt,
) -> AsyncGenerator[str, None]:
    """The JSON text of each event of a run the server owns (no HTTP response in between):
    the same edge as :func:`agui_sse_response`'s (a terminal event always, failures logged
    once with the run's ids), and the run stopped when ``halt`` is requested, ending with
    ``halt.ending()``. The server's shutdown does not cut it: its owner halts it once the
    shutdown's grace period is over."""
    return _encoded(
        events,
        run_input,
        event_json,
        keepalive_seconds=None,
        expose_error_details=expose_error_details,
        label=label,
        halt=halt,
    )


async def _encoded(
    events: AsyncIterable[BaseEvent],
    run_input: RunAgentInput,
    encode: Callable[[BaseEvent], str],
    *,
    keepalive_seconds: float | None,
    expose_error_details: bool,
    label: str,
    halt: Halt | None = None,
) -> AsyncGenerator[str, None]:
    """The encoded events of one run, with keepalive comments while it is silent.

    The run's events are iterated in a task of their own, with the run's ids and the route's
    error policy in force: a failed run's RUN_ERROR is what that policy says, from the start.
    When the server shuts down, the run is cancelled and the stream ends with RUN_ERROR
    (unless the run already ended), always between two whole events; when ``halt`` is
    requested, the same with ``halt.ending()``. The run's start and end are logged at debug
    level, and its failure once (:func:`_log_failure`).
    """
    ids = RunIds(run_input.thread_id, run_input.run_id)
    log = run_logger(logger, ids)
    policy = _route_policy(expose_error_details)
    context = context_with_run_ids(ids.thread_id, ids.run_id)
    set_policy_in(context, policy)
    progress = _Progress(run_input)
    log.debug("%s started", label)
    try:
        # A run the server owns stops by its halt (the server's shutdown drains those runs).
        watch = nullcontext(halt.requested) if halt is not None else server_shutdown.watching()
        with watch as stop:
            items = paced(
                _iterate(events), keepalive_seconds=keepalive_seconds, stop=stop, context=context
            )
            async with aclosing(items):
                chunks = _chunks(items, encode, log, progress, label, halt)
                async for chunk in _ended(chunks, encode, progress, policy):
                    yield chunk
    except Exception:
        progress.reason = "the run failed"
        log.exception("%s failed; the client was sent RUN_ERROR %s", label, progress.sent_code())
        progress.logged = True
    except BaseException:
        progress.reason = "the client went away"
        raise
    finally:
        _log_failure(log, label, progress)
        log.debug("%s ended: %s", label, progress.reason)


def _log_failure(log: logging.LoggerAdapter, label: str, progress: _Progress) -> None:  # type: ignore[type-arg]
    """Log a run that ended with RUN_ERROR, once: a run that raised was logged with its
    traceback already; one that ended with a RUN_ERROR of its own (a refusal, a busy thread)
    or was stopped by the server is logged here, at warning, with the code and message."""
    error = progress.error
    if error is not None and not progress.logged:
        log.warning("%s sent RUN_ERROR %s: %s", label, error.code, error.message)
        progress.logged = True


async def _iterate(events: AsyncIterable[BaseEvent]) -> AsyncGenerator[BaseEvent, None]:
    """``events`` as an async generator that closes them when it is closed."""
    iterator = aiter(events)
    try:
        async for event in iterator:
            yield event
    finally:
        closer = getattr(iterator, "aclose", None)
        if closer is not None:
            await closer()


async def _ended(
    chunks: AsyncIterator[str],
    encode: Callable[[BaseEvent], str],
    progress: _Progress,
    policy: ErrorPolicy,
) -> AsyncIterator[str]:
    """``chunks``; when the run raises before its terminal event, a RUN_ERROR that ``policy``
    chose ends them (and the exception goes on, to be logged)."""
    try:
        async for chunk in chunks:
            yield chunk
    except Exception as exc:
        for event in progress.ending(failed_run(exc, policy=policy)):
            yield encode(event)
        raise


async def _chunks(
    items: AsyncIterator[BaseEvent | Pause],
    encode: Callable[[BaseEvent], str],
    log: logging.LoggerAdapter,  # type: ignore[type-arg]
    progress: _Progress,
    label: str,
    halt: Halt | None = None,
) -> AsyncIterator[str]:
    """What to write for each paced item; ``progress`` says why the stream ended early."""
    async for item in items:
        if item is Pause.KEEPALIVE:
            yield KEEPALIVE_COMMENT
        elif item is Pause.STOPPED:
            stopped: BaseEvent
            if halt is None:
                progress.reason = "the server is shutting down; the run was cancelled"
                stopped = run_error(ClientError(SHUTDOWN_MESSAGE, SHUTDOWN_ERROR_CODE))
            else:
                progress.reason = "the run was stopped"
                stopped = halt.ending()
            for event in progress.ending(stopped):
                yield encode(event)
            return
        elif isinstance(item, BaseEvent):
            try:
                chunk = encode(item)
            except Exception:
                # An event JSON cannot carry (a lone surrogate, an object in the state): end
                # the run with RUN_ERROR rather than cut the stream.
                log.exception("Could not encode %s of %s", item.type, label)
                progress.reason = "an event could not be encoded"
                progress.logged = True
                failed = run_error(ClientError(ENCODING_ERROR_MESSAGE, AGENT_ERROR_CODE))
                for event in progress.ending(failed):
                    yield encode(event)
                return
            progress.saw(item)
            yield chunk


def sse_text_response(chunks: AsyncGenerator[str, None]) -> Response:
    """A response of SSE text already written (whole ``id:``/``data:`` blocks and keepalive
    comments). Starlette stops iterating ``chunks`` when the client goes away."""
    return StreamingResponse(chunks, media_type=SSE_CONTENT_TYPE, headers=STREAM_HEADERS)
