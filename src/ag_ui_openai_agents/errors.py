"""Every ``RUN_ERROR.code`` the package sends, and the client-visible messages that go with them.

A client can switch on ``RunErrorEvent.code``; docs/errors.md lists each code once, with when it
is sent and what to do about it. The modules that send a code re-export its constant under the
name it always had (``ag_ui_openai_agents.threads.THREAD_BUSY_CODE`` and the like).

What a failed run's ``RUN_ERROR`` says (the exception's text, or a message the application
chose, or the generic one) is decided before the event is built: see docs/errors.md.
"""

from __future__ import annotations

__all__ = [
    "AGENT_ERROR_CODE",
    "AGENT_ERROR_MESSAGE",
    "APPROVAL_DENIED_CODE",
    "APPROVAL_REFUSED_CODE",
    "ENCODING_ERROR_MESSAGE",
    "EVENT_LOG_EXPIRED_CODE",
    "EVENT_LOG_EXPIRED_MESSAGE",
    "INVALID_APPROVAL_CODE",
    "LIVE_RUNS_LIMIT_CODE",
    "LIVE_RUNS_LIMIT_MESSAGE",
    "RESUME_LIMIT_CODE",
    "RUN_ID_REUSED_CODE",
    "RUN_ID_REUSED_MESSAGE",
    "RUN_STOPPED_CODE",
    "RUN_STOPPED_MESSAGE",
    "RUN_TIME_LIMIT_CODE",
    "RUN_TIME_LIMIT_MESSAGE",
    "SETUP_ERROR_MESSAGE",
    "SHUTDOWN_ERROR_CODE",
    "SHUTDOWN_MESSAGE",
    "STATE_TOO_LARGE_CODE",
    "THREAD_ANSWER_CODE",
    "THREAD_ANSWER_MESSAGE",
    "THREAD_BUSY_CODE",
    "THREAD_BUSY_MESSAGE",
    "THREAD_FULL_CODE",
    "THREAD_FULL_MESSAGE",
    "THREAD_ID_CODE",
    "THREAD_ID_MESSAGE",
    "THREAD_KEY_CODE",
    "THREAD_KEY_MESSAGE",
    "THREAD_LOST_CODE",
    "THREAD_LOST_MESSAGE",
    "THREAD_STORE_CODE",
    "THREAD_STORE_MESSAGE",
    "UNRESUMABLE_APPROVAL_CODE",
]

# --- a run that failed ---------------------------------------------------------------------

AGENT_ERROR_CODE = "AGENT_ERROR"
"""A run failed (an exception in the model, a tool, the setup, an event that could not be
encoded) and its details are kept from the client: they are in the server's log."""
AGENT_ERROR_MESSAGE = "The agent could not complete this request."
"""``RUN_ERROR.message`` of a failed run, unless the application chose one."""
SETUP_ERROR_MESSAGE = "The agent run could not be started."
"""``RUN_ERROR.message`` of a wrapper run that failed before the SDK started (unless the
application chose one); its code is :data:`AGENT_ERROR_CODE`."""
ENCODING_ERROR_MESSAGE = "The agent produced an event that could not be sent."
"""``RUN_ERROR.message`` of a run that produced an event JSON cannot carry; its code is
:data:`AGENT_ERROR_CODE`."""

SHUTDOWN_ERROR_CODE = "SERVER_SHUTTING_DOWN"
"""The server began to shut down while the run was in flight; the run was cancelled. The
request may be sent again (to another replica)."""
SHUTDOWN_MESSAGE = "The server is shutting down. Please send the request again."
"""``RUN_ERROR.message`` of the runs in flight when the server stops (and the 503's detail)."""

# --- approvals -----------------------------------------------------------------------------

RESUME_LIMIT_CODE = "RESUME_LIMIT"
"""The request held more resume entries or open tool calls than its ``ResumeLimits``; nothing
was run. The message names which limit and the count."""
APPROVAL_REFUSED_CODE = "APPROVAL_REFUSED"
"""An approval's signature did not prove the server paused on the call; nothing was run and
the call is still open. The message names the call and what failed."""
APPROVAL_DENIED_CODE = "APPROVAL_DENIED"
"""The application's ``Approvals(authorize=...)`` hook refused an approved call; nothing of the
request ran and every interrupt is still open, so it can be answered again."""
INVALID_APPROVAL_CODE = "INVALID_APPROVAL"
"""The answer to an approval interrupt was malformed; nothing was run and the call is still
open. The message names the call and what was wrong."""
UNRESUMABLE_APPROVAL_CODE = "UnresumableApprovalError"
"""A tool asked approval where no later request could resume it (inside an agent used as a
tool, or a built-in tool with its own executor). The message names the tool and why."""

# --- threads kept on the server ------------------------------------------------------------

THREAD_BUSY_CODE = "THREAD_BUSY"
"""Another run of the thread held its lock for longer than ``lock_wait``."""
THREAD_BUSY_MESSAGE = "Another run of this conversation is in progress. Try again when it ends."
THREAD_FULL_CODE = "THREAD_FULL"
"""The thread reached its ``max_messages`` or ``max_bytes``, or the request's new messages and
state would take it past them; start a new thread."""
THREAD_FULL_MESSAGE = "This conversation reached its size limit. Start a new one."
THREAD_ANSWER_CODE = "THREAD_ANSWER_TOO_LARGE"
"""An answer to an approval carried edits (or a reason) that would take the thread past its
``max_bytes``; nothing ran and the call is still open, to be answered without them."""
THREAD_ANSWER_MESSAGE = (
    "This answer would make the conversation larger than its size limit. "
    "Answer again without edits or a long reason."
)
THREAD_ID_CODE = "THREAD_ID_TOO_LONG"
"""The request's ``threadId`` is longer than ``MAX_THREAD_ID_LENGTH``; it was not stored, and
not repeated back (the ``RUN_ERROR`` is the only event)."""
THREAD_ID_MESSAGE = "This conversation id is too long."
THREAD_LOST_CODE = "THREAD_LOCK_LOST"
"""The run's lock expired and another run took the thread; nothing of the run was kept."""
THREAD_LOST_MESSAGE = "This run took too long and its result was not kept. Send it again."
THREAD_KEY_CODE = "THREAD_FORBIDDEN"
"""The application's ``thread_key`` hook raised: the request may not open the thread."""
THREAD_KEY_MESSAGE = "This conversation cannot be opened."
THREAD_STORE_CODE = "THREAD_STORE_ERROR"
"""The thread store failed to load or save the thread (its details are in the log)."""
THREAD_STORE_MESSAGE = "The conversation could not be loaded or saved."

# --- runs that belong to the server (detached runs) ----------------------------------------

RUN_ID_REUSED_CODE = "RUN_ID_REUSED"
"""A run id of the thread was used before for another request body: (thread, run id) names
one request. Send a new request with a new run id."""
RUN_ID_REUSED_MESSAGE = "This run id was already used for another request. Use a new run id."
EVENT_LOG_EXPIRED_CODE = "EVENT_LOG_EXPIRED"
"""A reattach's ``Last-Event-ID`` is older than what the run's event log still holds (the run
is longer than the log keeps, or it ended longer ago than the log is kept). Send the request
again without ``Last-Event-ID``: it gets the thread as stored."""
EVENT_LOG_EXPIRED_MESSAGE = "The rest of this run is no longer available. Reload the conversation."
RUN_STOPPED_CODE = "RUN_STOPPED"
"""The run was stopped (the stop route, or a new turn that superseded it) and its client did
not say ``protocolVersion`` "1.0" (a 1.0 client gets RUN_FINISHED with the ``cancelled``
outcome instead). What the run said so far is kept in the thread."""
RUN_STOPPED_MESSAGE = "The run was stopped."
RUN_TIME_LIMIT_CODE = "RUN_TIME_LIMIT"
"""The run went on longer than ``ThreadSettings.max_run_seconds`` and was stopped; what it said
so far is kept in the thread."""
RUN_TIME_LIMIT_MESSAGE = "This run took too long and was stopped. What it said so far is kept."
LIVE_RUNS_LIMIT_CODE = "LIVE_RUNS_LIMIT"
"""Too many runs are live on this thread (``ThreadSettings.max_live_runs_per_key``) or in this
server process (``max_live_runs``); nothing ran. Try again when one ends."""
LIVE_RUNS_LIMIT_MESSAGE = "Too many runs are in progress. Try again when one ends."

# --- the shared state ----------------------------------------------------------------------

STATE_TOO_LARGE_CODE = "STATE_TOO_LARGE"
"""The request's shared state, or a change a tool made to it, is larger as JSON than
``StateUpdates(max_bytes=...)`` allows (1 MiB by default); the message names both sizes."""
