"""Internal: the error policy, which decides what a client is told about a failed run.

An :data:`ErrorPolicy` takes the exception and the message the application chose
(``run_error_message``; None when it chose none) and returns the :class:`ClientError`, message
and code, that the failed run's RUN_ERROR carries. It is asked before the event is built
(:func:`ag_ui_openai_agents.edges.failed_run`), so exception text is never put in an event to
be taken out again. The policies (docs/errors.md says the same for users):

- :func:`spec_errors`, ``to_agui``'s default, as the spec has it: the application's message
  (code None), else the exception's text and class name;
- :func:`safe_errors`, the wrapper's and ``agui_sse_response``'s: the package's own errors
  written for the client (:class:`ResumeLimitError`, :class:`UnresumableApprovalError`) keep
  their text and code, and so does an exception a run already reported with a code of its own
  (:func:`told_client`: the thread errors); any other exception becomes the application's
  message, or :data:`AGENT_ERROR_MESSAGE`, with the code :data:`AGENT_ERROR_CODE`;
- :func:`detailed_errors`, ``expose_error_details=True`` (development): the exception's text
  and class name, always.

``to_agui`` takes no policy argument: it asks the one in force (:func:`policy_in_force`). The
code that iterates its events sets it: :func:`under_policy` around each step (the wrapper), or
:func:`set_policy_in` the context of the task that iterates them (``agui_sse_response``). An
async generator's body runs in the context of whatever iterates it, so the policy set there is
the one in force when ``to_agui`` builds its RUN_ERROR; elsewhere it is :func:`spec_errors`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import NamedTuple, TypeAlias

from ag_ui.core import BaseEvent

from ag_ui_openai_agents.approvals.interrupts import UnresumableApprovalError
from ag_ui_openai_agents.approvals.limits import ResumeLimitError
from ag_ui_openai_agents.errors import AGENT_ERROR_CODE, AGENT_ERROR_MESSAGE

__all__ = ["AGENT_ERROR_CODE", "AGENT_ERROR_MESSAGE"]


class ClientError(NamedTuple):
    """What a client is told about a run that ended in error."""

    message: str
    """``RUN_ERROR.message``."""
    code: str | None
    """``RUN_ERROR.code`` (one of :mod:`ag_ui_openai_agents.errors`, a class name, or None)."""


ErrorPolicy: TypeAlias = Callable[[Exception, str | None], ClientError]
"""``policy(exc, chosen) -> ClientError``: what the client is told about a run that failed with
``exc``, ``chosen`` being the application's ``run_error_message`` (None: it chose none)."""


def exception_text(exc: BaseException) -> str:
    """The exception's own text (its class name when it has none)."""
    return str(exc) or type(exc).__name__


def spec_errors(exc: Exception, chosen: str | None) -> ClientError:
    """``to_agui``'s default: the application's message with no code, else the exception's
    text and class name."""
    if chosen is None:
        return ClientError(exception_text(exc), type(exc).__name__)
    return ClientError(chosen or exception_text(exc), None)


def detailed_errors(exc: Exception, chosen: str | None) -> ClientError:
    """``expose_error_details=True``: the exception's text and class name."""
    return ClientError(exception_text(exc), type(exc).__name__)


_TOLD = "_ag_ui_openai_agents_client_error"
"""The attribute :func:`told_client` leaves on an exception."""


def told_client(exc: BaseException, error: ClientError) -> None:
    """Record on ``exc`` that its run's client was told ``error`` (a documented code, such as
    ``THREAD_STORE_ERROR``), before ``exc`` is raised again for the server's log: an edge that
    builds a RUN_ERROR from ``exc`` (the route, when the run's own RUN_ERROR did not reach it)
    then says the same under :func:`safe_errors`."""
    with contextlib.suppress(AttributeError, TypeError):  # a type that takes no attribute
        setattr(exc, _TOLD, error)


def client_error_of(exc: BaseException) -> ClientError | None:
    """What :func:`told_client` recorded on ``exc``, if anything."""
    told = getattr(exc, _TOLD, None)
    return told if isinstance(told, ClientError) else None


def safe_errors(exc: Exception, chosen: str | None) -> ClientError:
    """No exception text, except the package's own errors written for the client (and what a
    run already told its client about ``exc``)."""
    if isinstance(exc, (ResumeLimitError, UnresumableApprovalError)):
        return ClientError(exception_text(exc), exc.code)
    told = client_error_of(exc)
    if told is not None:
        return told
    message = chosen if chosen is not None and chosen.strip() else AGENT_ERROR_MESSAGE
    return ClientError(message, AGENT_ERROR_CODE)


def wrapper_policy(expose_error_details: bool) -> ErrorPolicy:
    """The policy of ``OpenAIAgentsAgent``: :func:`detailed_errors` when it exposes the
    details, :func:`safe_errors` otherwise."""
    return detailed_errors if expose_error_details else safe_errors


_in_force: contextvars.ContextVar[ErrorPolicy | None] = contextvars.ContextVar(
    "ag_ui_openai_agents_error_policy", default=None
)


def policy_in_force() -> ErrorPolicy:
    """The policy set for the calling code, else :func:`spec_errors`."""
    return _in_force.get() or spec_errors


def set_policy_in(context: contextvars.Context, policy: ErrorPolicy) -> None:
    """Put ``policy`` in force in ``context`` (for the task a run's events are iterated in)."""
    context.run(_in_force.set, policy)


async def under_policy(
    events: AsyncGenerator[BaseEvent, None], policy: ErrorPolicy
) -> AsyncGenerator[BaseEvent, None]:
    """``events``, each step of which runs with ``policy`` in force (and only that step: the
    caller's context is as it was between steps). Closing this generator closes ``events``."""
    async with aclosing(events):
        while True:
            token = _in_force.set(policy)
            try:
                event = await anext(events)
            except StopAsyncIteration:
                return
            finally:
                _in_force.reset(token)
            yield event
