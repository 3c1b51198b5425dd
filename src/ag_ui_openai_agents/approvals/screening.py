"""Internal: what a request's answers must pass before any approved call runs.

Three checks, in order, each over every answer of the request: the signatures
(:mod:`.verify`), the decisions themselves (malformed answers, and edits of a tool the settings
do not make editable: ``INVALID_APPROVAL``), then the application's ``authorize`` hook
(``APPROVAL_DENIED``). One refusal anywhere runs nothing of the request.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry, RunAgentInput

from ag_ui_openai_agents.approvals.decisions import (
    EDITED_ARGS_KEY,
    INVALID_APPROVAL_CODE,
    Decision,
    InvalidDecision,
    check_edits,
    read_decision,
)
from ag_ui_openai_agents.approvals.history import HistoryCall
from ag_ui_openai_agents.approvals.options import ApprovalRequest, Approvals
from ag_ui_openai_agents.approvals.tools import Catalog, params_schema
from ag_ui_openai_agents.approvals.verify import APPROVAL_DENIED_CODE, ApprovalRefusal

logger = logging.getLogger(__name__)

Answers = Sequence[tuple[HistoryCall, "ResumeEntry | None"]]


class Offered:
    """What an interrupt offers for a call: ``editedArgs`` typed by the tool's schema, for the
    tools the settings make editable."""

    def __init__(self, catalog: Catalog, approvals: Approvals) -> None:
        self.catalog = catalog
        self.approvals = approvals

    def params_schema(self, name: str) -> dict[str, Any] | None:
        """The argument schema the interrupt of a call of ``name`` offers edits with."""
        if not self.approvals.may_edit(name):
            return None
        return params_schema(self.catalog.candidates(name))

    def schema_of(self, call: HistoryCall) -> dict[str, Any] | None:
        return self.params_schema(call.name)


def invalid_decisions(
    answers: Answers,
    catalog: Catalog,
    approvals: Approvals,
) -> list[ApprovalRefusal]:
    """The malformed answers among ``answers``, checked before anything runs.

    Edits of a tool the settings do not make editable are malformed. Others are checked against
    the argument schema of the one tool the call may mean; when the call is ambiguous or its
    tool unknown nothing runs anyway (AMBIGUOUS, ABANDONED).
    """
    refusals: list[ApprovalRefusal] = []
    for call, entry in answers:
        if entry is None or entry.status == "cancelled":
            continue
        problem = _problem(read_decision(entry.payload), call, catalog, approvals)
        if problem is not None:
            logger.warning(
                "Invalid answer to the approval of tool call %r: %s", call.call_id[:80], problem
            )
            explanation = f"the answer is invalid: {problem}; answer the interrupt again"
            refusals.append(
                ApprovalRefusal(call.call_id, call.name, explanation, INVALID_APPROVAL_CODE)
            )
    return refusals


def _problem(
    decision: Decision | InvalidDecision, call: HistoryCall, catalog: Catalog, approvals: Approvals
) -> str | None:
    """What is wrong with one decision (None: nothing)."""
    if isinstance(decision, InvalidDecision):
        return decision.problem
    if decision.edited_args is None:
        return None
    if not approvals.may_edit(call.name):
        return f"{EDITED_ARGS_KEY!r} is not accepted: this tool's arguments cannot be edited"
    candidates = catalog.candidates(call.name)
    if len(candidates) == 1:
        return check_edits(decision.edited_args, candidates[0].tool.params_json_schema)
    return None


async def denied(
    answers: Answers,
    renewed: Mapping[HistoryCall, Interrupt],
    catalog: Catalog,
    approvals: Approvals,
    run_input: RunAgentInput,
    request: Any,
) -> list[ApprovalRefusal]:
    """The approved calls the application's ``authorize`` hook refuses, asked before any runs.

    Every call that an approval would run is asked about (an expired approval, asked again,
    runs nothing and is not); one refusal is enough to run nothing.
    """
    if approvals.authorize is None:
        return []
    refusals: list[ApprovalRefusal] = []
    for call, entry in answers:
        if entry is None or entry.status == "cancelled" or call in renewed:
            continue
        decision = read_decision(entry.payload)
        if not isinstance(decision, Decision) or not decision.approved:
            continue
        if len(catalog.candidates(call.name)) != 1:
            continue  # AMBIGUOUS or ABANDONED: nothing would run
        arguments = decision.arguments(call.arguments)
        asked = ApprovalRequest(
            tool_name=call.name,
            arguments=arguments,
            edited=arguments != call.arguments,
            run_input=run_input,
            request=request,
        )
        if not await approvals.authorized(asked):
            logger.warning("Approval of tool call %r refused by authorize", call.call_id[:80])
            refusals.append(ApprovalRefusal(call.call_id, call.name, _DENIED, APPROVAL_DENIED_CODE))
    return refusals


_DENIED = "the server did not authorise this approval"
