"""The SDK's private names read in ``ag_ui_openai_agents._sdk`` still exist and mean the same.

Each test builds the real SDK object the package meets and checks the read against what the
SDK itself does with the name, so a rename or a change of meaning fails here.
"""

from __future__ import annotations

import copy
from typing import Any

from agents import (
    Agent,
    AgentToolStreamEvent,
    FunctionTool,
    RunContextWrapper,
    WebSearchTool,
    function_tool,
    handoff,
    tool_namespace,
)
from agents.handoffs import Handoff
from agents.items import ItemHelpers
from openai.types.responses import ResponseFunctionToolCall
from pydantic import BaseModel

from ag_ui_openai_agents import _sdk
from support.mcp import FakeMCPServer
from support.scripted import run_streamed
from support.scripted_specs import Text, Turn


async def test_cancel_mode_follows_cancel() -> None:
    result, _ = run_streamed(Agent(name="a"), "hello", turns=[Turn([Text("hi")])])
    assert _sdk.cancel_mode(result) == "none"
    result.cancel(mode="after_turn")
    assert _sdk.cancel_mode(result) == "after_turn"
    result.cancel()
    assert _sdk.cancel_mode(result) == "immediate"
    async for _ in result.stream_events():
        pass


@function_tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


def on_stream(event: AgentToolStreamEvent) -> None:
    """A stream callback for an agent used as a tool."""


def test_an_agent_used_as_a_tool_is_told_apart_and_names_its_agent() -> None:
    specialist = Agent(name="specialist")
    tool = specialist.as_tool(tool_name="ask", tool_description="Ask the specialist.")

    assert _sdk.is_agent_tool(tool)
    assert _sdk.tool_agent(tool) is specialist
    assert not _sdk.is_agent_tool(lookup)
    assert _sdk.tool_agent(lookup) is None
    assert not _sdk.is_agent_tool(WebSearchTool())
    assert _sdk.tool_agent(WebSearchTool()) is None


def test_the_stream_callback_of_an_agent_tool_is_the_one_it_was_built_with() -> None:
    specialist = Agent(name="specialist")
    streaming = specialist.as_tool(tool_name="ask", tool_description="Ask.", on_stream=on_stream)
    silent = specialist.as_tool(tool_name="ask_quietly", tool_description="Ask.")

    assert _sdk.agent_tool_stream_callback(streaming) is on_stream
    assert _sdk.agent_tool_stream_callback(copy.copy(streaming)) is on_stream
    assert _sdk.agent_tool_stream_callback(silent) is None
    assert _sdk.agent_tool_stream_callback(lookup) is None
    assert _sdk.agent_tool_stream_callback(WebSearchTool()) is None


async def test_an_mcp_tool_names_its_server_by_index_and_its_tool_name_there() -> None:
    agent = Agent(
        name="support",
        mcp_servers=[
            FakeMCPServer("billing", ["refund"], require_approval=None),
            FakeMCPServer("store", ["restock"], require_approval=None),
        ],
    )
    tools = await agent.get_all_tools(RunContextWrapper(context=None))
    mcp_tools = [t for t in tools if isinstance(t, FunctionTool)]

    assert [_sdk.mcp_server_index(t) for t in mcp_tools] == [("refund", 0), ("restock", 1)]
    assert _sdk.mcp_server_index(lookup) is None


def test_a_handoff_object_leads_to_its_agent_and_a_hand_built_one_to_none() -> None:
    billing = Agent(name="billing")
    built = handoff(billing)

    assert _sdk.handoff_agent(built) is billing

    async def invoke(context: Any, arguments: str) -> Agent[Any]:
        return billing

    by_hand: Handoff[Any, Any] = Handoff(
        tool_name="to_billing",
        tool_description="Hand off.",
        input_json_schema={},
        on_invoke_handoff=invoke,
        agent_name="billing",
    )
    assert _sdk.handoff_agent(by_hand) is None


def test_a_namespaced_tool_names_its_namespace() -> None:
    [namespaced] = tool_namespace(name="crm", description="CRM tools.", tools=[lookup])

    assert _sdk.tool_namespace(namespaced) == "crm"
    assert namespaced.qualified_name == "crm.lookup"
    assert _sdk.tool_namespace(lookup) is None


class Quote(BaseModel):
    """A structured tool output."""

    price: int


def test_the_output_adapter_of_a_tool_converts_its_output_as_the_sdk_does() -> None:
    @function_tool(output_type=Quote)
    def quote() -> Quote:
        """Quote a price."""
        return Quote(price=3)

    adapter = _sdk.output_type_adapter(quote)
    call = ResponseFunctionToolCall(type="function_call", call_id="c", name="quote", arguments="")
    loose = {"price": "3"}
    item = ItemHelpers.tool_call_output_item(
        call, loose, output_json_schema=quote.output_json_schema, output_type_adapter=adapter
    )

    assert adapter is not None
    assert item["output"] == '{"price":3}', "the adapter validates and dumps the output"
    assert ItemHelpers.tool_call_output_item(call, loose)["output"] != item["output"]
    assert _sdk.output_type_adapter(lookup) is None
