"""The SDK's private names read in ``ag_ui_openai_agents._sdk`` still exist and mean the same.

Each test builds the real SDK object the package meets and checks the read against what the
SDK itself does with the name, so a rename or a change of meaning fails here.
"""

from __future__ import annotations

import ast
import asyncio
import copy
from pathlib import Path
from typing import Any

import agents
from agents import (
    Agent,
    AgentToolStreamEvent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Usage,
    WebSearchTool,
    function_tool,
    handoff,
    tool_namespace,
)
from agents.handoffs import Handoff
from agents.items import ItemHelpers
from agents.models.chatcmpl_converter import Converter
from agents.tool import default_tool_timeout_error_message
from agents.tool_context import ToolContext
from openai.types.chat import ChatCompletionMessage
from openai.types.responses import ResponseFunctionToolCall
from pydantic import BaseModel

from ag_ui_openai_agents import _sdk
from support.mcp import FakeMCPServer
from support.scripted import ScriptedProvider, ScriptedResponsesModel, collect, run_streamed
from support.scripted_specs import Call, Text, Turn


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


def test_the_placeholder_id_is_the_one_the_sdk_gives_items_a_model_left_without_id() -> None:
    message = ChatCompletionMessage(role="assistant", content="Hello.")
    [item] = Converter.message_to_output_items(message)

    assert item.id == _sdk.fake_responses_id()


@function_tool(needs_approval=True)
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"Refunded {order_id}"


async def test_a_rejected_call_gives_the_model_the_rejection_message() -> None:
    agent = Agent(name="support", tools=[refund])
    model = ScriptedResponsesModel(
        [Turn([Call("refund", {"order_id": "7"}, call_id="call_7")]), Turn([Text("Not done.")])]
    )
    paused, _ = run_streamed(agent, "Refund order 7", model=model)
    await collect(paused.stream_events())
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    resumed, _ = run_streamed(agent, state, model=model)
    await collect(resumed.stream_events())

    [output] = [i for i in model.calls[1].input if i.get("type") == "function_call_output"]
    assert output["call_id"] == "call_7"
    assert output["output"] == _sdk.approval_rejection_message()


def tool_context(tool: FunctionTool, arguments: str, **kw: Any) -> ToolContext[Any]:
    """The context a call of ``tool`` runs in, as ``approvals/tools.py`` builds it."""
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name=tool.name, arguments=arguments
    )
    return ToolContext(
        context=None,
        usage=Usage(),
        tool_name=tool.name,
        tool_call_id="call_1",
        tool_arguments=arguments,
        tool_call=call,
        **kw,
    )


async def test_invoking_a_function_tool_returns_its_output_and_enforces_its_timeout() -> None:
    @function_tool(timeout=0.01)
    async def wait_forever() -> str:
        """Never answer."""
        await asyncio.Event().wait()
        return "unreachable"

    @function_tool(output_type=Quote)
    def quote() -> Quote:
        """Quote a price."""
        return Quote(price=3)

    answered = await _sdk.invoke_function_tool(quote, tool_context(quote, "{}"), "{}")
    timed_out = await _sdk.invoke_function_tool(
        wait_forever, tool_context(wait_forever, "{}"), "{}"
    )

    assert answered == Quote(price=3), "the tool's own return value, not converted"
    assert timed_out == default_tool_timeout_error_message(
        tool_name="wait_forever", timeout_seconds=0.01
    )


async def test_an_agent_tool_that_paused_leaves_its_run_under_the_scope_until_taken() -> None:
    sub_model = ScriptedResponsesModel([Turn([Call("refund", {"order_id": "1"})])])
    specialist = Agent(name="refunds", tools=[refund])
    tool = specialist.as_tool(tool_name="ask", tool_description="Ask the refunds desk.")
    config = RunConfig(model_provider=ScriptedProvider(sub_model), tracing_disabled=True)
    arguments = '{"input": "refund order 1"}'
    context = tool_context(tool, arguments, agent=Agent(name="outer"), run_config=config)
    call = context.tool_call
    assert call is not None

    _sdk.set_agent_tool_scope(context, "scope-a")
    await _sdk.invoke_function_tool(tool, context, arguments)

    assert _sdk.consume_agent_tool_result(call, "scope-b") is None
    nested = _sdk.consume_agent_tool_result(call, "scope-a")
    assert nested is not None
    assert [item.name for item in nested.interruptions] == ["refund"]
    assert _sdk.consume_agent_tool_result(call, "scope-a") is None, "taken once"


# The rule: outside ``_sdk.py`` the package imports from the SDK only what its root exports
# (``agents.__all__``), from the root, plus these documented types the root does not export.
DOCUMENTED_OUTSIDE_ROOT = frozenset({("agents.tool_context", "ToolContext")})
PACKAGE_DIR = Path(_sdk.__file__).parent


def sdk_import_breaks(source: str, exported: set[str]) -> list[tuple[int, str, bool]]:
    """The SDK imports of ``source`` the rule forbids: (line, import, whether the name is private
    rather than a root export imported from a submodule)."""
    breaks: list[tuple[int, str, bool]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "agents" or alias.name.startswith("agents."):
                    breaks.append((node.lineno, f"import {alias.name}", True))
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module != "agents" and not node.module.startswith("agents."):
                continue
            for alias in node.names:
                if node.module == "agents" and alias.name in exported:
                    continue
                if (node.module, alias.name) in DOCUMENTED_OUTSIDE_ROOT:
                    continue
                text = f"from {node.module} import {alias.name}"
                breaks.append((node.lineno, text, alias.name not in exported))
    return sorted(breaks)


def package_breaks() -> dict[str, list[tuple[int, str, bool]]]:
    """Each package module but ``_sdk.py`` with the SDK imports the rule forbids there."""
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        name = path.relative_to(PACKAGE_DIR).as_posix()
        breaks = sdk_import_breaks(path.read_text(encoding="utf-8"), set(agents.__all__))
        if name != "_sdk.py" and breaks:
            found[name] = breaks
    return found


def test_sdk_names_outside_the_sdk_module_are_root_exports_or_documented_types() -> None:
    forbidden = {name: breaks for name, breaks in package_breaks().items() if breaks}
    assert forbidden == {}


def test_the_sdk_import_rule_reports_private_names_and_submodule_imports() -> None:
    source = (
        "import agents.tool\n"
        "from agents import Agent, agent_tool_state\n"
        "from agents.items import ToolApprovalItem\n"
        "from agents.tool import invoke_function_tool\n"
        "from agents.tool_context import ToolContext\n"
        "from agents_extra import anything\n"
    )

    assert sdk_import_breaks(source, set(agents.__all__)) == [
        (1, "import agents.tool", True),
        (2, "from agents import agent_tool_state", True),
        (3, "from agents.items import ToolApprovalItem", False),
        (4, "from agents.tool import invoke_function_tool", True),
    ]
