"""Internal: what the SDK's run loop checks around a tool call, applied to a resumed call.

An approved call runs outside ``Runner``, so the checks the run loop makes around a function
tool are made here, through the SDK's public names, in the SDK's order:

- a tool with a callable ``needs_approval`` policy is asked again whether this call needs
  approval (:func:`policy_requires_approval`); a call it would have run unasked could not have
  paused, so an approval of it is not a reason to run it;
- the tool's ``tool_input_guardrails`` run before it (:func:`input_rejection`): one that
  rejects gives the model its message instead of the tool's result, a tripwire raises
  ``ToolInputGuardrailTripwireTriggered`` and nothing else in the request runs;
- its ``tool_output_guardrails`` run on its output (:func:`checked_output`) the same way.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, NoReturn

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
)
from agents.tool_context import ToolContext


def _no_constant(value: str) -> NoReturn:
    raise ValueError(f"not a JSON constant: {value}")


def _arguments_object(arguments: str) -> dict[str, Any] | None:
    """The call's arguments as the policy sees them; None when they are not a JSON object."""
    try:
        parsed = json.loads(arguments, parse_constant=_no_constant)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


async def policy_requires_approval(
    tool: FunctionTool, run_context: RunContextWrapper[Any], arguments: str, call_id: str
) -> bool:
    """Ask ``tool``'s ``needs_approval`` whether this call needs approval, as the SDK asks it.

    ``True``/``False`` answer for themselves; a callable is called with the run context, the
    parsed arguments and the call id. Arguments that are not a JSON object need approval
    without asking, as in the SDK (the policy cannot inspect them).
    """
    policy = tool.needs_approval
    if not callable(policy):
        return bool(policy)
    params = _arguments_object(arguments)
    if params is None:
        return True
    answer: Any = policy(run_context, params, call_id)
    if inspect.isawaitable(answer):
        answer = await answer
    return bool(answer)


async def input_rejection(
    tool: FunctionTool, tool_context: ToolContext[Any], agent: Agent[Any]
) -> str | None:
    """Run ``tool``'s input guardrails in order; return the first rejection's message.

    Raises ``ToolInputGuardrailTripwireTriggered`` when one asks to halt, as the SDK does.
    """
    for guardrail in tool.tool_input_guardrails or []:
        output = await guardrail.run(ToolInputGuardrailData(context=tool_context, agent=agent))
        behavior = output.behavior
        if behavior["type"] == "raise_exception":
            raise ToolInputGuardrailTripwireTriggered(guardrail=guardrail, output=output)
        if behavior["type"] == "reject_content":
            return behavior["message"]
    return None


async def checked_output(
    tool: FunctionTool, tool_context: ToolContext[Any], agent: Agent[Any], output: Any
) -> tuple[Any, bool]:
    """Run ``tool``'s output guardrails on ``output``: (what the model gets, whether rejected).

    Raises ``ToolOutputGuardrailTripwireTriggered`` when one asks to halt, as the SDK does.
    """
    for guardrail in tool.tool_output_guardrails or []:
        data = ToolOutputGuardrailData(context=tool_context, agent=agent, output=output)
        verdict = await guardrail.run(data)
        behavior = verdict.behavior
        if behavior["type"] == "raise_exception":
            raise ToolOutputGuardrailTripwireTriggered(guardrail=guardrail, output=verdict)
        if behavior["type"] == "reject_content":
            return behavior["message"], True
    return output, False
