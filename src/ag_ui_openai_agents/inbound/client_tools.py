"""Internal: client-owned tools: request-scoped proxies for the tools an AG-UI client declares.

The model may call a tool from ``RunAgentInput.tools``, but only the client can run it. Its
proxy is built with ``needs_approval=True``, so the Agents SDK itself pauses the run at the turn
in which the model called it: the proxy never runs, the turn's other tools do, and the SDK starts
no further model call while a call awaits approval. That holds whoever reads the stream and
however its reader is scheduled (the SDK decides it inside the turn, before the next model call,
without waiting for any consumer), and whatever ``tool_use_behavior`` the agent has, so adding
the proxies to a per-request clone of the agent is all a caller does.

``to_agui`` tells such a pause from a backend approval with :func:`is_client_tool_approval`: it
reports the client's calls as pending (``RUN_FINISHED.outcome.pending_tool_call_ids``) instead
of as interrupts, and the client answers each with a ``ToolMessage`` in its next request. Should
a proxy be invoked anyway (run outside the SDK loop), it does no work and says so.
"""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

from agents import FunctionTool, ToolApprovalItem
from agents.tool_context import ToolContext

from ag_ui_openai_agents.log_lines import summarise_repeats

logger = summarise_repeats(logging.getLogger(__name__))

CLIENT_TOOL_PENDING_TEXT = "The application runs this tool; its result follows in a later message."
"""What a proxy answers should it ever be invoked: the call is the client's to answer."""

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class ClientToolInvoker:
    """The ``on_invoke_tool`` of a client tool proxy: it runs nothing (the client does)."""

    __slots__ = ("tool_name",)

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name

    async def __call__(self, context: ToolContext[Any], arguments: str) -> str:
        """Run nothing: the call is the client's to answer."""
        return CLIENT_TOOL_PENDING_TEXT


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
    reject or rewrite many ordinary client schemas). ``needs_approval=True`` makes the SDK pause
    the run at the call instead of running the proxy (see the module docstring).
    """
    return FunctionTool(
        name=name,
        description=description,
        params_json_schema=client_tool_schema(parameters),
        on_invoke_tool=ClientToolInvoker(name),
        strict_json_schema=False,
        needs_approval=True,
    )


def is_client_tool_approval(item: ToolApprovalItem) -> bool:
    """Tell whether a paused call awaits a client tool (the client answers it, not a person)."""
    return any(is_client_tool(t) and t.name == item.tool_name for t in item.agent.tools)
