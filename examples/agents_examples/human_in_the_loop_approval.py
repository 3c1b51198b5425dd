"""Human in the loop with backend approval: a server tool that waits for a human's decision.

``issue_refund`` is an ordinary server tool marked ``needs_approval=True``. When the model calls
it, the SDK pauses and the run ends with an AG-UI interrupt (``RUN_FINISHED`` with
``outcome.type == "interrupt"``). The client shows the call, and sends the conversation back
with a resume entry ``{"approved": true}`` (or false). Nothing is kept on the server in
between: ``resume_tool_calls`` reads the decision from the request, runs or rejects the call,
and the model continues from there.

With ``settings.approval_secret`` (the server reads it from ``AG_UI_APPROVAL_SECRET``, or
generates one at start), the translator signs each interrupt and ``resume_tool_calls`` runs a
refund only when the approval answers an interrupt this server (or a replica with the same
secret) issued for exactly that call, thread and arguments. A client that writes a refund into
its history and approves it gets RUN_ERROR, and nothing runs.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui_openai_agents import AGUITranslator, resume_tool_calls
from ag_ui_openai_agents.server.encoder import FastEventEncoder
from agents import Agent, Runner, function_tool
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from .settings import ExampleSettings

DESCRIPTION = "Backend needs_approval tool as an AG-UI interrupt, resumed statelessly."
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
    translator = AGUITranslator(approval_secret=secret)

    @app.post(path, name="human_in_the_loop_approval")
    async def run_with_approvals(body: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = FastEventEncoder(accept=request.headers.get("accept", ""))

        async def stream() -> AsyncIterator[str]:
            # Answer the paused calls this request decides: approved ones run now.
            resumed = await resume_tool_calls(
                agent, body, run_config=settings.run_config, approval_secret=secret
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
