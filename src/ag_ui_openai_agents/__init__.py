"""Connect an OpenAI Agents SDK agent to any AG-UI client.

``AGUITranslator.to_openai`` turns an AG-UI ``RunAgentInput`` into SDK input;
``AGUITranslator.to_agui`` turns the SDK's stream into ordered AG-UI 1.0 events.
``OpenAIAgentsAgent`` and ``add_openai_agents_fastapi_endpoint`` package the standard flow.
Every name a program imports is here; the engine classes behind the translator, to subclass,
are in :mod:`ag_ui_openai_agents.engine`.

The names that need an extra are imported on first use, so the package imports without them:
``add_openai_agents_fastapi_endpoint``, ``RequestLimitMiddleware``, ``agui_sse_response`` and
``SHUTDOWN_ERROR_CODE`` need ``[fastapi]``; ``A2UI``, ``A2UIRequest`` and ``FixedSurface`` need
``[a2ui]``; ``RedisThreadStore`` needs ``[redis]`` when it is made. Without the extra, the name's
use raises an ``ImportError`` that says what to install.
"""

from typing import TYPE_CHECKING

from ag_ui_openai_agents.agent import OpenAIAgentsAgent
from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.interrupts import UnresumableApprovalError
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE, ResumeLimitError, ResumeLimits
from ag_ui_openai_agents.approvals.options import ApprovalRequest, Approvals
from ag_ui_openai_agents.approvals.resume import ResumedToolCalls, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import ApprovalSigner
from ag_ui_openai_agents.approvals.verify import APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.inbound.messages import TranslatedInput
from ag_ui_openai_agents.options import StateUpdates, Subagents
from ag_ui_openai_agents.safe_errors import AGENT_ERROR_CODE
from ag_ui_openai_agents.server.logs import RunIdsFilter, run_ids
from ag_ui_openai_agents.server.shutdown import server_shutdown
from ag_ui_openai_agents.state import (
    STATE_TOO_LARGE_CODE,
    PredictState,
    SharedState,
    StateTooLargeError,
    shared_state,
    use_shared_state,
)
from ag_ui_openai_agents.subagents import subagent_events
from ag_ui_openai_agents.threads import (
    THREAD_BUSY_CODE,
    THREAD_FULL_CODE,
    THREAD_KEY_CODE,
    THREAD_LOST_CODE,
    THREAD_STORE_CODE,
    RedisThreadStore,
    SQLiteThreadStore,
    ThreadSettings,
    ThreadStore,
    store_key,
)
from ag_ui_openai_agents.threads.store import hold_lock
from ag_ui_openai_agents.translator import AGUITranslator

if TYPE_CHECKING:
    from ag_ui_openai_agents.a2ui import A2UI, A2UIRequest, FixedSurface
    from ag_ui_openai_agents.server.endpoint import add_openai_agents_fastapi_endpoint
    from ag_ui_openai_agents.server.limits import RequestLimitMiddleware
    from ag_ui_openai_agents.server.streaming import SHUTDOWN_ERROR_CODE, agui_sse_response
else:  # imported on first use: they need an extra
    from ag_ui_openai_agents import _extras

    __getattr__ = _extras.root_getattr
    __dir__ = _extras.root_dir

__version__ = "0.2.0"

__all__ = [
    "A2UI",
    "AGENT_ERROR_CODE",
    "APPROVAL_REFUSED_CODE",
    "INVALID_APPROVAL_CODE",
    "RESUME_LIMIT_CODE",
    "SHUTDOWN_ERROR_CODE",
    "STATE_TOO_LARGE_CODE",
    "THREAD_BUSY_CODE",
    "THREAD_FULL_CODE",
    "THREAD_KEY_CODE",
    "THREAD_LOST_CODE",
    "THREAD_STORE_CODE",
    "A2UIRequest",
    "AGUITranslator",
    "ApprovalRequest",
    "ApprovalSigner",
    "Approvals",
    "FixedSurface",
    "OpenAIAgentsAgent",
    "PredictState",
    "RedisThreadStore",
    "RequestLimitMiddleware",
    "ResumeLimitError",
    "ResumeLimits",
    "ResumedToolCalls",
    "RunIdsFilter",
    "SQLiteThreadStore",
    "SharedState",
    "StateTooLargeError",
    "StateUpdates",
    "Subagents",
    "ThreadSettings",
    "ThreadStore",
    "TranslatedInput",
    "UnresumableApprovalError",
    "__version__",
    "add_openai_agents_fastapi_endpoint",
    "agui_sse_response",
    "hold_lock",
    "resume_tool_calls",
    "run_ids",
    "server_shutdown",
    "shared_state",
    "store_key",
    "subagent_events",
    "use_shared_state",
]
