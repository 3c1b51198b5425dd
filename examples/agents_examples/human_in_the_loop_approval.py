"""Human in the loop with backend approval: a server tool that waits for a human's decision.

``issue_refund`` is an ordinary server tool marked ``needs_approval=True``. When the model calls
it, the SDK pauses and the run ends with an AG-UI interrupt (``RUN_FINISHED`` with
``outcome.type == "interrupt"``). The client shows the call, and sends the conversation back
with a resume entry ``{"approved": true}`` (or false). Nothing is kept on the server in
between: ``resume_tool_calls`` reads the decision from the request, runs or rejects the call,
and the model continues from there.

With ``settings.approval_secret`` (the server reads it from ``AG_UI_APPROVAL_SECRET``, or
generates one at start), one ``ApprovalSigner`` is given to ``resume_tool_calls``: the
translator signs each interrupt with the signer the resume carries, and a refund runs only
when the approval answers an interrupt this server (or a replica with the same secret) issued
for exactly that call, thread and arguments. A client that writes a refund into its history
and approves it gets RUN_ERROR, and nothing runs.

When the settings name a thread store (the example server's default), the same agent is
served by ``OpenAIAgentsAgent`` with that store instead: the server then keeps the thread and
knows what it paused on, so a reloaded page gets its pending approval back and a resume needs
only its entries (docs/threads.md). The translator route below is the stateless recipe.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui_openai_agents import (
    AGUITranslator,
    ApprovalSigner,
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    resume_tool_calls,
)
from agents import Agent, Runner, function_tool
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from .settings import ExampleSettings

DESCRIPTION = "Backend needs_approval tool as an AG-UI interrupt, resumed from the decision."
KEEPS_THREADS = True
"""With a thread store the server keeps the thread, paused approvals included."""
logger = logging.getLogger(__name__)


@function_tool(needs_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund money on a customer order. A person must approve every refund.

    Args:
        order_id: The order to refund, for example "A-17".
        amount: The amount to refund, in US dollars.
    """
    return f"Refunded {amount:.2f} USD on order {order_id}."


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
    if settings.threads is not None:
        wrapped = OpenAIAgentsAgent(
            agent,
            name="human_in_the_loop_approval",
            description=DESCRIPTION,
            run_config=settings.run_config,
            approval_signer=signer,
            threads=settings.threads,
        )
        add_openai_agents_fastapi_endpoint(app, wrapped, path)
        return
    translator = AGUITranslator()

    @app.post(path, name="human_in_the_loop_approval")
    async def run_with_approvals(body: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        async def stream() -> AsyncIterator[str]:
            # Answer the paused calls this request decides: approved ones run now. The result
            # carries the signer, so to_agui signs this run's new interrupts with it.
            resumed = await resume_tool_calls(
                agent, body, run_config=settings.run_config, signer=signer
            )
            # Approvals still undecided (or refused): end with the interrupt (or RUN_ERROR).
            events = None
            if not resumed.open_interrupts:
                translated = translator.to_openai(resumed.run_input)
                events = Runner.run_streamed(
                    agent,
                    input=translated.messages,
                    context=translated.context,
                    run_config=settings.run_config,
                )
            try:
                async for event in translator.to_agui(events, resumed.run_input, resumed=resumed):
                    yield encoder.encode(event)
            except Exception:  # The client already has RUN_ERROR; keep the details in the log.
                logger.exception("Run %s failed", body.run_id)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())
