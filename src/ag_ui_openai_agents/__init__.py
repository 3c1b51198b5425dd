"""Connect an OpenAI Agents SDK agent to any AG-UI client.

``AGUITranslator.to_openai`` turns an AG-UI ``RunAgentInput`` into SDK input;
``AGUITranslator.to_agui`` turns the SDK's stream into ordered AG-UI 1.0 events.
``OpenAIAgentsAgent`` and ``add_openai_agents_fastapi_endpoint`` package the standard flow.
The engine classes behind the translator, to subclass, are in :mod:`ag_ui_openai_agents.engine`.

``add_openai_agents_fastapi_endpoint`` needs the ``fastapi`` extra: it is imported on first use,
so the package imports without FastAPI, and its use without the extra raises an
``ImportError`` that says what to install.
"""

from typing import TYPE_CHECKING

from ag_ui_openai_agents.agent import OpenAIAgentsAgent
from ag_ui_openai_agents.approvals.interrupts import UnresumableApprovalError
from ag_ui_openai_agents.approvals.resume import ResumedToolCalls, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import ApprovalSigner
from ag_ui_openai_agents.inbound.messages import TranslatedInput
from ag_ui_openai_agents.state import PredictState, SharedState, shared_state, use_shared_state
from ag_ui_openai_agents.subagents import subagent_events
from ag_ui_openai_agents.translator import AGUITranslator

if TYPE_CHECKING:
    from ag_ui_openai_agents.server.endpoint import add_openai_agents_fastapi_endpoint
else:  # imported on first use: it needs an extra
    from ag_ui_openai_agents import _extras

    __getattr__ = _extras.root_getattr
    __dir__ = _extras.root_dir

__version__ = "0.1.0"

__all__ = [
    "AGUITranslator",
    "ApprovalSigner",
    "OpenAIAgentsAgent",
    "PredictState",
    "ResumedToolCalls",
    "SharedState",
    "TranslatedInput",
    "UnresumableApprovalError",
    "__version__",
    "add_openai_agents_fastapi_endpoint",
    "resume_tool_calls",
    "shared_state",
    "subagent_events",
    "use_shared_state",
]
