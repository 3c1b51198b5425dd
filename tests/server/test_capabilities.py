"""The AG-UI capabilities document: what it says about an agent, and the route serving it."""

from __future__ import annotations

from typing import Any

import httpx
from ag_ui.core import AgentCapabilities
from agents import (
    Agent,
    FunctionTool,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    function_tool,
    handoff,
    set_tracing_disabled,
)
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, Subagents, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.capabilities import agent_capabilities
from support.scripted import ScriptedProvider, ScriptedResponsesModel

set_tracing_disabled(True)


@function_tool
def lookup_order(order_id: str) -> str:
    """Find an order by id."""
    return f"order {order_id}"


@function_tool
def list_orders(limit: int = 10) -> str:
    """List recent orders."""
    return "none"


@function_tool(needs_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


async def _maybe(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
    return bool(params.get("amount", 0) > 100)


@function_tool(needs_approval=_maybe)
def pay(amount: int) -> str:
    """Pay an amount."""
    return f"paid {amount}"


def wrapped(agent: Agent[Any], **options: Any) -> OpenAIAgentsAgent:
    config = RunConfig(
        model_provider=ScriptedProvider(ScriptedResponsesModel()), tracing_disabled=True
    )
    return OpenAIAgentsAgent(agent, run_config=config, **options)


async def fetch_capabilities(wrapper: OpenAIAgentsAgent, path: str = "/agent") -> Any:
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapper, path)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get(f"{path}/capabilities")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def approvals(agent: Agent[Any]) -> tuple[bool | None, bool | None]:
    hitl = agent_capabilities(agent).human_in_the_loop
    assert hitl is not None
    return hitl.approvals, hitl.interrupts


# --- the route -------------------------------------------------------------------------------


async def test_the_capabilities_route_serves_a_valid_document_describing_the_agent() -> None:
    agent = Agent(name="shop", instructions="Help.", tools=[lookup_order, list_orders])
    wrapper = wrapped(agent, name="Shop assistant", description="Answers order questions.")

    document = await fetch_capabilities(wrapper)

    caps = AgentCapabilities.model_validate(document)
    assert caps == wrapper.capabilities()
    assert "humanInTheLoop" in document and "human_in_the_loop" not in document
    assert caps.identity is not None
    assert caps.identity.name == "Shop assistant"
    assert caps.identity.description == "Answers order questions."
    assert caps.transport is not None and caps.transport.streaming is True
    assert caps.tools is not None and caps.tools.supported is True
    assert caps.tools.client_provided is True
    items = {tool.name: tool for tool in caps.tools.items or []}
    assert set(items) == {"lookup_order", "list_orders"}
    for tool in (lookup_order, list_orders):
        assert items[tool.name].description == tool.description
        assert items[tool.name].parameters == tool.params_json_schema
    assert caps.human_in_the_loop is not None
    assert caps.human_in_the_loop.approvals is False
    assert caps.human_in_the_loop.interrupts is False


async def test_the_route_reports_approvals_when_a_tool_needs_approval() -> None:
    agent = Agent(name="billing", instructions="Bill.", tools=[lookup_order, issue_refund])

    caps = AgentCapabilities.model_validate(await fetch_capabilities(wrapped(agent), "/billing"))

    assert caps.human_in_the_loop is not None
    assert caps.human_in_the_loop.approvals is True
    assert caps.human_in_the_loop.interrupts is True
    assert caps.tools is not None
    assert {tool.name for tool in caps.tools.items or []} == {"lookup_order", "issue_refund"}


async def test_each_mounted_agent_serves_its_own_capabilities() -> None:
    app = FastAPI()
    shop = Agent(name="shop", instructions="Help.", tools=[lookup_order])
    billing = Agent(name="billing", instructions="Bill.", tools=[issue_refund])
    add_openai_agents_fastapi_endpoint(app, wrapped(shop), "/agents/shop")
    add_openai_agents_fastapi_endpoint(app, wrapped(billing), "/agents/billing")
    transport = httpx.ASGITransport(app=app)

    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        docs = {
            name: AgentCapabilities.model_validate(
                (await client.get(f"/agents/{name}/capabilities")).json()
            )
            for name in ("shop", "billing")
        }

    assert docs["shop"].identity is not None and docs["shop"].identity.name == "shop"
    assert docs["billing"].identity is not None and docs["billing"].identity.name == "billing"
    assert docs["shop"].human_in_the_loop is not None
    assert docs["shop"].human_in_the_loop.approvals is False
    assert docs["billing"].human_in_the_loop is not None
    assert docs["billing"].human_in_the_loop.approvals is True


# --- what the document says ------------------------------------------------------------------


def test_no_tools_means_no_tool_items() -> None:
    caps = agent_capabilities(Agent(name="plain", instructions="Chat."))
    assert caps.tools is not None
    assert not caps.tools.items
    assert caps.tools.client_provided is True
    assert caps.multi_agent is not None and caps.multi_agent.handoffs is False


def test_an_agent_used_as_a_tool_is_listed_as_a_function_tool() -> None:
    helper = Agent(name="helper", instructions="Help.")
    agent_tool = helper.as_tool(tool_name="ask_helper", tool_description="Ask the helper.")
    assert isinstance(agent_tool, FunctionTool)

    caps = agent_capabilities(Agent(name="main", tools=[agent_tool]))

    assert caps.tools is not None
    assert [(t.name, t.description) for t in caps.tools.items or []] == [
        ("ask_helper", "Ask the helper.")
    ]


def test_callable_approval_policies_count_as_approvals() -> None:
    assert approvals(Agent(name="payer", tools=[pay])) == (True, True)


def test_an_agent_tool_gated_by_approval_counts_as_approvals() -> None:
    helper = Agent(name="helper", instructions="Help.")
    gated = helper.as_tool(tool_name="ask_helper", tool_description="Ask.", needs_approval=True)
    assert approvals(Agent(name="main", tools=[gated])) == (True, True)


def test_approvals_of_a_plain_handoff_target_are_reported() -> None:
    billing = Agent(name="billing", instructions="Bill.", tools=[issue_refund])
    triage = Agent(name="triage", instructions="Route.", handoffs=[billing])

    assert approvals(triage) == (True, True)
    caps = agent_capabilities(triage)
    assert caps.multi_agent is not None
    assert caps.multi_agent.supported is True and caps.multi_agent.handoffs is True
    # Only the agent's own tools are listed, not the handoff target's.
    assert caps.tools is not None and not caps.tools.items


def test_approvals_two_handoffs_deep_and_through_cycles_are_reported() -> None:
    billing = Agent(name="billing", instructions="Bill.", tools=[issue_refund])
    support = Agent(name="support", instructions="Support.", handoffs=[billing])
    triage = Agent(name="triage", instructions="Route.", handoffs=[support])
    support.handoffs.append(triage)  # a cycle must not loop forever

    assert approvals(triage) == (True, True)


def test_approvals_behind_a_handoff_object_are_reported() -> None:
    billing = Agent(name="billing", instructions="Bill.", tools=[issue_refund])
    triage = Agent(name="triage", instructions="Route.", handoffs=[handoff(billing)])

    assert approvals(triage) == (True, True)


def test_settings_shape_parallel_calls_and_encrypted_reasoning() -> None:
    plain = agent_capabilities(Agent(name="a", tools=[lookup_order]))
    tuned = agent_capabilities(
        Agent(
            name="b",
            tools=[lookup_order],
            model_settings=ModelSettings(
                parallel_tool_calls=False, response_include=["reasoning.encrypted_content"]
            ),
        )
    )

    assert plain.tools is not None and plain.tools.parallel_calls is True
    assert plain.reasoning is not None and plain.reasoning.encrypted is False
    assert tuned.tools is not None and tuned.tools.parallel_calls is False
    assert tuned.reasoning is not None and tuned.reasoning.encrypted is True


def test_wrapper_name_and_description_default_to_the_agent() -> None:
    agent = Agent(name="shop", handoff_description="Handles orders.", tools=[lookup_order])

    caps = wrapped(agent).capabilities()

    assert caps.identity is not None
    assert caps.identity.name == "shop"
    assert caps.identity.description == "Handles orders."
    assert AgentCapabilities.model_validate(caps.model_dump(by_alias=True)) == caps


@function_tool(is_enabled=False)
def retired_tool() -> str:
    """A tool switched off for every run."""
    return "never offered"


def test_a_tool_disabled_for_every_run_is_not_advertised() -> None:
    caps = agent_capabilities(Agent(name="shop", tools=[lookup_order, retired_tool]))

    assert caps.tools is not None
    assert [tool.name for tool in caps.tools.items or []] == ["lookup_order"]


async def test_agent_tools_streaming_as_subagents_are_listed_as_subagents() -> None:
    from ag_ui_openai_agents import subagent_events

    researcher = Agent(name="Researcher", instructions="R.", handoff_description="Finds facts.")
    writer = Agent(name="Writer", instructions="W.")
    quiet = Agent(name="Quiet", instructions="Q.")
    manager = Agent(
        name="manager",
        tools=[
            researcher.as_tool(
                tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
            ),
            writer.as_tool(
                tool_name="write_prose", tool_description="Write.", on_stream=subagent_events
            ),
            quiet.as_tool(tool_name="stay_quiet", tool_description="Not streamed."),
        ],
    )
    caps = AgentCapabilities.model_validate(await fetch_capabilities(wrapped(manager)))
    multi = caps.multi_agent
    assert multi is not None and multi.supported and multi.delegation
    assert [(s.name, s.description) for s in multi.subagents or []] == [
        ("Researcher", "Finds facts."),
        ("Writer", "Write."),
    ]
    plain = agent_capabilities(
        Agent(name="m", tools=[quiet.as_tool(tool_name="q", tool_description="Q")])
    )
    assert plain.multi_agent is not None and plain.multi_agent.subagents is None
    assert not plain.multi_agent.supported and plain.multi_agent.delegation is None


async def test_custom_says_which_requests_the_subagents_stream_to() -> None:
    from ag_ui_openai_agents import subagent_events

    researcher = Agent(name="Researcher", instructions="R.")
    tool = researcher.as_tool(
        tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
    )
    manager = Agent(name="manager", tools=[tool])
    default = await fetch_capabilities(wrapped(manager))
    opted = await fetch_capabilities(wrapped(manager, subagents=Subagents(pre_1_0_clients=True)))
    assert default["custom"]["subagent_events"] == "1.0"  # requests declaring AG-UI 1.0 only
    assert opted["custom"]["subagent_events"] == "all"  # and those without protocolVersion
    plain = agent_capabilities(Agent(name="m", tools=[lookup_order]))
    assert plain.custom is not None and "subagent_events" not in plain.custom
