"""What an approved call meets before and after it runs: its policy, its tool guardrails."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ResumeEntry,
    RunAgentInput,
    ToolCall,
    UserMessage,
)
from agents import (
    Agent,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
    function_tool,
    tool_input_guardrail,
    tool_output_guardrail,
)

from ag_ui_openai_agents import Approvals
from ag_ui_openai_agents.approvals.resume import ABANDONED_RESULT, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import (
    ApprovalSigner,
    ApprovalSubject,
    signed_interrupt_id,
)

SECRET = "a-test-secret-of-enough-length-0123456789"


def request(arguments: dict[str, Any], interrupt_id: str = "call_1") -> RunAgentInput:
    paused = AssistantMessage(
        id="a1",
        tool_calls=[
            ToolCall(
                id="call_1", function=FunctionCall(name="refund", arguments=json.dumps(arguments))
            )
        ],
    )
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-2",
        state={},
        messages=[UserMessage(id="u1", content="Refund"), paused],
        tools=[],
        context=[],
        forwarded_props=None,
        resume=[
            ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload={"approved": True})
        ],
    )


def result(resumed: Any) -> str:
    [event] = resumed.events
    return str(event.content)


@tool_output_guardrail
def hide_large(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
    if data.output > 100:
        return ToolGuardrailFunctionOutput.reject_content("Receipt withheld.")
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
def halt(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.raise_exception()


@pytest.mark.parametrize(("amount", "expected"), [(5, "5"), (500, "Receipt withheld.")])
async def test_output_guardrails_see_what_the_tool_returned(amount: int, expected: str) -> None:
    @function_tool(needs_approval=True, tool_output_guardrails=[hide_large])
    def refund(amount: int) -> int:
        """Refund."""
        return amount

    resumed = await resume_tool_calls(Agent(name="a", tools=[refund]), request({"amount": amount}))
    assert result(resumed) == expected


async def test_output_guardrail_tripwire_raises_as_in_the_sdk() -> None:
    ran: list[int] = []

    @function_tool(needs_approval=True, tool_output_guardrails=[halt])
    def refund(amount: int) -> str:
        """Refund."""
        ran.append(amount)
        return "done"

    with pytest.raises(ToolOutputGuardrailTripwireTriggered):
        await resume_tool_calls(Agent(name="a", tools=[refund]), request({"amount": 1}))
    assert ran == [1]


async def test_input_guardrails_see_the_call_and_its_agent() -> None:
    seen: list[tuple[str | None, str, str]] = []

    @tool_input_guardrail
    def record(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        seen.append((data.context.tool_call_id, data.context.tool_arguments, data.agent.name))
        return ToolGuardrailFunctionOutput.raise_exception()

    @function_tool(needs_approval=True, tool_input_guardrails=[record])
    def refund(amount: int) -> str:
        """Refund."""
        raise AssertionError("must not run")

    with pytest.raises(ToolInputGuardrailTripwireTriggered):
        await resume_tool_calls(Agent(name="billing", tools=[refund]), request({"amount": 2}))
    assert seen == [("call_1", '{"amount": 2}', "billing")]


async def test_a_signed_approval_is_not_put_to_the_policy_again() -> None:
    """The signature proves the pause; a policy that now says no does not undo it."""
    asked: list[str] = []

    def never(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
        asked.append(call_id)
        return False

    @function_tool(needs_approval=never)
    def refund(amount: int) -> str:
        """Refund."""
        return f"Refunded {amount}"

    signer = ApprovalSigner.from_secret(SECRET)
    arguments = {"amount": 7}
    subject = ApprovalSubject("thread-1", "call_1", "refund", json.dumps(arguments))
    interrupt_id = signed_interrupt_id("call_1", signer.sign(subject).token)
    agent = Agent(name="a", tools=[refund])

    signed = await resume_tool_calls(
        agent, request(arguments, interrupt_id), approvals=Approvals(signer=signer)
    )
    unsigned = await resume_tool_calls(agent, request(arguments))

    assert result(signed) == "Refunded 7" and asked == ["call_1"]
    assert result(unsigned) == ABANDONED_RESULT
