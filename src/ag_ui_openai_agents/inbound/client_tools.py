"""Internal: client-owned tools: request-scoped proxies for the tools an AG-UI client declares.

The model may call a tool from ``RunAgentInput.tools``, but only the client can run it. Its
proxy therefore does no work: it returns a :class:`ClientToolCall` marker. The agent's
``tool_use_behavior``, wrapped by :func:`stop_at_client_tools`, ends the run as soon as a client
tool has been called, so no further model call sees the marker. The outbound translator
recognises the marker with :func:`is_client_tool_output`, emits no ``TOOL_CALL_RESULT`` for it and
reports the call as pending; the client answers it with a ``ToolMessage`` in its next request.

Why a ``tool_use_behavior`` and not something the tool does itself: a function tool has no way to
end the run on its own in the Agents SDK. The run ends after tools only through the agent's
``tool_use_behavior`` (``stop_on_first_tool``, ``StopAtTools`` or a callable), or pauses before
a tool through ``needs_approval``, and the latter is reserved here for backend approvals, which
become AG-UI interrupts. A callable behaviour is the one form that can combine "stop when a client
tool ran" with whatever behaviour the agent already had.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
from collections.abc import Iterable
from typing import Any, Literal, TypeAlias

from agents import FunctionTool, FunctionToolResult, RunContextWrapper
from agents.agent import StopAtTools, ToolsToFinalOutputFunction, ToolsToFinalOutputResult
from agents.tool_context import ToolContext

logger = logging.getLogger(__name__)

ToolUseBehavior: TypeAlias = (
    Literal["run_llm_again", "stop_on_first_tool"] | StopAtTools | ToolsToFinalOutputFunction[Any]
)
"""Everything ``Agent.tool_use_behavior`` accepts."""

CLIENT_TOOL_PENDING_TEXT = "The application runs this tool; its result follows in a later message."
"""The text a :class:`ClientToolCall` carries, which is what its output reads as."""

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_NOT_FINAL = ToolsToFinalOutputResult(is_final_output=False, final_output=None)


class ClientToolCall(str):
    """What a client tool proxy returns: a marker that the call is the client's to answer.

    It is a ``str`` so the SDK stores it like any text output; its value is
    :data:`CLIENT_TOOL_PENDING_TEXT`. ``tool_name``, ``call_id`` and ``arguments`` describe the
    call it stands for.
    """

    tool_name: str
    call_id: str
    arguments: str

    def __new__(cls, tool_name: str, call_id: str, arguments: str) -> ClientToolCall:
        """Create the marker for one call of the client tool ``tool_name``."""
        marker = super().__new__(cls, CLIENT_TOOL_PENDING_TEXT)
        marker.tool_name = tool_name
        marker.call_id = call_id
        marker.arguments = arguments
        return marker

    def __reduce__(self) -> tuple[type[ClientToolCall], tuple[str, str, str]]:
        """Copy and pickle through the constructor, keeping the call details."""
        return (ClientToolCall, (self.tool_name, self.call_id, self.arguments))

    def __repr__(self) -> str:
        return f"ClientToolCall(tool_name={self.tool_name!r}, call_id={self.call_id!r})"


def is_client_tool_output(value: object) -> bool:
    """Tell whether a tool output is a client tool's marker rather than a real result."""
    return isinstance(value, ClientToolCall)


class ClientToolInvoker:
    """The ``on_invoke_tool`` of a client tool proxy: returns a :class:`ClientToolCall`."""

    __slots__ = ("tool_name",)

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name

    async def __call__(self, context: ToolContext[Any], arguments: str) -> ClientToolCall:
        """Record the call without running anything."""
        return ClientToolCall(self.tool_name, context.tool_call_id, arguments)


def is_client_tool(tool: object) -> bool:
    """Tell whether an SDK tool is a client tool proxy made by :func:`create_client_tool`."""
    return isinstance(tool, FunctionTool) and isinstance(tool.on_invoke_tool, ClientToolInvoker)


def client_tool_schema(parameters: Any) -> dict[str, Any]:
    """The JSON Schema for a client tool's arguments, copied from what the client declared.

    A missing or empty schema means "no arguments" (an empty object schema). A schema sent as a
    JSON string is parsed. Anything that is not a JSON object is replaced by the empty object
    schema, with a warning.
    """
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except ValueError:
            logger.warning("Client tool schema is not valid JSON; using an empty object schema.")
            return copy.deepcopy(_EMPTY_OBJECT_SCHEMA)
    if parameters is None or parameters == {}:
        return copy.deepcopy(_EMPTY_OBJECT_SCHEMA)
    if not isinstance(parameters, dict):
        logger.warning("Client tool schema is not a JSON object; using an empty object schema.")
        return copy.deepcopy(_EMPTY_OBJECT_SCHEMA)
    return copy.deepcopy(parameters)


def create_client_tool(name: str, description: str, parameters: Any = None) -> FunctionTool:
    """Build the request-scoped proxy for one client tool.

    The schema is kept as the client wrote it (``strict_json_schema=False``: strict mode would
    reject or rewrite many ordinary client schemas).
    """
    return FunctionTool(
        name=name,
        description=description,
        params_json_schema=client_tool_schema(parameters),
        on_invoke_tool=ClientToolInvoker(name),
        strict_json_schema=False,
    )


def _is_client_result(result: FunctionToolResult, names: frozenset[str]) -> bool:
    return is_client_tool_output(result.output) or result.tool.name in names


def _stops_at(result: FunctionToolResult, names: Iterable[str]) -> bool:
    wanted = set(names)
    tool = result.tool
    return tool.name in wanted or getattr(tool, "qualified_name", tool.name) in wanted


async def apply_tool_use_behavior(
    behavior: ToolUseBehavior,
    context: RunContextWrapper[Any],
    results: list[FunctionToolResult],
) -> ToolsToFinalOutputResult:
    """Decide as the SDK does for ``behavior`` whether ``results`` end the run."""
    if not results or behavior == "run_llm_again":
        return _NOT_FINAL
    if behavior == "stop_on_first_tool":
        return ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)
    if isinstance(behavior, dict):
        names = behavior.get("stop_at_tool_names", [])
        for result in results:
            if _stops_at(result, names):
                return ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
        return _NOT_FINAL
    decision = behavior(context, results)
    if inspect.isawaitable(decision):
        decision = await decision
    return decision


def stop_at_client_tools(
    behavior: ToolUseBehavior, client_tool_names: Iterable[str]
) -> ToolUseBehavior:
    """Wrap an agent's ``tool_use_behavior`` so the run ends once a client tool was called.

    ``client_tool_names`` are the client tools installed on the agent (server tools of the same
    name must already have been excluded). When a batch of tool results contains a client call,
    the run ends with that call's marker as final output; otherwise ``behavior`` decides as
    before. With no client tools, ``behavior`` is returned unchanged.
    """
    names = frozenset(client_tool_names)
    if not names:
        return behavior

    async def stop_or_delegate(
        context: RunContextWrapper[Any], results: list[FunctionToolResult]
    ) -> ToolsToFinalOutputResult:
        for result in results:
            if _is_client_result(result, names):
                return ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
        return await apply_tool_use_behavior(behavior, context, results)

    return stop_or_delegate
