"""Each example agent run directly with ``Runner.run_streamed`` on the demo model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import Context, RunAgentInput, Tool, UserMessage
from ag_ui_openai_agents import AGUITranslator
from agents import Agent, Runner
from agents.items import ToolCallItem, ToolCallOutputItem
from agents.result import RunResultStreaming

from agents_examples import EXAMPLES, ExampleSettings, ag_ui_docs_copilot


async def run(
    agent: Agent[Any], text: str, settings: ExampleSettings, **kwargs: Any
) -> RunResultStreaming:
    result = Runner.run_streamed(agent, text, run_config=settings.run_config, **kwargs)
    async for _ in result.stream_events():
        pass
    return result


def calls(result: RunResultStreaming) -> list[tuple[str, dict[str, Any]]]:
    raw = [item.raw_item for item in result.new_items if isinstance(item, ToolCallItem)]
    return [(call.name, json.loads(call.arguments)) for call in raw]


def outputs(result: RunResultStreaming) -> list[str]:
    return [str(item.output) for item in result.new_items if isinstance(item, ToolCallOutputItem)]


@pytest.mark.parametrize(
    ("name", "text", "tools"),
    [
        ("agentic_chat", "Tell me a fun fact", []),
        ("backend_tool_rendering", "What's the weather in Lisbon?", ["get_weather"]),
        ("subagents", "Research tides and write a note", ["research_topic", "write_draft"]),
        ("custom_lifecycle_events", "Count the words in: one two three", ["count_words"]),
        ("dynamic_system_prompt", "Hello", []),
    ],
)
async def test_example_agent_runs_offline(
    settings: ExampleSettings, name: str, text: str, tools: list[str]
) -> None:
    agent = EXAMPLES[name].build_agent(settings)
    result = await run(agent, text, settings)
    assert [tool for tool, _ in calls(result)] == tools
    assert isinstance(result.final_output, str) and result.final_output
    for output in outputs(result):
        assert output[:30] in result.final_output
    assert result.context_wrapper.usage.requests == len(result.raw_responses) + (
        2 if name == "subagents" else 0  # Each specialist's own model call.
    )


async def test_weather_tool_output_is_stable(settings: ExampleSettings) -> None:
    agent = EXAMPLES["backend_tool_rendering"].build_agent(settings)
    first = outputs(await run(agent, "weather in Lisbon", settings))
    second = outputs(await run(agent, "What's the weather in Lisbon today?", settings))
    assert first == second
    assert json.loads(first[0])["city"] == "Lisbon"


async def test_dynamic_prompt_uses_the_sdk_context(settings: ExampleSettings) -> None:
    agent = EXAMPLES["dynamic_system_prompt"].build_agent(settings)
    context = [Context(description="Plan", value="Pro"), {"description": "Name", "value": "Lin"}]
    result = await run(agent, "Hi", settings, context=context)
    assert "Plan: Pro; Name: Lin" in result.final_output


async def test_approval_pauses_and_resumes_with_the_sdk(settings: ExampleSettings) -> None:
    agent = EXAMPLES["human_in_the_loop_approval"].build_agent(settings)
    paused = await run(agent, "Refund 12.5 dollars on order B-2", settings)
    [approval] = paused.interruptions
    assert approval.tool_name == "issue_refund"
    assert json.loads(approval.arguments or "") == {"order_id": "B-2", "amount": 12.5}
    state = paused.to_state()
    state.approve(approval)
    resumed = await run(agent, state, settings)  # type: ignore[arg-type]
    assert "Refunded 12.50 USD on order B-2." in resumed.final_output


@pytest.mark.parametrize(
    ("name", "tool", "text"),
    [
        ("human_in_the_loop", "generate_task_steps", "Give me the steps to plant a tree"),
        ("tool_based_generative_ui", "generate_haiku", "A haiku about rain please"),
    ],
)
async def test_frontend_tool_stops_the_run(
    settings: ExampleSettings, name: str, tool: str, text: str
) -> None:
    declared = Tool(
        name=tool,
        description="Rendered by the client.",
        parameters={
            "type": "object",
            "properties": {"lines": {"type": "array", "items": {"type": "string"}}},
        },
    )
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", role="user", content=text)],
        tools=[declared],
        context=[],
        state={},
        forwarded_props=None,
    )
    translated = AGUITranslator().to_openai(run_input)
    agent = EXAMPLES[name].build_agent(settings)
    agent = agent.clone(tools=[*agent.tools, *translated.tools])
    result = await run(agent, text, settings)
    [(called, args)] = calls(result)
    assert called == tool
    assert len(args["lines"]) == 3
    assert len(result.raw_responses) == 1  # Stopped at the client's tool: no second model call.


async def test_docs_copilot_tools_read_the_real_readme(settings: ExampleSettings) -> None:
    sections = ag_ui_docs_copilot.readme_sections(ag_ui_docs_copilot.README.read_text())
    assert sections, "the package README has sections"
    title = next(iter(sections))
    agent = ag_ui_docs_copilot.build_agent(settings)
    result = await run(agent, f"What does the README say about {title}?", settings)
    listed, read = outputs(result)
    assert listed.splitlines() == list(sections)
    assert read.startswith("## ")
