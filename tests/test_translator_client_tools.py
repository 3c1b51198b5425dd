"""A client tool call ends the run by itself, on every way of serving an agent.

The proxies carry ``needs_approval``, so the SDK pauses the run in the turn that called one,
before any later model call, whoever reads the stream and however it is scheduled. The
translator recipe (the agent cloned with ``translated.tools``, nothing else configured),
``StopAtTools`` naming the client tools, and the wrapper: each run calls the model once, ends
with RUN_FINISHED success naming the pending calls (1.0 clients) or the plain success outcome
(clients without ``protocolVersion``), keeps the calls unanswered in the snapshot, and lets a
backend tool of the same turn finish.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    SubagentStartedEvent,
    Tool,
    ToolCall,
    ToolCallResultEvent,
    ToolMessage,
)
from agents import Agent, RunConfig, StopAtTools, function_tool

from ag_ui_openai_agents import (
    AGUITranslator,
    OpenAIAgentsAgent,
    SharedState,
    Subagents,
    TranslatedInput,
    use_shared_state,
)
from ag_ui_openai_agents.subagents import subagent_events
from support.invariants import check_stream
from support.runs import of_type, only, request, run_agui, user
from support.scripted import (
    Call,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    collect,
    run_streamed,
)
from support.subagent_runs import AgentScripts

PROTOCOLS = pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["1.0", "pre-1.0"])

CLIENT_TOOLS = [
    Tool(
        name="pick_color",
        description="Ask the user for a color.",
        parameters={"type": "object", "properties": {"palette": {"type": "string"}}},
    ),
    Tool(name="confirm", description="Ask the user to confirm.", parameters={}),
]

weather_calls: list[str] = []


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    weather_calls.append(city)
    return f"Sunny in {city}"


@pytest.fixture(autouse=True)
def _reset() -> None:
    weather_calls.clear()


def base_agent(**options: Any) -> Agent[Any]:
    return Agent(name="helper", instructions="Help.", tools=[get_weather], **options)


def recipe(agent: Agent[Any]) -> Any:
    """The README's translator recipe: the request's client tools added, nothing else."""

    def clone(translated: TranslatedInput) -> Agent[Any]:
        return agent.clone(tools=[*agent.tools, *translated.tools])

    return clone


def two_client_calls_and_a_backend_call() -> list[Turn]:
    # One scripted turn only: a second model call would fail the run with ScriptExhausted.
    return [
        Turn(
            [
                Call("confirm", {}, call_id="call_b"),
                Call("get_weather", {"city": "Oslo"}, call_id="call_w"),
                Call("pick_color", {"palette": "warm"}, call_id="call_a"),
            ]
        )
    ]


def assert_stopped_at_client_calls(events: list[Any], protocol_version: str | None) -> None:
    assert of_type(events, RunErrorEvent) == []
    outcome = only(events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    if protocol_version is None:
        assert outcome.pending_tool_call_ids is None
    else:
        assert outcome.pending_tool_call_ids == ["call_b", "call_a"]
    results = {event.tool_call_id: event.content for event in of_type(events, ToolCallResultEvent)}
    assert results == {"call_w": "Sunny in Oslo"}
    messages = only(events, MessagesSnapshotEvent).messages
    calls = [c.id for m in messages if m.role == "assistant" for c in (m.tool_calls or [])]
    answered = [m.tool_call_id for m in messages if m.role == "tool"]
    assert calls == ["call_b", "call_w", "call_a"]
    assert answered == ["call_w"]


@PROTOCOLS
async def test_translator_recipe_stops_after_the_turn_that_called_a_client_tool(
    protocol_version: str | None,
) -> None:
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    run = await run_agui(recipe(base_agent()), run_input, two_client_calls_and_a_backend_call())
    assert run.model is not None and run.model.call_count == 1
    assert weather_calls == ["Oslo"]
    assert_stopped_at_client_calls(run.events, protocol_version)


@PROTOCOLS
async def test_a_single_client_call_stops_the_recipe_run(protocol_version: str | None) -> None:
    run_input = request(user("Color?"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    turns = [Turn([Text("Let me ask."), Call("pick_color", {"palette": "cold"}, call_id="c1")])]
    run = await run_agui(recipe(base_agent()), run_input, turns)
    assert run.model is not None and run.model.call_count == 1
    outcome = only(run.events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == (["c1"] if protocol_version else None)
    assert of_type(run.events, ToolCallResultEvent) == []


@PROTOCOLS
async def test_stop_at_tools_naming_the_client_tools_still_stops(
    protocol_version: str | None,
) -> None:
    agent = base_agent(tool_use_behavior=StopAtTools(stop_at_tool_names=["confirm", "pick_color"]))
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    run = await run_agui(recipe(agent), run_input, two_client_calls_and_a_backend_call())
    assert run.model is not None and run.model.call_count == 1
    assert_stopped_at_client_calls(run.events, protocol_version)


@PROTOCOLS
async def test_the_wrapper_stops_the_same_way(protocol_version: str | None) -> None:
    model = ScriptedResponsesModel(two_client_calls_and_a_backend_call())
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapper = OpenAIAgentsAgent(base_agent(), run_config=config)
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    events = await collect(wrapper.run_streamed(run_input))
    check_stream(events, run_input=run_input, pre_1_0=protocol_version is None)
    assert model.call_count == 1
    assert_stopped_at_client_calls(events, protocol_version)


@PROTOCOLS
async def test_backend_only_turns_keep_calling_the_model(protocol_version: str | None) -> None:
    run_input = request(user("Weather?"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    turns = [Turn([Call("get_weather", {"city": "Rome"})]), Turn([Text("Sunny in Rome.")])]
    run = await run_agui(recipe(base_agent()), run_input, turns)
    assert run.model is not None and run.model.call_count == 2
    outcome = only(run.events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids is None


@PROTOCOLS
async def test_the_answered_call_continues_the_conversation(protocol_version: str | None) -> None:
    history = [
        user("Color?"),
        AssistantMessage(
            id="a1",
            tool_calls=[
                ToolCall(id="c1", function=FunctionCall(name="pick_color", arguments="{}"))
            ],
        ),
        ToolMessage(id="t1", tool_call_id="c1", content="blue"),
    ]
    run_input = request(*history, tools=CLIENT_TOOLS, protocol_version=protocol_version)
    run = await run_agui(recipe(base_agent()), run_input, [Turn([Text("Blue it is.")])])
    assert run.model is not None and run.model.call_count == 1
    outcome = only(run.events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids is None


async def test_a_callers_own_cancel_is_still_reported_cancelled() -> None:
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS)
    translated_agent = recipe(base_agent())
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    result, model = run_streamed(
        translated_agent(translated), translated.messages, turns=[Turn([Text("Hello there")])]
    )
    result.cancel(mode="after_turn")
    events = await collect(translator.to_agui(result, run_input))
    check_stream(events, run_input=run_input)
    assert only(events, RunFinishedEvent).outcome.type == "cancelled"  # type: ignore[union-attr]
    assert model.call_count <= 1


async def test_a_bare_iterator_run_stops_too() -> None:
    """The SDK pauses the run itself: the translator need not own it for the run to stop."""
    run_input = request(user("Color?"), tools=CLIENT_TOOLS)
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    agent = recipe(base_agent())(translated)
    turns = [Turn([Call("pick_color", {}, call_id="c1")]), Turn([Text("Waiting for you.")])]
    result, model = run_streamed(agent, translated.messages, turns=turns)
    events = await collect(translator.to_agui(result.stream_events(), run_input))
    check_stream(events, run_input=run_input)
    assert model.call_count == 1
    outcome = only(events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == ["c1"]


@PROTOCOLS
async def test_a_consumer_parked_until_the_run_ended_still_stops_the_run(
    protocol_version: str | None,
) -> None:
    """Nobody reads the stream while the run goes as far as it can: it still stops."""
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    agent = recipe(base_agent())(translated)
    result, model = run_streamed(
        agent, translated.messages, turns=two_client_calls_and_a_backend_call()
    )
    assert result.run_loop_task is not None
    await asyncio.wait({result.run_loop_task})
    events = await collect(translator.to_agui(result, run_input))
    check_stream(events, run_input=run_input, pre_1_0=protocol_version is None)
    assert model.call_count == 1
    assert_stopped_at_client_calls(events, protocol_version)


RESEARCHER = Agent(name="Researcher", instructions="research")


def research_tool() -> Any:
    return RESEARCHER.as_tool(
        tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
    )


@PROTOCOLS
async def test_the_recipe_stops_while_the_shared_state_reads_the_run_ahead(
    protocol_version: str | None,
) -> None:
    """With a shared state the outer stream is read ahead by a task, which acknowledges the
    SDK's events before the engine sees them. Here that task reads the whole run (a subagent
    streaming, a client call in the same turn) while the consumer is parked: the manager's
    model is still called once, and the stream is valid."""
    run_input = request(user("Plan it"), tools=CLIENT_TOOLS, protocol_version=protocol_version)
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    agent = recipe(Agent(name="Manager", instructions="manage", tools=[research_tool()]))
    scripts = AgentScripts(
        {
            "manage": [
                Turn(
                    [
                        Call("research_topic", {"input": "owls"}, call_id="call_r"),
                        Call("pick_color", {"palette": "warm"}, call_id="call_a"),
                    ]
                )
            ],
            "research": [Turn([Text("Owls hunt at night.")])],
        }
    )
    model = ScriptedResponsesModel(scripts)
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(agent(translated), translated.messages, model=model)
    # The subagent streams on both request kinds (opted in for the one without protocolVersion).
    stream = translator.to_agui(
        result, run_input, shared_state=state, subagents=Subagents(pre_1_0_clients=True)
    )
    events = [await stream.__anext__(), await stream.__anext__()]  # the read-ahead runs now
    assert result.run_loop_task is not None
    await asyncio.wait({result.run_loop_task})  # ... and reads every event of the run
    events += [event async for event in stream]
    check_stream(events, run_input=run_input, pre_1_0=protocol_version is None)
    manager_calls = [c for c in model.calls if str(c.instructions).startswith("manage")]
    assert len(manager_calls) == 1
    assert of_type(events, RunErrorEvent) == []
    assert [e.subagent_run_id for e in of_type(events, SubagentStartedEvent)] != []
    outcome = only(events, RunFinishedEvent).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == (["call_a"] if protocol_version else None)
    results = [e.tool_call_id for e in of_type(events, ToolCallResultEvent)]
    assert results == ["call_r"]
