"""Each example agent run directly with ``Runner.run_streamed`` on the demo model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import Context, RunAgentInput, Tool, UserMessage
from ag_ui_openai_agents import AGUITranslator
from agents import Agent, FunctionTool, RunContextWrapper, Runner
from agents.items import ToolCallItem, ToolCallOutputItem
from agents.result import RunResultStreaming
from agents.tool_context import ToolContext

from agents_examples import (
    EXAMPLES,
    ExampleSettings,
    ag_ui_docs_copilot,
    dynamic_system_prompt,
    subagents,
)


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
        (
            "subagents",
            "Research tides and write a note",
            ["research_topic", "write_prose", "critique_draft"],
        ),
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
    final = " ".join(result.final_output.split())
    assert "{" not in final  # what the tools returned, in words: never their JSON
    said = outputs(result)
    if name == "subagents":  # the manager finishes with the article the writer wrote
        said = [said[1]]
    for output in said:
        if not output.lstrip().startswith("{"):
            assert " ".join(output.split())[:30] in final
    assert result.context_wrapper.usage.requests == len(result.raw_responses) + (
        6 if name == "subagents" else 0  # Each specialist calls its tool, then answers.
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
    result = await run(agent, "What do you know about me?", settings, context=context)
    assert result.final_output == "Here is what the page tells me: Plan: Pro; Name: Lin."


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


@pytest.mark.parametrize(
    ("tool", "documents"),
    [
        ("read_ag_ui_openai_agents_docs", ag_ui_docs_copilot.PACKAGE_DOCS),
        ("read_ag_ui_protocol_docs", (ag_ui_docs_copilot.PROTOCOL_SUMMARY,)),
    ],
)
async def test_docs_tools_read_the_shipped_documents(tool: str, documents: Any) -> None:
    text = "\n\n".join(document.read_text(encoding="utf-8") for document in documents)
    sections = ag_ui_docs_copilot.markdown_sections(text)
    assert len(sections) > 5, "the document has sections"
    agent = ag_ui_docs_copilot.build_agent(ExampleSettings.offline_demo())
    [found] = [t for t in agent.tools if isinstance(t, FunctionTool) and t.name == tool]
    schema = found.params_json_schema
    assert schema["properties"]["heading"]["type"] == "string"
    assert "heading" not in schema.get("required", [])  # Optional: leave it out to list.

    listing = await found.on_invoke_tool(_tool_context(tool, "{}"), "{}")
    assert listing.splitlines() == list(sections)
    heading = list(sections)[3]
    arguments = json.dumps({"heading": heading.upper()})
    section = await found.on_invoke_tool(_tool_context(tool, arguments), arguments)
    assert section == f"## {heading}\n\n{sections[heading]}"
    arguments = json.dumps({"heading": "zzz no such heading"})
    missing = await found.on_invoke_tool(_tool_context(tool, arguments), arguments)
    assert missing.startswith("No section matches 'zzz no such heading'.")
    assert missing.endswith(listing)


def _tool_context(name: str, arguments: str) -> ToolContext[Any]:
    return ToolContext(
        context=None, tool_name=name, tool_call_id="call-1", tool_arguments=arguments
    )


async def test_dynamic_instructions_turn_the_reply_language_into_an_instruction() -> None:
    build = dynamic_system_prompt.build_instructions
    agent = EXAMPLES["dynamic_system_prompt"].build_agent(ExampleSettings.offline_demo())
    language = [Context(description="Reply language", value="French")]
    assert build(RunContextWrapper(language), agent) == (
        "You are a helpful assistant. Always reply in French, whatever language the user writes in."
    )
    both = [{"description": "User name", "value": "Ada"}, *language]
    prompt = build(RunContextWrapper(both), agent)
    assert prompt.startswith("You are a helpful assistant for this page, which shared: User name")
    assert prompt.endswith("Always reply in French, whatever language the user writes in.")
    blank = [Context(description="Reply language", value="  ")]
    assert "Always reply" not in build(RunContextWrapper(blank), agent)


@pytest.mark.parametrize(
    ("name", "tool", "given"),
    [
        ("research_topic", "look_up_facts", "the history of coffee"),
        ("write_prose", "outline_piece", "- Coffee came from Yemen.\n- Espresso came later."),
        ("critique_draft", "measure_readability", "Coffee is old. People like it a lot."),
    ],
)
async def test_each_specialist_calls_its_tool_then_writes(
    settings: ExampleSettings, name: str, tool: str, given: str
) -> None:
    specialist = subagents.build_specialists(settings)[name]
    result = Runner.run_streamed(specialist, given, run_config=settings.run_config)
    kinds = [
        getattr(event, "name", None) or getattr(getattr(event, "data", None), "type", None)
        async for event in result.stream_events()
    ]
    assert "tool_called" in kinds and "tool_output" in kinds
    assert kinds.index("tool_called") < kinds.index("response.output_text.delta")
    assert [call for call, _ in calls(result)] == [tool]
    [output] = outputs(result)
    # The reply is written from the tool's answer: its points, in the form asked for.
    points = [line.lstrip("-*0123456789. ").rstrip(".") for line in output.splitlines() if line]
    assert output and all(point in result.final_output for point in points)
    assert len(result.raw_responses) == 2  # The forced tool call, then the text.


async def test_specialist_tools() -> None:
    async def invoke(tool: FunctionTool, **arguments: str) -> str:
        payload = json.dumps(arguments)
        return str(await tool.on_invoke_tool(_tool_context(tool.name, payload), payload))

    facts = await invoke(subagents.look_up_facts, topic="Solar energy")
    assert facts.startswith("- Solar panels turn sunlight") and len(facts.splitlines()) == 3
    unknown = await invoke(subagents.look_up_facts, topic="Tides")
    assert unknown == "The fact sheet has nothing on 'Tides'; rely on general knowledge."
    outline = await invoke(subagents.outline_piece, notes="Notes:\n- First fact\n\n* Second")
    assert outline == "1. First fact\n2. Second"
    measured = await invoke(subagents.measure_readability, text="One two three. Four five!")
    assert measured == "5 words, 2 sentences, 2.5 words per sentence."
