"""Internal: every private name of the OpenAI Agents SDK this package reads, in one place.

The SDK offers no public way to learn these facts. Each function here reads one private name
directly, with no silent default, so an SDK release that renames it fails the drift tests in
``tests/test_sdk_drift.py`` instead of quietly changing behaviour. Where a name exists only on
some kinds of object, the public type decides first and the read follows unguarded.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from agents import Agent, FunctionTool, Handoff
from agents.result import RunResultStreaming
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
