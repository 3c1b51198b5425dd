"""The stable import path ``ag_ui_openai_agents.approval``.

The code lives in :mod:`ag_ui_openai_agents.approvals.resume`.
"""

from ag_ui_openai_agents.approvals.resume import (
    ABANDONED_RESULT,
    AMBIGUOUS_RESULT,
    APPROVAL_REFUSED_CODE,
    APPROVAL_RESPONSE_SCHEMA,
    CANCELLED_RESULT,
    DEFAULT_APPROVAL_MAX_AGE,
    EXPIRED_APPROVAL_MESSAGE,
    TOOL_APPROVAL_REASON,
    ApprovalRefusal,
    ApprovalRefusedError,
    ApprovalSecret,
    ApprovalSigner,
    ResumedToolCalls,
    SignatureCheck,
    UnresumableApprovalError,
    approval_interrupt,
    handoff_targets,
    interrupts_from_result,
    resume_tool_calls,
)
from ag_ui_openai_agents.approvals.signing import APPROVAL_SECRET_ENV

__all__ = [
    "ABANDONED_RESULT",
    "AMBIGUOUS_RESULT",
    "APPROVAL_REFUSED_CODE",
    "APPROVAL_RESPONSE_SCHEMA",
    "APPROVAL_SECRET_ENV",
    "CANCELLED_RESULT",
    "DEFAULT_APPROVAL_MAX_AGE",
    "EXPIRED_APPROVAL_MESSAGE",
    "TOOL_APPROVAL_REASON",
    "ApprovalRefusal",
    "ApprovalRefusedError",
    "ApprovalSecret",
    "ApprovalSigner",
    "ResumedToolCalls",
    "SignatureCheck",
    "UnresumableApprovalError",
    "approval_interrupt",
    "handoff_targets",
    "interrupts_from_result",
    "resume_tool_calls",
]
