"""Internal: every private name of the OpenAI Agents SDK this package reads, in one place.

The SDK offers no public way to learn these facts. Each function here reads one private name
directly, with no silent default, so an SDK release that renames it fails the drift tests in
``tests/test_sdk_drift.py`` instead of quietly changing behaviour. Where a name exists only on
some kinds of object, the public type decides first and the read follows unguarded.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from agents import Agent, FunctionTool, Handoff, RunResultStreaming
from agents import agent_tool_state as sdk_agent_tool_state
from agents import tool as sdk_tool
from agents.models import fake_id as sdk_fake_id
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall
from pydantic import TypeAdapter

CancelMode = Literal["none", "immediate", "after_turn"]


def cancel_mode(result: RunResultStreaming) -> CancelMode:
    """How ``result.cancel`` was asked for so far: ``"none"`` while nobody cancelled the run."""
    mode: CancelMode = result._cancel_mode
    return mode


def is_agent_tool(tool: object) -> bool:
    """Whether ``tool`` is a function tool made by ``Agent.as_tool``."""
    return isinstance(tool, FunctionTool) and tool._is_agent_tool


def tool_agent(tool: object) -> Agent[Any] | None:
    """The agent an ``Agent.as_tool`` tool runs (None for every other tool)."""
    if not isinstance(tool, FunctionTool) or not tool._is_agent_tool:
        return None
    agent: Agent[Any] = tool._agent_instance
    return agent


def agent_tool_stream_callback(tool: object) -> Any:
    """The ``on_stream`` callback an ``Agent.as_tool`` tool was built with (None when it was
    built without one, or is not such a tool).

    ``as_tool`` keeps the callback only in the closure of the function its invoker wraps."""
    if not is_agent_tool(tool):
        return None
    assert isinstance(tool, FunctionTool)
    invoker: Any = tool.on_invoke_tool
    return inspect.getclosurevars(invoker._invoke_tool_impl).nonlocals["on_stream"]


def mcp_server_index(tool: FunctionTool) -> tuple[str, int] | None:
    """For a tool an MCP server of its agent provides: (the tool's name on that server, the
    server's index in ``agent.mcp_servers``); None for other tools or an unknown index."""
    binding = tool._mcp_tool_binding
    if binding is None or binding[2] is None:
        return None
    return binding[1], binding[2]


def handoff_agent(handoff: Handoff[Any, Any]) -> Agent[Any] | None:
    """The agent a ``handoff(...)`` object leads to, while it lives (None for a hand-built
    ``Handoff``, which keeps no reference to its target)."""
    ref = handoff._agent_ref
    target = ref() if ref is not None else None
    return target if isinstance(target, Agent) else None


def tool_namespace(tool: FunctionTool) -> str | None:
    """The namespace ``tool_namespace(...)`` put ``tool`` in (None when not namespaced)."""
    namespace: str | None = tool._tool_namespace
    return namespace


def output_type_adapter(tool: FunctionTool) -> TypeAdapter[Any] | None:
    """The adapter the SDK converts ``tool``'s return value with (None when it has none)."""
    adapter: TypeAdapter[Any] | None = tool._output_type_adapter
    return adapter


def fake_responses_id() -> str:
    """The placeholder the SDK puts where a model gave an item no id of its own."""
    placeholder: str = sdk_fake_id.FAKE_RESPONSES_ID
    return placeholder


def approval_rejection_message() -> str:
    """The text the model is given for a tool call a person rejected, unless the run config's
    ``tool_error_formatter`` says otherwise."""
    message: str = sdk_tool.DEFAULT_APPROVAL_REJECTION_MESSAGE
    return message


async def invoke_function_tool(
    tool: FunctionTool, context: ToolContext[Any], arguments: str
) -> Any:
    """Run ``tool`` on ``arguments`` as the SDK's run loop does (its timeout enforced) and return
    what it returned."""
    return await sdk_tool.invoke_function_tool(
        function_tool=tool, context=context, arguments=arguments
    )


def set_agent_tool_scope(context: ToolContext[Any], scope: str) -> None:
    """Record the run of an agent used as a tool under ``scope`` when it is invoked with
    ``context``, for :func:`consume_agent_tool_result` to take back."""
    sdk_agent_tool_state.set_agent_tool_state_scope(context, scope)


def consume_agent_tool_result(call: ResponseFunctionToolCall, scope: str) -> Any:
    """The run result an agent used as a tool recorded for ``call`` under ``scope``, removed from
    the SDK's record (None when it recorded none)."""
    return sdk_agent_tool_state.consume_agent_tool_run_result(call, scope_id=scope)
