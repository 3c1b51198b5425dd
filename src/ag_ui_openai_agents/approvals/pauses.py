"""Internal: what the server provably paused on, in one resume request.

A pause is proven when a thread store recorded it (the interrupts the thread was left with,
given to ``resume_tool_calls`` as ``paused``) or when the answer to it carries a genuine
signature of this server (valid or expired: either way the server signed that very call). What
is proven is the server's own doing:

* it is exempt from :class:`ResumeLimits`, which guard what a client sends: a model turn that
  paused on more calls than the limits can still be approved, rejected or left waiting while
  the person writes, and so is never a dead thread;
* a recorded call left undecided is asked again with the interrupt the store holds, its
  signature included, so an approval sent after a reload still proves its pause (once that
  signature has expired, with a fresh one, as an expired approval is).

The limits count only the rest. Checking a signature costs one HMAC; a request within its
limits checks none here, and one over them stops at the first unproven call past the limit, so
a client's forged tokens cost at most ``max_open_calls + 1`` checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from ag_ui_openai_agents.approvals.history import HistoryCall, ResumeIndex
from ag_ui_openai_agents.approvals.interrupts import TOOL_APPROVAL_REASON, approval_interrupt
from ag_ui_openai_agents.approvals.limits import ResumeLimitError, ResumeLimits
from ag_ui_openai_agents.approvals.signing import (
    ApprovalSigner,
    ApprovalSubject,
    SignatureCheck,
    split_interrupt_id,
)
from ag_ui_openai_agents.approvals.verify import EXPIRED_APPROVAL_MESSAGE

_GENUINE = frozenset({SignatureCheck.VALID, SignatureCheck.EXPIRED})


class Pauses:
    """The approval interrupts a thread store recorded for the thread, by call id, and the
    signer that signs this request's pauses (None: unsigned) for the thread ``binding``."""

    def __init__(
        self, recorded: Sequence[Interrupt], signer: ApprovalSigner | None, binding: str
    ) -> None:
        self._recorded: dict[str, Interrupt] = {}
        for interrupt in recorded:
            if interrupt.reason == TOOL_APPROVAL_REASON:
                call_id = interrupt.tool_call_id or split_interrupt_id(interrupt.id)[0]
                self._recorded[call_id] = interrupt
        self.signer = signer
        self.binding = binding

    def recorded(self, call: HistoryCall) -> bool:
        """Whether the store recorded a pause on ``call``."""
        return call.call_id in self._recorded

    def signed(self, call: HistoryCall, entry: ResumeEntry | None) -> bool:
        """Whether ``entry`` carries a genuine signature of this server for ``call``."""
        if self.signer is None or entry is None:
            return False
        token = split_interrupt_id(entry.interrupt_id)[1]
        if token is None:
            return False
        subject = ApprovalSubject(self.binding, call.call_id, call.name, call.arguments)
        return self.signer.check(subject, token) in _GENUINE

    def asked_again(
        self, call: HistoryCall, params_schema: Mapping[str, Any] | None
    ) -> Interrupt | None:
        """The interrupt that asks again about ``call``, undecided: the recorded one as it was
        while its signature holds (None when the store recorded no pause on it). A recorded
        pause whose signature no longer holds (expired, signed with a retired key, or recorded
        before signing was turned on) is signed afresh: the store proves it."""
        interrupt = self._recorded.get(call.call_id)
        if interrupt is None or self.signer is None:
            return interrupt
        subject = ApprovalSubject(self.binding, call.call_id, call.name, call.arguments)
        verdict = self.signer.check(subject, split_interrupt_id(interrupt.id)[1])
        if verdict is SignatureCheck.VALID:
            return interrupt
        return approval_interrupt(
            call.call_id,
            call.name,
            call.arguments,
            signature=self.signer.sign(subject),
            message=EXPIRED_APPROVAL_MESSAGE if verdict is SignatureCheck.EXPIRED else None,
            params_schema=params_schema,
        )

    def check_limits(
        self,
        limits: ResumeLimits,
        calls: Sequence[HistoryCall],
        entries: Sequence[ResumeEntry],
        index: ResumeIndex,
    ) -> None:
        """Raise :class:`ResumeLimitError` when what the request holds beyond the proven
        pauses is over ``limits``: open calls the server did not provably pause on, and
        entries other than the one answer to each proven call. (The error's message gives the
        request's totals.)"""
        if len(entries) <= limits.max_entries and len(calls) <= limits.max_open_calls:
            return
        if not self._recorded and self.signer is None:  # nothing can be proven
            limits.check_entries(len(entries))
            limits.check_open_calls(len(calls))
        answers = [(call, index.entry_for(call)) for call in calls]
        # At most one entry per call is proven: check the entries' count before any signature.
        self._check_entries(limits, entries, sum(e is not None for _, e in answers))
        unproven = 0
        proven_answers = 0
        for call, entry in answers:
            if self.recorded(call) or self.signed(call, entry):
                proven_answers += entry is not None
                continue
            unproven += 1
            if unproven > limits.max_open_calls:
                raise ResumeLimitError("open tool calls", len(calls), limits.max_open_calls)
        self._check_entries(limits, entries, proven_answers)

    @staticmethod
    def _check_entries(limits: ResumeLimits, entries: Sequence[ResumeEntry], proven: int) -> None:
        if len(entries) - proven > limits.max_entries:
            raise ResumeLimitError("resume entries", len(entries), limits.max_entries)
