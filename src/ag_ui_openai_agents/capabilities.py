"""Internal: the AG-UI capabilities document of an SDK agent (``GET <path>/capabilities``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ag_ui.core import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    MultiAgentCapabilities,
    MultimodalCapabilities,
    MultimodalInputCapabilities,
    ReasoningCapabilities,
    StateCapabilities,
    SubagentInfo,
    Tool,
    ToolsCapabilities,
    TransportCapabilities,
)
from agents import Agent, FunctionTool

from ag_ui_openai_agents import _sdk
from ag_ui_openai_agents.approvals.options import Approvals
from ag_ui_openai_agents.approvals.tools import handoff_targets
from ag_ui_openai_agents.options import StateUpdates, Subagents
from ag_ui_openai_agents.protocol import HOSTED_CALL_TYPES
from ag_ui_openai_agents.state import PredictState
from ag_ui_openai_agents.subagents import streams_as_subagent


def _reachable(agent: Agent[Any]) -> Iterator[Agent[Any]]:
    """The agent and every agent reachable from it through handoffs (plain or ``handoff()``)."""
    seen: set[int] = set()
    stack = [agent]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(target for _, target, _ in handoff_targets(current) if target is not None)


def _needs_approval(tool: Any) -> bool:
    policy = getattr(tool, "needs_approval", False)
    return bool(policy) or callable(policy)


def has_approval_tools(agent: Agent[Any]) -> bool:
    """Whether ``agent`` or an agent reachable through its handoffs has a static tool that may
    pause for approval (``needs_approval`` true or a callable policy)."""
    return bool(_gated_tool_names(agent))


def _gated_tool_names(agent: Agent[Any]) -> set[str]:
    """The names of the static tools of ``agent`` (and of the agents it hands off to) that may
    pause for approval."""
    return {
        getattr(t, "name", "") for a in _reachable(agent) for t in a.tools if _needs_approval(t)
    }


def _tool(tool: FunctionTool) -> Tool:
    return Tool(
        name=tool.name, description=tool.description or "", parameters=tool.params_json_schema
    )


def _subagents(agent: Agent[Any]) -> list[SubagentInfo]:
    """The agents that run as tools of ``agent`` (or of its handoff targets) and stream as
    subagents, once each by name."""
    found: dict[str, SubagentInfo] = {}
    for owner in _reachable(agent):
        for tool in owner.tools:
            inner = _sdk.tool_agent(tool)
            if inner is None or not streams_as_subagent(tool) or inner.name in found:
                continue
            description = inner.handoff_description or getattr(tool, "description", "") or None
            found[inner.name] = SubagentInfo(name=inner.name, description=description)
    return list(found.values())


SUBAGENT_EVENTS_KEY = "subagent_events"
"""The ``custom`` key saying which requests get the ``SUBAGENT_*`` events (AG-UI has no field)."""


def agent_capabilities(
    agent: Agent[Any],
    *,
    name: str | None = None,
    description: str | None = None,
    subagents: Subagents | None = None,
    state: StateUpdates | None = None,
    approvals: Approvals | None = None,
    a2ui_tool: str | None = None,
    persistent_state: bool = False,
) -> AgentCapabilities:
    """Describe what this adapter does for ``agent``: tools, streaming, reasoning, state, HITL.

    AG-UI's capabilities have no field for predictive state, A2UI or who gets subagent events:
    the declarations are listed under ``custom["predictive_state"]``, as the ``PredictState``
    event carries them, the tool that generates A2UI surfaces (for requests the A2UI
    middleware marks) under ``custom["a2ui"]``, and which requests get the ``SUBAGENT_*``
    events under ``custom["subagent_events"]`` ("1.0", or "all" with
    ``Subagents(pre_1_0_clients=True)``). ``approveWithEdits`` is true when a gated tool is
    among those ``approvals`` makes editable. ``persistent_state``: threads (their state
    included) are kept on the server."""
    subagent_settings = subagents or Subagents()
    state_settings = state or StateUpdates()
    streamed = _subagents(agent)
    return AgentCapabilities(
        identity=IdentityCapabilities(
            name=name or agent.name,
            type="openai-agents",
            description=description or None,
        ),
        transport=TransportCapabilities(streaming=True),
        tools=_tools(agent),
        state=StateCapabilities(
            snapshots=True,
            deltas=state_settings.deltas,
            persistent_state=persistent_state or None,
        ),
        multi_agent=MultiAgentCapabilities(
            supported=bool(agent.handoffs or streamed),
            delegation=bool(streamed) or None,
            handoffs=bool(agent.handoffs),
            subagents=streamed or None,
        ),
        reasoning=_reasoning(agent),
        multimodal=MultimodalCapabilities(
            input=MultimodalInputCapabilities(
                image=True, audio=True, pdf=True, file=True, video=False
            )
        ),
        human_in_the_loop=_human_in_the_loop(agent, approvals),
        custom=_custom(
            # The A2UI render call streams as a subagent too.
            subagent_settings.pre_1_0_clients if streamed or a2ui_tool else None,
            state_settings.predictive,
            a2ui_tool,
        ),
    )


def _tools(agent: Agent[Any]) -> ToolsCapabilities:
    # A tool switched off with ``is_enabled=False`` is never offered to the model.
    tools = [t for t in agent.tools if isinstance(t, FunctionTool) and t.is_enabled is not False]
    settings = agent.model_settings
    return ToolsCapabilities(
        supported=True,
        items=[_tool(tool) for tool in tools] or None,
        parallel_calls=settings.parallel_tool_calls is not False if settings else True,
        client_provided=True,
    )


def _reasoning(agent: Agent[Any]) -> ReasoningCapabilities:
    settings = agent.model_settings
    includes = [str(i) for i in (settings.response_include or [])] if settings else []
    return ReasoningCapabilities(
        supported=True, streaming=True, encrypted="reasoning.encrypted_content" in includes
    )


def _human_in_the_loop(
    agent: Agent[Any], approvals: Approvals | None
) -> HumanInTheLoopCapabilities:
    """Approvals and interrupts for gated tools; edits for the gated tools made editable
    (their interrupts accept ``editedArgs``, checked against the tool's schema)."""
    gated = _gated_tool_names(agent)
    editable = approvals is not None and any(approvals.may_edit(name) for name in gated)
    return HumanInTheLoopCapabilities(
        supported=True,
        approvals=bool(gated),
        interrupts=bool(gated),
        approve_with_edits=editable,
    )


def _custom(
    subagents_for_pre_1_0_clients: bool | None,
    predictive_state: Sequence[PredictState],
    a2ui_tool: str | None,
) -> dict[str, Any]:
    """What AG-UI's capabilities have no field for: hosted call types, who sees subagents
    (None: the agent has none), predictive state, A2UI."""
    custom: dict[str, Any] = {"hosted_call_types": sorted(HOSTED_CALL_TYPES)}
    if subagents_for_pre_1_0_clients is not None:
        # "1.0": only requests declaring AG-UI 1.0; "all": those without protocolVersion too.
        custom[SUBAGENT_EVENTS_KEY] = "all" if subagents_for_pre_1_0_clients else "1.0"
    if predictive_state:
        custom["predictive_state"] = [mapping.payload() for mapping in predictive_state]
    if a2ui_tool is not None:
        custom["a2ui"] = {"generate_tool": a2ui_tool}
    return custom
