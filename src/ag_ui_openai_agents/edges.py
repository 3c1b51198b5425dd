"""Internal: a run's edges for the client, RUN_STARTED and RUN_ERROR, built here and only here.

The translator, the wrapper, the runs of threads kept on the server and the HTTP edge each
open or end runs; they all call :func:`run_started`, :func:`run_error` (an ending whose message
and code are fixed: a refusal, a busy thread, a shutdown) and :func:`failed_run` (a run that
failed with an exception: the error policy in force, :mod:`~ag_ui_openai_agents.safe_errors`,
says what the client is told before the event is built). ``tests/test_edges.py`` holds the
package to this.
"""

from __future__ import annotations

from ag_ui.core import PROTOCOL_VERSION, RunAgentInput, RunErrorEvent, RunStartedEvent, TokenUsage

from ag_ui_openai_agents.safe_errors import ClientError, ErrorPolicy, policy_in_force

__all__ = ["failed_run", "run_error", "run_started"]


def run_started(run_input: RunAgentInput) -> RunStartedEvent:
    """The RUN_STARTED of the run ``run_input`` asks for."""
    return RunStartedEvent(
        thread_id=run_input.thread_id,
        run_id=run_input.run_id,
        parent_run_id=run_input.parent_run_id,
        protocol_version=PROTOCOL_VERSION,
    )


def run_error(error: ClientError, *, usage: list[TokenUsage] | None = None) -> RunErrorEvent:
    """The RUN_ERROR telling the client ``error`` (with the run's ``usage`` so far, if any)."""
    return RunErrorEvent(message=error.message, code=error.code, usage=usage)


def failed_run(
    exc: Exception,
    chosen: str | None = None,
    *,
    policy: ErrorPolicy | None = None,
    usage: list[TokenUsage] | None = None,
) -> RunErrorEvent:
    """The RUN_ERROR of a run that failed with ``exc``: what ``policy`` (by default the one in
    force) tells the client, ``chosen`` being the application's ``run_error_message``."""
    told = (policy or policy_in_force())(exc, chosen)
    return run_error(told, usage=usage)
