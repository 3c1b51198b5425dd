"""Internal: checking the signatures of approved answers before anything runs.

Only answers that approve need a signature: a rejection or a cancelled entry runs nothing. A
request in which any approval fails its check runs nothing at all and ends with RUN_ERROR. An
approval whose signature is genuine but past its age is asked again: the call stays open and
its interrupt is issued afresh (its arguments are proven to be the ones the server paused on).

The signature binds the pause (thread, call, tool, the model's arguments, time), checked against
the call as the history holds it; edited arguments in the answer are the decision the signature
authorises, so they take no part in the check, and a changed original still fails it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from ag_ui_openai_agents.approvals.decisions import Decision, read_decision
from ag_ui_openai_agents.approvals.history import HistoryCall
from ag_ui_openai_agents.approvals.interrupts import approval_interrupt
from ag_ui_openai_agents.approvals.signing import (
    ApprovalSigner,
    ApprovalSubject,
    SignatureCheck,
    split_interrupt_id,
)
from ag_ui_openai_agents.errors import APPROVAL_DENIED_CODE as APPROVAL_DENIED_CODE
from ag_ui_openai_agents.errors import APPROVAL_REFUSED_CODE as APPROVAL_REFUSED_CODE

logger = logging.getLogger(__name__)

EXPIRED_APPROVAL_MESSAGE = "The earlier approval of this call expired; decide again."
"""``Interrupt.message`` of an interrupt issued afresh because its approval expired."""

_SHOWN_CHARS = 80


class ApprovalRefusedError(Exception):
    """Raised by ``to_agui`` for refused approvals when it is not to emit RUN_ERROR itself."""


Answer = tuple[HistoryCall, "ResumeEntry | None"]


@dataclass(frozen=True)
class ApprovalRefusal:
    """An answer the server refused: its signature did not prove the server paused on the call
    (code ``APPROVAL_REFUSED``), or the decision was malformed (``INVALID_APPROVAL``)."""

    call_id: str
    """The call the refused answer decided."""
    tool_name: str
    """The tool the call names."""
    explanation: str
    """A client-safe phrase saying what failed (no key, no signature, no echoed input)."""
    code: str = APPROVAL_REFUSED_CODE
    """The RUN_ERROR code the request ends with."""

    @property
    def message(self) -> str:
        """A client-safe sentence naming the call and what failed."""
        return (
            f"Approval refused for tool call {_shown(self.call_id)} ({_shown(self.tool_name)}): "
            f"{self.explanation}. Nothing was run."
        )


@dataclass
class CheckedAnswers:
    """The answers to act on, once every approval's signature was checked."""

    answers: list[Answer]
    """Each open call with its entry; an expired approval's entry is dropped (None)."""
    renewed: dict[HistoryCall, Interrupt] = field(default_factory=dict)
    """Fresh interrupts for calls whose genuine approval expired."""
    refusals: list[ApprovalRefusal] = field(default_factory=list)
    """Approvals whose signature failed; when any is listed, nothing may run."""


def approves(entry: ResumeEntry) -> bool:
    """Whether ``entry`` approves its call (edits or not), so that it needs a signature."""
    if entry.status == "cancelled":
        return False
    decision = read_decision(entry.payload)
    return isinstance(decision, Decision) and decision.approved


def check_answers(
    signer: ApprovalSigner,
    thread_id: str,
    answers: Sequence[Answer],
    params_schema: Callable[[HistoryCall], Mapping[str, Any] | None] | None = None,
) -> CheckedAnswers:
    """Check the signature of every approving answer against its call in the history.

    ``params_schema`` gives a call's argument schema, for the interrupts issued afresh.
    """
    checked = CheckedAnswers(answers=[])
    for call, entry in answers:
        if entry is None or not approves(entry):
            checked.answers.append((call, entry))
            continue
        subject = ApprovalSubject(thread_id, call.call_id, call.name, call.arguments)
        verdict = signer.check(subject, _token(entry, call))
        if verdict is SignatureCheck.VALID:
            checked.answers.append((call, entry))
        elif verdict is SignatureCheck.EXPIRED:
            logger.warning(
                "Approval of tool call %r (%s) expired; asking again.", call.call_id, call.name
            )
            checked.renewed[call] = approval_interrupt(
                call.call_id,
                call.name,
                call.arguments,
                signature=signer.sign(subject),
                message=EXPIRED_APPROVAL_MESSAGE,
                params_schema=params_schema(call) if params_schema is not None else None,
            )
            checked.answers.append((call, None))
        else:
            logger.warning(
                "Refused the approval of tool call %r (%s) in thread %r: %s; nothing runs.",
                call.call_id,
                call.name,
                thread_id,
                verdict.value,
            )
            refusal = ApprovalRefusal(call.call_id, call.name, verdict.explanation)
            checked.refusals.append(refusal)
    return checked


def refusal_message(refusals: Sequence[ApprovalRefusal]) -> str:
    """The RUN_ERROR message for a request whose approvals were refused."""
    first = refusals[0].message
    others = len(refusals) - 1
    if others:
        first += f" ({others} more approval{'s' if others > 1 else ''} refused.)"
    return first


def _token(entry: ResumeEntry, call: HistoryCall) -> str | None:
    """The signature token an entry carries for ``call`` (None for the plain call id)."""
    if entry.interrupt_id == call.call_id:
        return None
    return split_interrupt_id(entry.interrupt_id)[1]


def _shown(text: str) -> str:
    """A client-supplied name, shortened for a message."""
    text = text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."
    return repr(text)
