"""Backend tool approval mapped onto AG-UI interrupts, resumed from the conversation alone.

A run that pauses on ``needs_approval`` tools ends with one AG-UI interrupt per paused call
(:func:`interrupts_from_result`). Nothing is kept on the server: the next request carries the
history, in which the paused calls have no result yet, plus resume entries answering the
interrupts. :func:`resume_tool_calls` answers those open calls before the model runs: it runs the
approved tools itself, gives rejected ones the SDK's rejection text, and reports what is still
undecided so the caller can end the run with the same interrupts again.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    Interrupt,
    Message,
    ResumeEntry,
    RunAgentInput,
    ToolCallResultEvent,
    ToolMessage,
)
from agents import Agent, FunctionTool, Handoff, RunConfig, RunContextWrapper, UserError
from agents.items import ItemHelpers, ToolApprovalItem
from agents.run_config import ToolErrorFormatterArgs
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall

from .hosted import HOSTED_CALL_TYPES
from .windows import result_message_id

try:  # Present in every supported SDK release; guarded so a refactor degrades gracefully.
    from agents import agent_tool_state as _agent_tool_state
except ImportError:  # pragma: no cover - depends on the installed SDK
    _agent_tool_state = None  # type: ignore[assignment]

try:
    from agents.tool import invoke_function_tool as _invoke_function_tool
except ImportError:  # pragma: no cover - depends on the installed SDK
    _invoke_function_tool = None  # type: ignore[assignment]

__all__ = [
    "ABANDONED_RESULT",
    "AMBIGUOUS_RESULT",
    "APPROVAL_RESPONSE_SCHEMA",
    "CANCELLED_RESULT",
    "TOOL_APPROVAL_REASON",
    "ResumedToolCalls",
    "UnresumableApprovalError",
    "approval_interrupt",
    "interrupts_from_result",
    "resume_tool_calls",
]

logger = logging.getLogger(__name__)

TOOL_APPROVAL_REASON = "tool_approval"
"""``Interrupt.reason`` of a paused backend tool call."""

APPROVAL_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
}
"""JSON schema of the answer an approval interrupt expects: ``{"approved": true | false}``."""

CANCELLED_RESULT = "CANCELLED"
"""Result given to a call whose interrupt the client cancelled."""

ABANDONED_RESULT = "ABANDONED"
"""Result given to an unfinished call that needed no approval, or whose tool is unknown."""

AMBIGUOUS_RESULT = "AMBIGUOUS"
"""Result given to an approved call whose name matches different tools of reachable agents."""


class UnresumableApprovalError(Exception):
    """An approval that cannot be resumed from the conversation history."""


@dataclass(frozen=True)
class ResumedToolCalls:
    """What :func:`resume_tool_calls` did to a request."""

    run_input: RunAgentInput
    """The request, with a tool message answering every call handled here."""
    open_interrupts: list[Interrupt]
    """Approvals nobody decided yet; while any is listed, the model must not be called."""
    events: list[ToolCallResultEvent]
    """One TOOL_CALL_RESULT per call answered here, in history order."""
    usage: Usage | None
    """Model usage of the tools run here (agents used as tools), or None if there was none."""


def approval_interrupt(call_id: str, tool_name: str, arguments: str) -> Interrupt:
    """Build the AG-UI interrupt asking to approve one paused tool call."""
    return Interrupt(
        id=call_id,
        reason=TOOL_APPROVAL_REASON,
        tool_call_id=call_id,
        response_schema=copy.deepcopy(APPROVAL_RESPONSE_SCHEMA),
        metadata={"tool_name": tool_name, "tool_input": _parse_arguments(arguments)},
    )


def interrupts_from_result(
    interruptions: Sequence[ToolApprovalItem], known_call_ids: Collection[str]
) -> list[Interrupt]:
    """Map a paused run's approval items to interrupts, one per paused call, in order.

    ``known_call_ids`` are the calls the conversation holds (the run's own calls and the
    history). Raises :class:`UnresumableApprovalError` for an approval that a later request could
    not resume: one of a built-in tool with its own executor, or one raised inside an agent used
    as a tool (its call id is not in the conversation).
    """
    interrupts: list[Interrupt] = []
    seen: set[str] = set()
    for item in interruptions:
        tool_name = item.tool_name or item.name or "<unnamed tool>"
        raw_type = _field(item.raw_item, "type")
        if raw_type != "function_call":
            raise UnresumableApprovalError(
                f"Tool {tool_name!r} needs approval but cannot be resumed: it is a built-in tool "
                f"({raw_type}) with its own executor, and only function tools are resumed from "
                "the conversation."
            )
        call_id = item.call_id
        if not call_id or call_id not in known_call_ids:
            raise UnresumableApprovalError(
                f"Tool {tool_name!r} needs approval but cannot be resumed: its call "
                f"({call_id}) was made inside an agent used as a tool, so the conversation does "
                "not hold it. Gate the agent tool itself or reach that agent by handoff."
            )
        if call_id not in seen:
            seen.add(call_id)
            interrupts.append(approval_interrupt(call_id, tool_name, item.arguments or ""))
    return interrupts


async def resume_tool_calls(
    agent: Agent[Any],
    run_input: RunAgentInput,
    *,
    context: Any = None,
    run_config: RunConfig | None = None,
) -> ResumedToolCalls:
    """Answer the tool calls the history left open, before the model runs again.

    Open calls of the agent's own tools (and of agents reachable through handoffs) are answered
    from ``run_input.resume``: an approval (payload ``{"approved": true}``) runs the tool, any
    other answer gives the SDK's rejection text, a cancelled interrupt gives ``CANCELLED``. A call
    that may need approval and has no entry stays open and is listed in ``open_interrupts``; an
    unfinished call that needed no approval gets ``ABANDONED``. Hosted calls and calls of client
    tools are left as they are. Stateless: replaying a request runs its approved tools again.
    """
    open_calls = [c for c in _open_calls(run_input.messages) if c.name not in HOSTED_CALL_TYPES]
    _warn_unmatched_entries(run_input.resume, open_calls)
    if not open_calls:
        return ResumedToolCalls(run_input=run_input, open_interrupts=[], events=[], usage=None)
    run_context: RunContextWrapper[Any] = RunContextWrapper(context=context)
    catalog = await _catalog_tools(agent, run_context)
    client_names = {tool.name for tool in run_input.tools or []}
    taken = {message.id for message in run_input.messages}
    resolver = _Resolver(catalog, context, run_config or RunConfig(), run_context, taken)
    for call in open_calls:
        if call.name in client_names and not catalog.knows(call.name):
            continue
        await resolver.resolve(call, _entry_for(call, open_calls, run_input.resume))
    return resolver.outcome(run_input)


# --------------------------------------------------------------------------- history


@dataclass(frozen=True)
class _HistoryCall:
    """One assistant tool call of the history, with where it sits."""

    message_index: int
    call_id: str
    name: str
    arguments: str


def _open_calls(messages: Sequence[Message]) -> list[_HistoryCall]:
    """Return the history's tool calls that no tool message answers, in order.

    A tool message answers the nearest earlier unanswered call with its id, so a provider that
    reuses call ids across turns still pairs each result with the right call.
    """
    pending: list[_HistoryCall] = []
    for index, message in enumerate(messages):
        if message.subagent_run_id is not None:
            continue  # a subagent's own calls: its agent tool answered for it
        if isinstance(message, AssistantMessage):
            pending.extend(
                _HistoryCall(index, tc.id, tc.function.name, tc.function.arguments)
                for tc in message.tool_calls or []
            )
        elif isinstance(message, ToolMessage):
            for position in range(len(pending) - 1, -1, -1):
                if pending[position].call_id == message.tool_call_id:
                    del pending[position]
                    break
    return pending


def _warn_unmatched_entries(
    resume: Sequence[ResumeEntry] | None, open_calls: Sequence[_HistoryCall]
) -> None:
    """Log each resume entry whose ``interruptId`` names no open call (it is ignored)."""
    open_ids = {call.call_id for call in open_calls}
    for entry in resume or []:
        if entry.interrupt_id not in open_ids:
            logger.warning(
                "Resume entry for interrupt %r ignored: no open interrupt has that id.",
                entry.interrupt_id,
            )


def _entry_for(
    call: _HistoryCall, open_calls: Sequence[_HistoryCall], resume: Sequence[ResumeEntry] | None
) -> ResumeEntry | None:
    """Return the resume entry answering ``call``, if any.

    An entry answers the latest open call with its id (the one the last run paused on); an
    earlier open call reusing that id waits for a later request.
    """
    latest = [c for c in open_calls if c.call_id == call.call_id][-1]
    if latest is not call:
        return None
    entries = [e for e in resume or [] if e.interrupt_id == call.call_id]
    return entries[-1] if entries else None


def _insert_results(
    messages: Sequence[Message], answers: dict[int, list[ToolMessage]]
) -> list[Message]:
    """Insert each answer right after the block (assistant message and its results) of its call."""
    merged: list[Message] = []
    waiting: list[ToolMessage] = []
    for index, message in enumerate(messages):
        if waiting and not isinstance(message, ToolMessage):
            merged.extend(waiting)
            waiting = []
        merged.append(message)
        waiting.extend(answers.get(index, []))
    merged.extend(waiting)
    return merged


# --------------------------------------------------------------------------- tools


@dataclass(frozen=True)
class _ServerTool:
    """A function tool one of the reachable agents owns."""

    key: tuple[object, ...]
    tool: FunctionTool
    owner: Agent[Any]


@dataclass
class _Catalog:
    """The tools of an agent and of every agent reachable from it through handoffs."""

    by_name: dict[str, dict[tuple[object, ...], _ServerTool]] = field(default_factory=dict)
    handoff_names: set[str] = field(default_factory=set)

    def add(self, tool: FunctionTool, owner: Agent[Any]) -> None:
        """Record a tool under its name (and its qualified name when namespaced)."""
        entry = _ServerTool(_tool_key(tool, owner), tool, owner)
        for name in {tool.name, getattr(tool, "qualified_name", tool.name)}:
            self.by_name.setdefault(name, {}).setdefault(entry.key, entry)

    def candidates(self, name: str) -> list[_ServerTool]:
        """Return the distinct tools that a call of ``name`` may have meant."""
        return list(self.by_name.get(name, {}).values())

    def knows(self, name: str) -> bool:
        """Tell whether ``name`` is a server tool or a handoff of a reachable agent."""
        return name in self.by_name or name in self.handoff_names


def _tool_key(tool: FunctionTool, owner: Agent[Any]) -> tuple[object, ...]:
    """Identify a tool: MCP tools by their server object, others by the tool object itself."""
    binding = getattr(tool, "_mcp_tool_binding", None)
    if isinstance(binding, tuple) and len(binding) == 3 and isinstance(binding[2], int):
        servers = owner.mcp_servers
        if 0 <= binding[2] < len(servers):
            return ("mcp", id(servers[binding[2]]), binding[1])
    return ("tool", id(tool))


async def _catalog_tools(agent: Agent[Any], run_context: RunContextWrapper[Any]) -> _Catalog:
    """Collect the tools of ``agent`` and, recursively, of its handoff targets."""
    catalog = _Catalog()
    visited: dict[int, Agent[Any]] = {}
    unresolved: list[str] = []
    queue: list[Agent[Any]] = [agent]
    while queue:
        current = queue.pop(0)
        if id(current) in visited:
            continue
        visited[id(current)] = current
        for tool in await current.get_all_tools(run_context):
            if isinstance(tool, FunctionTool):
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
            ref = getattr(item, "_agent_ref", None)
            target = ref() if callable(ref) else None
            yield item.tool_name, target if isinstance(target, Agent) else None, item.agent_name


def _may_need_approval(tool: FunctionTool) -> bool:
    """Tell whether a call of ``tool`` may have paused: always, or by a context-bound policy."""
    return tool.needs_approval is not False


# --------------------------------------------------------------------------- answering


class _Resolver:
    """Answers open calls one by one and gathers what the caller needs."""

    def __init__(
        self,
        catalog: _Catalog,
        context: Any,
        run_config: RunConfig,
        run_context: RunContextWrapper[Any],
        taken_ids: set[str],
    ) -> None:
        self._catalog = catalog
        self._context = context
        self._run_config = run_config
        self._run_context = run_context
        self._answers: dict[int, list[ToolMessage]] = {}
        self._events: list[ToolCallResultEvent] = []
        self._interrupts: dict[str, Interrupt] = {}
        self._usage = Usage()
        self._taken = taken_ids

    async def resolve(self, call: _HistoryCall, entry: ResumeEntry | None) -> None:
        """Answer ``call`` from its resume entry, or keep it open when it awaits a decision."""
        candidates = self._catalog.candidates(call.name)
        if entry is None:
            if any(_may_need_approval(c.tool) for c in candidates):
                interrupt = approval_interrupt(call.call_id, call.name, call.arguments)
                self._interrupts.setdefault(call.call_id, interrupt)
            else:
                self._answer(call, ABANDONED_RESULT)
        elif entry.status == "cancelled":
            self._answer(call, CANCELLED_RESULT)
        elif not _is_approval(entry.payload):
            self._answer(call, await self._rejection_text(call))
        elif len(candidates) > 1:
            self._answer(call, AMBIGUOUS_RESULT)
        elif not candidates:
            self._answer(call, ABANDONED_RESULT)
        else:
            self._answer(call, await self._run(call, candidates[0]))

    def outcome(self, run_input: RunAgentInput) -> ResumedToolCalls:
        """Return the request with its answers, and what remains open."""
        updated = run_input
        if self._answers:
            messages = _insert_results(run_input.messages, self._answers)
            updated = run_input.model_copy(update={"messages": messages})
        used = self._usage.requests > 0 or self._usage.total_tokens > 0
        return ResumedToolCalls(
            run_input=updated,
            open_interrupts=list(self._interrupts.values()),
            events=list(self._events),
            usage=self._usage if used else None,
        )

    def _answer(self, call: _HistoryCall, content: str) -> None:
        """Record the tool message and the event answering ``call``."""
        message_id = result_message_id(call.call_id, self._taken)
        self._answers.setdefault(call.message_index, []).append(
            ToolMessage(id=message_id, tool_call_id=call.call_id, content=content)
        )
        self._events.append(
            ToolCallResultEvent(
                message_id=message_id, tool_call_id=call.call_id, content=content, role="tool"
            )
        )

    async def _rejection_text(self, call: _HistoryCall) -> str:
        """Return the SDK's rejection text, through the run config's formatter when it has one."""
        formatter = self._run_config.tool_error_formatter
        if formatter is None:
            return DEFAULT_APPROVAL_REJECTION_MESSAGE
        try:
            message = formatter(
                ToolErrorFormatterArgs(
                    kind="approval_rejected",
                    tool_type="function",
                    tool_name=call.name,
                    call_id=call.call_id,
                    default_message=DEFAULT_APPROVAL_REJECTION_MESSAGE,
                    run_context=self._run_context,
                )
            )
            if inspect.isawaitable(message):
                message = await message
        except Exception:
            logger.exception("The tool error formatter failed; using the default rejection text.")
            return DEFAULT_APPROVAL_REJECTION_MESSAGE
        return message if isinstance(message, str) else DEFAULT_APPROVAL_REJECTION_MESSAGE

    async def _run(self, call: _HistoryCall, server_tool: _ServerTool) -> str:
        """Run an approved tool outside the run loop and return its result as text."""
        tool = server_tool.tool
        namespace = getattr(tool, "_tool_namespace", None)
        raw_call = ResponseFunctionToolCall(
            type="function_call",
            call_id=call.call_id,
            name=tool.name,
            arguments=call.arguments,
            namespace=namespace,
        )
        tool_context: ToolContext[Any] = ToolContext(
            context=self._context,
            usage=Usage(),
            tool_name=tool.name,
            tool_call_id=call.call_id,
            tool_arguments=call.arguments,
            tool_call=raw_call,
            tool_namespace=namespace,
            agent=server_tool.owner,
            run_config=self._run_config,
        )
        output = await _invoke(tool, tool_context, raw_call)
        self._usage.add(tool_context.usage)
        return _output_text(tool, raw_call, output)


def _is_approval(payload: Any) -> bool:
    """Tell whether a resume payload approves: exactly ``{"approved": true}``-shaped."""
    return isinstance(payload, dict) and payload.get("approved") is True


async def _invoke(
    tool: FunctionTool, tool_context: ToolContext[Any], raw_call: ResponseFunctionToolCall
) -> Any:
    """Invoke ``tool`` and fail if an agent used as a tool paused inside for its own approval."""
    scope = f"agui-resume-{uuid.uuid4().hex}"
    if _agent_tool_state is not None:
        _agent_tool_state.set_agent_tool_state_scope(tool_context, scope)
    if _invoke_function_tool is not None:
        output = await _invoke_function_tool(
            function_tool=tool, context=tool_context, arguments=raw_call.arguments
        )
    else:  # pragma: no cover - depends on the installed SDK
        output = await tool.on_invoke_tool(tool_context, raw_call.arguments)
    if _agent_tool_state is not None:
        nested = _agent_tool_state.consume_agent_tool_run_result(raw_call, scope_id=scope)
        pending = getattr(nested, "interruptions", None) if nested is not None else None
        if pending:
            inner = ", ".join(sorted({str(getattr(i, "name", None) or "?") for i in pending}))
            raise UnresumableApprovalError(
                f"Approved tool {tool.name!r} runs an agent that paused for its own approval "
                f"({inner}); an approval inside an agent used as a tool cannot be resumed."
            )
    return output


def _output_text(tool: FunctionTool, raw_call: ResponseFunctionToolCall, output: Any) -> str:
    """Convert a tool's return value into the text the model is given, as the SDK does."""
    try:
        item = ItemHelpers.tool_call_output_item(
            raw_call,
            output,
            output_json_schema=getattr(tool, "output_json_schema", None),
            output_type_adapter=getattr(tool, "_output_type_adapter", None),
        )
    except UserError:  # e.g. an error text from the failure handler, not the declared schema
        item = ItemHelpers.tool_call_output_item(raw_call, output)
    converted = item["output"]
    return converted if isinstance(converted, str) else json.dumps(converted, default=str)


def _parse_arguments(arguments: str) -> Any:
    """Parse tool arguments as JSON, keeping the raw string when they are not JSON."""
    try:
        return json.loads(arguments)
    except (TypeError, ValueError):
        return arguments


def _field(raw: Any, name: str) -> Any:
    """Read a field of a raw SDK item that may be a model or a dict."""
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)
