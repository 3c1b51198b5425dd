"""Internal: keeping exception text out of what a client is sent.

``to_agui`` follows the spec: without ``run_error_message``, a failed run's RUN_ERROR carries
the exception's own text and class name, then the exception is raised again. That text can
hold anything (a path, a query, an upstream error quoting an API key), so the wrapper and the
HTTP helpers pass every stream through :func:`without_error_details`: the RUN_ERROR that ends a
failed run keeps a message the application chose, loses one that is the exception's text, and
gets the code :data:`AGENT_ERROR_CODE`. The exception itself still reaches the caller (and so
the server's log). The package's own errors whose text it wrote for the client keep it:
:class:`UnresumableApprovalError` (which approval cannot be resumed, and why) and
:class:`ResumeLimitError` (which limit a request passed, code ``RESUME_LIMIT``), raised where
the translator recipe calls ``resume_tool_calls`` inside the stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from ag_ui.core import BaseEvent, RunErrorEvent

from ag_ui_openai_agents.approvals.interrupts import UnresumableApprovalError
from ag_ui_openai_agents.approvals.limits import ResumeLimitError
from ag_ui_openai_agents.errors import AGENT_ERROR_CODE, AGENT_ERROR_MESSAGE

__all__ = [
    "AGENT_ERROR_CODE",
    "AGENT_ERROR_MESSAGE",
    "exception_text",
    "safe_run_error",
    "without_error_details",
]


def exception_text(exc: BaseException) -> str:
    """The text ``to_agui`` puts in RUN_ERROR.message for ``exc`` by default."""
    return str(exc) or type(exc).__name__


def safe_run_error(event: RunErrorEvent | None, exc: BaseException) -> RunErrorEvent:
    """The RUN_ERROR a client may see for a run that failed with ``exc``.

    ``event`` is the RUN_ERROR the run sent (None: it sent none). Its message stays when the
    application chose it; the exception's own text becomes :data:`AGENT_ERROR_MESSAGE`.
    """
    if isinstance(exc, ResumeLimitError):  # its text names the limit and the count only
        return RunErrorEvent(message=str(exc), code=exc.code)
    if event is not None and isinstance(exc, UnresumableApprovalError):
        return event
    message = AGENT_ERROR_MESSAGE
    if event is not None and event.message != exception_text(exc) and event.message.strip():
        message = event.message
    usage = event.usage if event is not None else None
    return RunErrorEvent(message=message, code=AGENT_ERROR_CODE, usage=usage)


async def without_error_details(
    events: AsyncIterator[BaseEvent],
) -> AsyncGenerator[BaseEvent, None]:
    """``events``, with the RUN_ERROR of a failed run made safe by :func:`safe_run_error`.

    A failed run is one whose stream raises: its RUN_ERROR is the last event before the
    exception, so each RUN_ERROR is held until the stream says how it goes on. One that ends
    the stream normally (a refused approval, a limit) is passed on unchanged. Closing this
    generator closes ``events``.
    """
    held: RunErrorEvent | None = None
    try:
        async for event in events:
            if held is not None:
                yield held
                held = None
            if isinstance(event, RunErrorEvent):
                held = event
            else:
                yield event
    except Exception as exc:
        if held is not None:
            yield safe_run_error(held, exc)
        raise
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            await closer()
    if held is not None:
        yield held
