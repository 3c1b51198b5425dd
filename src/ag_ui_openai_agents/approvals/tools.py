"""Internal: the server side of resuming approvals: which tools a call may mean, and running one.

A resumed call runs outside the SDK's run loop: :func:`run_approved` builds the ``ToolContext``
the SDK would, runs the tool's input guardrails, invokes the tool, runs its output guardrails and
converts its output as the SDK does (:mod:`.guardrails`).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    Handoff,
    ItemHelpers,
    RunConfig,
    RunContextWrapper,
    ToolApprovalItem,
    Usage,
    UserError,
)
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

from ag_ui_openai_agents import _sdk
from ag_ui_openai_agents.approvals.guardrails import checked_output, input_rejection
from ag_ui_openai_agents.approvals.history import HistoryCall
from ag_ui_openai_agents.approvals.interrupts import UnresumableApprovalError
from ag_ui_openai_agents.inbound.client_tools import is_client_tool
from ag_ui_openai_agents.inbound.tool_output import ResultPart, structured_text, tool_output_parts

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerTool:
    """A function tool one of the reachable agents owns."""

    key: tuple[object, ...]
    tool: FunctionTool
    owner: Agent[Any]


@dataclass
class Catalog:
    """The tools of an agent and of every agent reachable from it through handoffs."""

    by_name: dict[str, dict[tuple[object, ...], ServerTool]] = field(default_factory=dict)
    handoff_names: set[str] = field(default_factory=set)

    def add(self, tool: FunctionTool, owner: Agent[Any]) -> None:
        """Record a tool under its name (and its qualified name when namespaced)."""
        entry = ServerTool(_tool_key(tool, owner), tool, owner)
        for name in {tool.name, getattr(tool, "qualified_name", tool.name)}:
            self.by_name.setdefault(name, {}).setdefault(entry.key, entry)

    def candidates(self, name: str) -> list[ServerTool]:
        """Return the distinct tools that a call of ``name`` may have meant."""
        return list(self.by_name.get(name, {}).values())

    def knows(self, name: str) -> bool:
        """Tell whether ``name`` is a server tool or a handoff of a reachable agent."""
        return name in self.by_name or name in self.handoff_names


def _tool_key(tool: FunctionTool, owner: Agent[Any]) -> tuple[object, ...]:
    """Identify a tool: MCP tools by their server object, others by the tool object itself."""
    binding = _sdk.mcp_server_index(tool)
    if binding is not None and 0 <= binding[1] < len(owner.mcp_servers):
        server_tool_name, index = binding
        return ("mcp", id(owner.mcp_servers[index]), server_tool_name)
    return ("tool", id(tool))


async def catalog_tools(agent: Agent[Any], run_context: RunContextWrapper[Any]) -> Catalog:
    """Collect the tools of ``agent`` and, recursively, of its handoff targets."""
    catalog = Catalog()
    visited: dict[int, Agent[Any]] = {}
    unresolved: list[str] = []
    queue: list[Agent[Any]] = [agent]
    while queue:
        current = queue.pop(0)
        if id(current) in visited:
            continue
        visited[id(current)] = current
        for tool in await current.get_all_tools(run_context):
            # Client tool proxies (a per-request clone's) are the client's to answer.
            if isinstance(tool, FunctionTool) and not is_client_tool(tool):
                catalog.add(tool, current)
        for name, target, target_name in handoff_targets(current):
            catalog.handoff_names.add(name)
            if target is not None:
                queue.append(target)
            else:
                unresolved.append(target_name)
    known_names = {a.name for a in visited.values()}
    for name in unresolved:
        if name not in known_names:
            logger.warning("Handoff target %r could not be found; its tools are not resumed.", name)
    return catalog


def handoff_targets(agent: Agent[Any]) -> Iterator[tuple[str, Agent[Any] | None, str]]:
    """Yield (tool name, target agent or None, target name) for each handoff of ``agent``.

    A ``handoff(...)`` object keeps a weak reference to its target; a hand-built Handoff may
    not, and is then matched by name against the other agents found.
    """
    for item in agent.handoffs:
        if isinstance(item, Agent):
            yield Handoff.default_tool_name(item), item, item.name
        elif isinstance(item, Handoff):
            yield item.tool_name, _sdk.handoff_agent(item), item.agent_name


def may_need_approval(tool: FunctionTool) -> bool:
    """Tell whether a call of ``tool`` may have paused: always, or by a context-bound policy."""
    return tool.needs_approval is not False


def params_schema(candidates: Sequence[ServerTool]) -> dict[str, Any] | None:
    """The argument schema a call of these candidate tools takes (None when they differ)."""
    schemas = [c.tool.params_json_schema for c in candidates]
    return schemas[0] if schemas and all(s == schemas[0] for s in schemas) else None


async def paused_params_schemas(
    items: Sequence[ToolApprovalItem], run_context: RunContextWrapper[Any]
) -> dict[str, dict[str, Any]]:
    """The argument schema of each function tool the paused ``items`` name, by tool name.

    Read from the tools of the agents that paused (their MCP tools included); when listing an
    agent's tools fails, its static tools are used and the failure is logged.
    """
    schemas: dict[str, dict[str, Any]] = {}
    agents = {id(item.agent): item.agent for item in items}
    for agent in agents.values():
        try:
            tools: Sequence[Any] = await agent.get_all_tools(run_context)
        except Exception:
            logger.exception("Could not list the tools of agent %r.", agent.name)
            tools = agent.tools
        for tool in tools:
            if isinstance(tool, FunctionTool) and not is_client_tool(tool):
                for name in {tool.name, getattr(tool, "qualified_name", tool.name)}:
                    schemas.setdefault(name, tool.params_json_schema)
    return schemas


async def run_approved(
    call: HistoryCall,
    server_tool: ServerTool,
    *,
    arguments: str,
    context: Any,
    run_config: RunConfig,
    usage: Usage,
    parts: bool = False,
) -> str | list[ResultPart]:
    """Run an approved tool outside the run loop with ``arguments`` (the model's, or the ones a
    person edited) and return its result as text; with ``parts`` (a 1.0 client), a result with
    media as content parts, as a result of the run loop is shown.

    Its input guardrails run first: a rejection's message is the result and the tool does not
    run; a tripwire raises. Its output guardrails then see what it returned.
    """
    tool = server_tool.tool
    namespace = _sdk.tool_namespace(tool)
    raw_call = ResponseFunctionToolCall(
        type="function_call",
        call_id=call.call_id,
        name=tool.name,
        arguments=arguments,
        namespace=namespace,
    )
    tool_context: ToolContext[Any] = ToolContext(
        context=context,
        usage=Usage(),
        tool_name=tool.name,
        tool_call_id=call.call_id,
        tool_arguments=arguments,
        tool_call=raw_call,
        tool_namespace=namespace,
        agent=server_tool.owner,
        run_config=run_config,
    )
    agent = server_tool.owner
    rejection = await input_rejection(tool, tool_context, agent)
    if rejection is not None:
        return _output_text(tool, raw_call, rejection, bypass_schema=True)
    output = await _invoke(tool, tool_context, raw_call)
    usage.add(tool_context.usage)
    output, rejected = await checked_output(tool, tool_context, agent, output)
    text = _output_text(tool, raw_call, output, bypass_schema=rejected)
    shown = tool_output_parts(structured_text(text)) if parts else None
    return shown or text


async def _invoke(
    tool: FunctionTool, tool_context: ToolContext[Any], raw_call: ResponseFunctionToolCall
) -> Any:
    """Invoke ``tool`` and fail if an agent used as a tool paused inside for its own approval."""
    scope = f"agui-resume-{uuid.uuid4().hex}"
    _sdk.set_agent_tool_scope(tool_context, scope)
    output = await _sdk.invoke_function_tool(tool, tool_context, raw_call.arguments)
    nested = _sdk.consume_agent_tool_result(raw_call, scope)
    pending = nested.interruptions if nested is not None else None
    if pending:
        inner = ", ".join(sorted({str(getattr(i, "name", None) or "?") for i in pending}))
        raise UnresumableApprovalError(
            f"Approved tool {tool.name!r} runs an agent that paused for its own approval "
            f"({inner}); an approval inside an agent used as a tool cannot be resumed."
        )
    return output


def _output_text(
    tool: FunctionTool,
    raw_call: ResponseFunctionToolCall,
    output: Any,
    *,
    bypass_schema: bool = False,
) -> str:
    """Convert a tool's return value into the text the model is given, as the SDK does (a
    guardrail's rejection message skips the tool's output schema there too)."""
    if bypass_schema:
        return _item_text(ItemHelpers.tool_call_output_item(raw_call, output))
    try:
        item = ItemHelpers.tool_call_output_item(
            raw_call,
            output,
            output_json_schema=tool.output_json_schema,
            output_type_adapter=_sdk.output_type_adapter(tool),
        )
    except UserError:  # e.g. an error text from the failure handler, not the declared schema
        item = ItemHelpers.tool_call_output_item(raw_call, output)
    return _item_text(item)


def _item_text(item: Any) -> str:
    """The text of a converted tool output item."""
    converted = item["output"]
    return converted if isinstance(converted, str) else json.dumps(converted, default=str)
