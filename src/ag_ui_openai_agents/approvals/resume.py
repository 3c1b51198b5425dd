"""Backend tool approval mapped onto AG-UI interrupts, resumed from the conversation alone.

A run that pauses on ``needs_approval`` tools ends with one AG-UI interrupt per paused call
(:func:`interrupts_from_result`). Nothing is kept on the server: the next request carries the
history, in which the paused calls have no result yet, plus resume entries answering the
interrupts. :func:`resume_tool_calls` answers those open calls before the model runs: it runs the
approved tools itself (with the arguments a person edited, when the answer carries
``editedArgs``), gives rejected ones the person's reason or the SDK's rejection text, and reports
what is still undecided so the caller can end the run with the same interrupts again.

With an :class:`ApprovalSigner`, interrupts are signed (:mod:`.signing`) and an approval runs
only when its signature proves that the server paused on that very call in that thread. The
signer is given once, here; the result carries it to ``to_agui``, which signs the run's pauses.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    Interrupt,
    ResumeEntry,
    RunAgentInput,
    ToolCallResultEvent,
    ToolMessage,
)
from agents import Agent, RunConfig, RunContextWrapper, ToolErrorFormatterArgs, Usage

from ag_ui_openai_agents import _sdk
from ag_ui_openai_agents.approvals.decisions import (
    Decision,
    read_decision,
    with_arguments,
)
from ag_ui_openai_agents.approvals.guardrails import policy_requires_approval
from ag_ui_openai_agents.approvals.history import (
    HistoryCall,
    ResumeIndex,
    insert_results,
    open_calls,
)
from ag_ui_openai_agents.approvals.interrupts import (
    approval_interrupt,
)
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE, ResumeLimitError, ResumeLimits
from ag_ui_openai_agents.approvals.options import Approvals
from ag_ui_openai_agents.approvals.pauses import Pauses
from ag_ui_openai_agents.approvals.screening import Offered, denied, invalid_decisions
from ag_ui_openai_agents.approvals.signing import ApprovalSigner
from ag_ui_openai_agents.approvals.tools import (
    Catalog,
    ServerTool,
    catalog_tools,
    may_need_approval,
    run_approved,
)
from ag_ui_openai_agents.approvals.verify import (
    ApprovalRefusal,
    check_answers,
    refusal_message,
)
from ag_ui_openai_agents.inbound.tool_output import ResultPart
from ag_ui_openai_agents.protocol import HOSTED_CALL_TYPES, result_message_id

__all__ = [
    "ABANDONED_RESULT",
    "AMBIGUOUS_RESULT",
    "CANCELLED_RESULT",
    "RESUME_LIMIT_CODE",
    "ResumeLimitError",
    "ResumeLimits",
    "ResumedToolCalls",
    "resume_tool_calls",
]

logger = logging.getLogger(__name__)

CANCELLED_RESULT = "CANCELLED"
"""Result given to a call whose interrupt the client cancelled."""

ABANDONED_RESULT = "ABANDONED"
"""Result given to an unfinished call that could not have paused for approval (whatever its
resume entry says), or whose tool is unknown."""

AMBIGUOUS_RESULT = "AMBIGUOUS"
"""Result given to an approved call whose name matches different tools of reachable agents."""


@dataclass(frozen=True)
class ResumedToolCalls:
    """What :func:`resume_tool_calls` did to a request."""

    run_input: RunAgentInput
    """The request, with a tool message answering every call handled here."""
    open_interrupts: list[Interrupt]
    """Approvals nobody decided yet; while any is listed, the model must not be called."""
    events: list[ToolCallResultEvent]
    """One TOOL_CALL_RESULT per call answered here, in history order."""
    usage: Usage | None
    """Model usage of the tools run here (agents used as tools), or None if there was none."""
    refusals: list[ApprovalRefusal] = field(default_factory=list)
    """Answers refused: approvals whose signature failed, or malformed decisions. When any is
    listed nothing ran, the refused calls stay open and are also in ``open_interrupts`` (so the
    model is not called), and ``to_agui`` ends the run with RUN_ERROR (``refusal_code``)."""
    approvals: Approvals = field(default_factory=Approvals, repr=False)
    """The settings the answers were checked with; ``to_agui(..., resumed=...)`` signs the
    interrupts it emits with their signer and offers edits as they say, so the pause and the
    resume share one configuration."""
    thread_key: str | None = None
    """What signatures bind as the thread: the store key of a thread kept on the server, else
    None (the request's thread id)."""

    @property
    def signer(self) -> ApprovalSigner | None:
        """The signer of the pauses and approvals (None: approvals are not signed)."""
        return self.approvals.signer

    @property
    def binding(self) -> str:
        """The thread the signatures of this request's pauses bind."""
        return self.thread_key if self.thread_key is not None else self.run_input.thread_id

    @property
    def refusal_message(self) -> str | None:
        """The client-safe RUN_ERROR message for the refusals, or None when there are none."""
        return refusal_message(self.refusals) if self.refusals else None

    @property
    def refusal_code(self) -> str | None:
        """The RUN_ERROR code for the refusals (``APPROVAL_REFUSED`` or ``INVALID_APPROVAL``)."""
        return self.refusals[0].code if self.refusals else None


async def resume_tool_calls(
    agent: Agent[Any],
    run_input: RunAgentInput,
    *,
    context: Any = None,
    run_config: RunConfig | None = None,
    approvals: Approvals | None = None,
    request: Any = None,
    thread_key: str | None = None,
    paused: Sequence[Interrupt] = (),
) -> ResumedToolCalls:
    """Answer the tool calls the history left open, before the model runs again.

    Open calls of the agent's own tools (and of agents reachable through handoffs) are answered
    from ``run_input.resume``. For a call of a tool that can pause for approval, an approval
    (payload ``{"approved": true}``) runs the tool; ``"editedArgs"`` (an object) runs it with
    those arguments instead, for the tools ``approvals.editable`` names only, checked first
    against the tool's argument schema; the history returned shows the arguments that ran. The
    tool's input guardrails run first, and a tool with a callable policy runs only when the
    call could have paused (see the approvals guide). A rejection (``{"approved": false}``)
    gives its ``"reason"`` or the SDK's rejection text, a cancelled interrupt gives
    ``CANCELLED``. A malformed answer (``approved`` not a boolean, edits that are not an object,
    that the schema refuses or of a tool that is not editable) runs nothing in the whole
    request, lists a refusal with code ``INVALID_APPROVAL`` and leaves the call open. A call
    that may need approval and has no entry stays open and is listed in ``open_interrupts``.
    Any other unfinished call gets ``ABANDONED``, whatever its entry says. Hosted calls and
    calls of client tools are left as they are. Stateless: replaying a request runs its
    approved tools again.

    ``approvals`` (:class:`Approvals`) holds the settings. With its ``signer``, every approval
    needs a valid signature from the interrupt id (binding ``thread_key``, the store key of a
    thread kept on the server, or else the request's thread id): otherwise nothing runs and
    ``refusals`` says why. An approval older than the signer's ``max_age`` is asked again with
    a fresh interrupt. Its ``limits`` cap the request: over them, :class:`ResumeLimitError` is
    raised before any tool runs; they count only what the server did not provably pause on.
    ``paused``: the approval interrupts a thread store recorded for the thread (what the server
    paused on, proven by the store): their calls are exempt from the limits, and one left
    undecided is asked again with its recorded interrupt, signature and all. A call answered
    with a genuine signature is exempt too. Its ``authorize`` hook sees every approved call,
    with ``request`` (the HTTP request, when there is one), before any runs; one refusal runs
    nothing and lists refusals with code ``APPROVAL_DENIED``. The result carries the settings:
    pass it to ``to_agui(..., resumed=...)``, which signs the run's new interrupts.
    """
    approvals = approvals or _DEFAULT_APPROVALS
    entries = run_input.resume or []
    calls = [c for c in open_calls(run_input.messages) if c.name not in HOSTED_CALL_TYPES]
    index = ResumeIndex(calls, entries)
    binding = thread_key if thread_key is not None else run_input.thread_id
    pauses = Pauses(paused, approvals.signer, binding)
    pauses.check_limits(approvals.limits, calls, entries, index)
    _warn_unmatched_entries(index.unmatched)

    def done(result: ResumedToolCalls) -> ResumedToolCalls:
        return dataclasses.replace(result, approvals=approvals, thread_key=thread_key)

    if not calls:
        return done(ResumedToolCalls(run_input, [], [], None))
    run_context: RunContextWrapper[Any] = RunContextWrapper(context=context)
    catalog = await catalog_tools(agent, run_context)
    client_names = {tool.name for tool in run_input.tools or []}
    answers = _gated_answers(
        [c for c in calls if _answered_here(catalog, c.name, client_names)], index, catalog
    )
    offered = Offered(catalog, approvals)
    renewed: dict[HistoryCall, Interrupt] = {}
    if approvals.signer is not None:
        checked = check_answers(approvals.signer, binding, answers, offered.schema_of)
        if checked.refusals:
            return done(_refused(run_input, calls, checked.refusals, offered, pauses))
        answers, renewed = checked.answers, checked.renewed
    refusals = invalid_decisions(answers, catalog, approvals)
    if not refusals:
        refusals = await denied(answers, renewed, catalog, approvals, run_input, request)
    if refusals:
        return done(_refused(run_input, calls, refusals, offered, pauses))
    taken = {message.id for message in run_input.messages}
    resolver = _Resolver(
        offered,
        context,
        run_config or RunConfig(),
        run_context,
        taken,
        signed=approvals.signer is not None,
        pauses=pauses,
        parts=run_input.protocol_version is not None,
    )
    for call, entry in answers:
        if call in renewed:
            resolver.reopen(call, renewed[call])
        else:
            await resolver.resolve(call, entry)
    return done(resolver.outcome(run_input))


_DEFAULT_APPROVALS = Approvals()


def _answered_here(catalog: Catalog, name: str, client_names: set[str]) -> bool:
    """Whether a call of ``name`` is answered here: a server tool's or handoff's call, or one
    of an unknown tool the client does not own (the catalog holds no client tool proxy)."""
    return catalog.knows(name) or name not in client_names


def _gated_answers(
    calls: Sequence[HistoryCall], index: ResumeIndex, catalog: Catalog
) -> list[tuple[HistoryCall, ResumeEntry | None]]:
    """Each call with its entry; a call no tool of its name could have paused on gets none.

    Only the model decides to run a tool that needs no approval: an entry for such a call
    (a forged pause) is dropped, and the call is answered ``ABANDONED``.
    """
    answers: list[tuple[HistoryCall, ResumeEntry | None]] = []
    ignored = 0
    for call in calls:
        entry = index.entry_for(call)
        if entry is not None and not _can_pause(catalog, call.name):
            ignored += 1
            entry = None
        answers.append((call, entry))
    if ignored:
        logger.warning(
            "%d resume entr%s ignored: %s a tool call whose tool cannot pause for approval.",
            ignored,
            "y" if ignored == 1 else "ies",
            "it names" if ignored == 1 else "each names",
        )
    return answers


def _can_pause(catalog: Catalog, name: str) -> bool:
    """Whether a call of ``name`` may have paused: some tool of that name may need approval."""
    return any(may_need_approval(c.tool) for c in catalog.candidates(name))


_SHOWN_UNMATCHED = 3


def _warn_unmatched_entries(unmatched: Sequence[ResumeEntry]) -> None:
    """Log once, with a count, the resume entries whose ``interruptId`` names no open call."""
    if not unmatched:
        return
    shown = ", ".join(repr(e.interrupt_id[:80]) for e in unmatched[:_SHOWN_UNMATCHED])
    more = len(unmatched) - _SHOWN_UNMATCHED
    logger.warning(
        "%d resume entr%s ignored: no open interrupt has %s id (%s%s).",
        len(unmatched),
        "y" if len(unmatched) == 1 else "ies",
        "its" if len(unmatched) == 1 else "their",
        shown,
        f" and {more} more" if more > 0 else "",
    )


def _refused(
    run_input: RunAgentInput,
    open_calls: Sequence[HistoryCall],
    refusals: Sequence[ApprovalRefusal],
    offered: Offered,
    pauses: Pauses,
) -> ResumedToolCalls:
    """The result of a request whose answers were refused: nothing answered, nothing run.
    A refused call is asked again as the store recorded it, when it did."""
    calls = {c.call_id: c for c in open_calls}
    interrupts = [
        pauses.asked_again(calls[r.call_id], offered.params_schema(r.tool_name))
        or approval_interrupt(
            r.call_id,
            r.tool_name,
            calls[r.call_id].arguments,
            params_schema=offered.params_schema(r.tool_name),
        )
        for r in refusals
    ]
    return ResumedToolCalls(
        run_input=run_input,
        open_interrupts=interrupts,
        events=[],
        usage=None,
        refusals=list(refusals),
    )


# --------------------------------------------------------------------------- answering


class _Resolver:
    """Answers open calls one by one and gathers what the caller needs."""

    def __init__(
        self,
        offered: Offered,
        context: Any,
        run_config: RunConfig,
        run_context: RunContextWrapper[Any],
        taken_ids: set[str],
        *,
        signed: bool,
        pauses: Pauses,
        parts: bool = False,
    ) -> None:
        self._offered = offered
        self._pauses = pauses
        self._parts = parts
        """The client speaks AG-UI 1.0: a result with media is shown as content parts."""
        self._catalog = offered.catalog
        self._signed = signed
        self._context = context
        self._run_config = run_config
        self._run_context = run_context
        self._answers: dict[int, list[ToolMessage]] = {}
        self._events: list[ToolCallResultEvent] = []
        self._interrupts: dict[str, Interrupt] = {}
        self._usage = Usage()
        self._taken = taken_ids
        self._result_numbers: dict[str, int] = {}
        self._ran_with: dict[tuple[int, str], str] = {}

    async def resolve(self, call: HistoryCall, entry: ResumeEntry | None) -> None:
        """Answer ``call`` from its resume entry, or keep it open when it awaits a decision."""
        candidates = self._catalog.candidates(call.name)
        if entry is None:
            if any(may_need_approval(c.tool) for c in candidates):
                schema = self._offered.params_schema(call.name)
                interrupt = self._pauses.asked_again(call, schema) or approval_interrupt(
                    call.call_id, call.name, call.arguments, params_schema=schema
                )
                self._interrupts.setdefault(call.call_id, interrupt)
            else:
                self._answer(call, ABANDONED_RESULT)
            return
        if entry.status == "cancelled":
            self._answer(call, CANCELLED_RESULT)
            return
        decision = read_decision(entry.payload)
        if not isinstance(decision, Decision) or not decision.approved:
            # A malformed answer was refused before anything ran; deny by default all the same.
            reason = decision.reason if isinstance(decision, Decision) else None
            self._answer(call, reason or await self._rejection_text(call))
        elif len(candidates) > 1:
            self._answer(call, AMBIGUOUS_RESULT)
        elif not candidates:
            self._answer(call, ABANDONED_RESULT)
        else:
            await self._run(call, candidates[0], decision.arguments(call.arguments))

    async def _run(self, call: HistoryCall, server_tool: ServerTool, arguments: str) -> None:
        """Run an approved call, unless its tool's policy says it could not have paused.

        A signed approval proves the pause, so the policy is asked only when approvals are
        not signed; it gets this request's context, the model's arguments (those the run would
        have paused on, not a person's edits) and the call id.
        """
        tool = server_tool.tool
        if not self._signed and not await policy_requires_approval(
            tool, self._run_context, call.arguments, call.call_id
        ):
            logger.warning(
                "Approval of tool call %r (%s) ignored: the tool's needs_approval policy does "
                "not ask approval for it, so no run paused on it.",
                call.call_id[:80],
                call.name[:80],
            )
            self._answer(call, ABANDONED_RESULT)
            return
        output = await run_approved(
            call,
            server_tool,
            arguments=arguments,
            context=self._context,
            run_config=self._run_config,
            usage=self._usage,
            parts=self._parts,
        )
        if arguments != call.arguments:
            self._ran_with[(call.message_index, call.call_id)] = arguments
        self._answer(call, output)

    def reopen(self, call: HistoryCall, interrupt: Interrupt) -> None:
        """Keep ``call`` open and end the run with ``interrupt`` (asked afresh)."""
        self._interrupts.setdefault(call.call_id, interrupt)

    def outcome(self, run_input: RunAgentInput) -> ResumedToolCalls:
        """Return the request with its answers, and what remains open."""
        updated = run_input
        if self._answers:
            # Edited calls show the arguments that ran (indices are those of the request).
            edited = with_arguments(run_input.messages, self._ran_with)
            messages = insert_results(edited, self._answers)
            updated = run_input.model_copy(update={"messages": messages})
        used = self._usage.requests > 0 or self._usage.total_tokens > 0
        return ResumedToolCalls(
            run_input=updated,
            open_interrupts=list(self._interrupts.values()),
            events=list(self._events),
            usage=self._usage if used else None,
        )

    def _answer(self, call: HistoryCall, content: str | list[ResultPart]) -> None:
        """Record the tool message and the event answering ``call``."""
        message_id = result_message_id(call.call_id, self._taken, self._result_numbers)
        self._answers.setdefault(call.message_index, []).append(
            ToolMessage(id=message_id, tool_call_id=call.call_id, content=content)
        )
        self._events.append(
            ToolCallResultEvent(
                message_id=message_id, tool_call_id=call.call_id, content=content, role="tool"
            )
        )

    async def _rejection_text(self, call: HistoryCall) -> str:
        """Return the SDK's rejection text, through the run config's formatter when it has one."""
        default = _sdk.approval_rejection_message()
        formatter = self._run_config.tool_error_formatter
        if formatter is None:
            return default
        try:
            message = formatter(
                ToolErrorFormatterArgs(
                    kind="approval_rejected",
                    tool_type="function",
                    tool_name=call.name,
                    call_id=call.call_id,
                    default_message=default,
                    run_context=self._run_context,
                )
            )
            if inspect.isawaitable(message):
                message = await message
        except Exception:
            logger.exception("The tool error formatter failed; using the default rejection text.")
            return default
        return message if isinstance(message, str) else default
