"""Human in the loop with backend approval: a server tool that waits for a human's decision.

``issue_refund`` is an ordinary server tool marked ``needs_approval=True``. When the model calls
it, the SDK pauses and the run ends with an AG-UI interrupt (``RUN_FINISHED`` with
``outcome.type == "interrupt"``). The client shows the call, and sends the conversation back
with a resume entry ``{"approved": true}`` (or false). Nothing is kept on the server in
between: ``resume_tool_calls`` reads the decision from the request, runs or rejects the call,
and the model continues from there.

A person may also correct the refund before approving it: edits are off unless a tool is named
editable, and this example names ``issue_refund`` (``EDITABLE``, given as
``Approvals(editable=...)``), so the interrupt's ``response_schema`` offers ``editedArgs`` typed
by ``issue_refund``'s arguments (the page turns it into a form), and
``{"approved": true, "editedArgs": {"order_id": "A-18", "amount": 45.5}}`` runs the refund with
exactly those arguments, checked against the tool's schema first; the result and the history the
model sees next show them. ``{"approved": false, "reason": "..."}`` tells the model why not.

With ``settings.approval_secret`` (the server reads it from ``AG_UI_APPROVAL_SECRET``, or
generates one at start), one ``Approvals(signer=..., editable=...)`` is given to
``resume_tool_calls``: the translator signs each interrupt with the settings the resume
carries, and a refund runs only when the approval answers an interrupt this server (or a
replica with the same secret) issued for exactly that call, thread and arguments. A client that
writes a refund into its history and approves it gets RUN_ERROR, and nothing runs.

When the settings name a thread store (the example server's default), the same agent is
served by ``OpenAIAgentsAgent`` with that store and the same ``Approvals`` instead, each
browser's threads kept under its scope cookie (``browser_thread_key``): the server then keeps
the thread and knows what it paused on, so a reloaded page gets its pending approval back and a
resume needs only its entries (docs/threads.md). The translator route below is the stateless
recipe.

Every approved refund passes :func:`authorize_refund` first (``Approvals(authorize=...)``): one
over :data:`MAX_REFUND` needs more than a click, so the request ends with RUN_ERROR
``APPROVAL_DENIED`` and nothing runs.

The AG-UI Dojo's approval page predates AG-UI 1.0 interrupts: it waits for a CUSTOM
``approval_request`` event (``[{"call_id", "tool_name", "arguments"}]``) and answers with
``forwardedProps.approval = {"call_id", "approve"}``. :class:`DojoApprovalAgent` serves that
contract too, beside the interrupts, to requests without ``protocolVersion``, when the settings
opt in (``AG_UI_DOJO_APPROVALS=true``, ``settings.dojo_approvals``). The answer carries no
signature, so it is taken only against a pause the thread store recorded: it becomes the
resume entry of that stored interrupt (signed, as any other), the ``authorize`` hook applies,
and it allows no edits. It needs the store.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    Interrupt,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
)
from ag_ui_openai_agents import (
    APPROVAL_REFUSED_CODE,
    INVALID_APPROVAL_CODE,
    AGUITranslator,
    ApprovalRequest,
    Approvals,
    ApprovalSigner,
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    resume_tool_calls,
)
from ag_ui_openai_agents.server.streaming import agui_sse_response
from agents import Agent, Runner, function_tool
from agents.tool_context import ToolContext
from fastapi import FastAPI, Request, Response

from .page_loads import answer_nothing, asks_nothing
from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "Backend needs_approval tool as an AG-UI interrupt, resumed from the decision."

EDITABLE = ("issue_refund",)
"""The tools whose arguments the person approving may change (the refund's amount)."""
ROUTE_WRITTEN_BY_HAND = True
"""Its stateless route is written by hand around the translator; the server caps its body."""
KEEPS_THREADS = True
"""With a thread store the server keeps the thread, paused approvals included."""

REFUNDS: dict[tuple[str, str], str] = {}
"""What each refund returned, by thread and tool call id. A client may send the same approved
call again (a retry, a replayed request): the refund is keyed on its thread and call, so it is
made once; call ids are unique within a thread only, so the thread is part of the key. A real
application keeps this record where every replica sees it (its database)."""


@dataclass(frozen=True)
class SupportContext:
    """The SDK context of one request: whose thread the refunds belong to."""

    thread: str
    """The thread's key (the browser's scope, then the thread id)."""


def support_context(run_input: RunAgentInput, request: Any) -> SupportContext:
    """The context of a request: its thread, keyed as the thread store keys it."""
    return SupportContext(thread=browser_thread_key(run_input.thread_id, request))


@function_tool(needs_approval=True)
def issue_refund(ctx: ToolContext[Any], order_id: str, amount: float | None = None) -> str:
    """Refund money on a customer order. A person must approve every refund.

    Args:
        order_id: The order to refund, for example "A-17".
        amount: The amount to refund, in US dollars; null refunds the whole order.
    """
    thread = ctx.context.thread if isinstance(ctx.context, SupportContext) else ""
    key = (thread, ctx.tool_call_id)
    done = REFUNDS.get(key)
    if done is None:
        refunded = "in full" if amount is None else f"{amount:.2f} USD"
        done = REFUNDS[key] = f"Refunded {refunded} on order {order_id}."
    return done


MAX_REFUND = 500.0
"""The largest refund (US dollars) a person may approve here; a larger one is refused."""


def authorize_refund(request: ApprovalRequest) -> bool:
    """The application's last word on an approved call: no refund over :data:`MAX_REFUND`
    (a whole-order refund, without an amount, is left to the person approving)."""
    try:
        amount = json.loads(request.arguments).get("amount")
    except (ValueError, AttributeError):
        return False
    return not isinstance(amount, (int, float)) or amount <= MAX_REFUND


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A support agent whose refunds need approval."""
    return Agent(
        name="Support agent",
        instructions=(
            "You help customers with their orders. To refund, call issue_refund with the order "
            "id and amount; a person approves it. Then say whether the refund was made."
        ),
        tools=[issue_refund],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``: resume any decided approvals, then run the agent."""
    agent = build_agent(settings)
    secret = settings.approval_secret
    signer = ApprovalSigner.from_secret(secret) if secret else None
    approvals = Approvals(signer=signer, editable=EDITABLE, authorize=authorize_refund)
    if settings.dojo_approvals and settings.threads is None:
        raise ValueError("the Dojo's approval contract is taken only against a thread store")
    if settings.threads is not None:
        served = DojoApprovalAgent if settings.dojo_approvals else OpenAIAgentsAgent
        wrapped = served(
            agent,
            name="human_in_the_loop_approval",
            description=DESCRIPTION,
            run_config=settings.run_config,
            approvals=approvals,
            context=support_context,
            threads=settings.threads,
            thread_key=browser_thread_key,
        )
        add_openai_agents_fastapi_endpoint(app, wrapped, path)
        return
    translator = AGUITranslator()

    @app.post(path, name="human_in_the_loop_approval")
    async def run_with_approvals(body: RunAgentInput, request: Request) -> Response:
        async def events() -> AsyncIterator[BaseEvent]:
            if asks_nothing(body):  # a page loading: nothing to answer, no model call
                for event in answer_nothing(body):
                    yield event
                return
            # Answer the paused calls this request decides: approved ones run now. The result
            # carries the settings, so to_agui signs this run's new interrupts with them.
            context = support_context(body, request)
            resumed = await resume_tool_calls(
                agent,
                body,
                context=context,
                run_config=settings.run_config,
                approvals=approvals,
                request=request,
            )
            # Approvals still undecided (or refused): end with the interrupt (or RUN_ERROR).
            run = None
            if not resumed.open_interrupts:
                translated = translator.to_openai(resumed.run_input)
                run = Runner.run_streamed(
                    agent,
                    input=translated.messages,
                    context=context,
                    run_config=settings.run_config,
                )
            async for event in translator.to_agui(run, resumed.run_input, resumed=resumed):
                yield event

        # SSE with keepalive, a safe RUN_ERROR on failure, a clean end on shutdown.
        return agui_sse_response(request, body, events())


# --- the AG-UI Dojo's approval page (pre-1.0) --------------------------------------------------

APPROVAL_EVENT = "approval_request"
"""The CUSTOM event the Dojo's approval page waits for."""


def _dojo_answer(run_input: RunAgentInput) -> tuple[str, bool] | str | None:
    """The Dojo page's answer, ``(call_id, approve)``; None when the request carries none; a
    message when it carries one that is malformed."""
    props = run_input.forwarded_props
    answer = props.get("approval") if isinstance(props, dict) else None
    if answer is None:
        return None
    if not isinstance(answer, dict) or set(answer) != {"call_id", "approve"}:
        return 'forwardedProps.approval must be {"call_id": <string>, "approve": <boolean>}'
    call_id, approve = answer["call_id"], answer["approve"]
    if not isinstance(call_id, str) or not call_id or not isinstance(approve, bool):
        return 'forwardedProps.approval must be {"call_id": <string>, "approve": <boolean>}'
    return call_id, approve


def approval_request_event(interrupts: list[Interrupt]) -> CustomEvent:
    """The Dojo page's CUSTOM ``approval_request``: one entry per paused call."""
    value = [
        {
            "call_id": interrupt.tool_call_id or interrupt.id,
            "tool_name": (interrupt.metadata or {}).get("tool_name"),
            "arguments": (interrupt.metadata or {}).get("tool_input"),
        }
        for interrupt in interrupts
    ]
    return CustomEvent(name=APPROVAL_EVENT, value=value)


class DojoApprovalAgent(OpenAIAgentsAgent):
    """The wrapper, serving the Dojo's pre-1.0 approval contract beside the interrupts.

    To a request without ``protocolVersion`` it sends CUSTOM ``approval_request`` before each
    ``RUN_FINISHED`` that pauses, and it takes ``forwardedProps.approval`` as the answer to the
    paused call the thread store recorded under that call id: the request is resumed with that
    interrupt's own (signed) id, ``{"approved": approve}`` and no edits, so the signature, the
    ``authorize`` hook and the store's run-once claim all apply. An answer to no recorded pause
    runs nothing and ends with RUN_ERROR ``APPROVAL_REFUSED``.
    """

    async def run_streamed(
        self, run_input: RunAgentInput, *, request: Any = None
    ) -> AsyncGenerator[BaseEvent, None]:
        """One run; see the class."""
        if run_input.protocol_version is not None:
            async for event in super().run_streamed(run_input, request=request):
                yield event
            return
        answer = None if run_input.resume else _dojo_answer(run_input)
        if answer is not None:
            resumed = await self._resumed(run_input, answer, request)
            if isinstance(resumed, RunErrorEvent):
                yield RunStartedEvent(
                    thread_id=run_input.thread_id,
                    run_id=run_input.run_id,
                    protocol_version=PROTOCOL_VERSION,
                )
                yield resumed
                return
            run_input = resumed
        async for event in super().run_streamed(run_input, request=request):
            outcome = event.outcome if isinstance(event, RunFinishedEvent) else None
            if isinstance(outcome, RunFinishedInterruptOutcome):
                yield approval_request_event(outcome.interrupts)
            yield event

    async def _resumed(
        self, run_input: RunAgentInput, answer: tuple[str, bool] | str, request: Any
    ) -> RunAgentInput | RunErrorEvent:
        """The request, resumed with the stored interrupt the answer names; or the RUN_ERROR
        that ends it when the answer is malformed or names no recorded pause."""
        if isinstance(answer, str):
            return RunErrorEvent(message=answer, code=INVALID_APPROVAL_CODE)
        call_id, approve = answer
        stored = {i.tool_call_id or i.id: i for i in await self._paused(run_input, request)}
        if call_id not in stored:
            message = f"No approval of call {call_id[:80]!r} is pending in this conversation."
            return RunErrorEvent(message=message, code=APPROVAL_REFUSED_CODE)
        entry = ResumeEntry(
            interrupt_id=stored[call_id].id, status="resolved", payload={"approved": approve}
        )
        return run_input.model_copy(update={"resume": [entry]})

    async def _paused(self, run_input: RunAgentInput, request: Any) -> list[Interrupt]:
        """The interrupts the thread store holds for this thread: what a request with nothing
        new (a hydration) answers, read without calling the model."""
        asked = run_input.model_copy(update={"messages": [], "resume": None})
        interrupts: list[Interrupt] = []
        async for event in super().run_streamed(asked, request=request):
            outcome = event.outcome if isinstance(event, RunFinishedEvent) else None
            if isinstance(outcome, RunFinishedInterruptOutcome):
                interrupts = list(outcome.interrupts)
        return interrupts
