"""Connect an OpenAI Agents SDK agent to any AG-UI client.

``AGUITranslator.to_openai`` turns an AG-UI ``RunAgentInput`` into SDK input;
``AGUITranslator.to_agui`` turns the SDK's stream into ordered AG-UI 1.0 events.
``OpenAIAgentsAgent`` and ``add_openai_agents_fastapi_endpoint`` package the standard flow;
``FastEventEncoder`` writes the same SSE lines as ``ag_ui``'s ``EventEncoder``, faster.
"""

from .agent import OpenAIAgentsAgent
from .approval import (
    ApprovalSigner,
    ResumedToolCalls,
    UnresumableApprovalError,
    resume_tool_calls,
)
from .encoder import FastEventEncoder
from .endpoint import add_openai_agents_fastapi_endpoint
from .engine import OpenAIToAGUITranslator
from .inbound import AGUIToOpenAITranslator, TranslatedInput
from .scope import RunScope, use_run_scope
from .state import SharedState, shared_state, use_shared_state
from .subagents import SubagentSink, subagent_events
from .translator import AGUITranslator

__version__ = "0.1.0"

__all__ = [
    "AGUIToOpenAITranslator",
    "AGUITranslator",
    "ApprovalSigner",
    "FastEventEncoder",
    "OpenAIAgentsAgent",
    "OpenAIToAGUITranslator",
    "ResumedToolCalls",
    "RunScope",
    "SharedState",
    "SubagentSink",
    "TranslatedInput",
    "UnresumableApprovalError",
    "__version__",
    "add_openai_agents_fastapi_endpoint",
    "resume_tool_calls",
    "shared_state",
    "subagent_events",
    "use_run_scope",
    "use_shared_state",
]
