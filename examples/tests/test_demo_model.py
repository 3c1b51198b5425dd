"""The demo model streams like the Responses API and plugs into real SDK runs."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, UserMessage
from ag_ui_openai_agents import AGUITranslator
from agents import (
    Agent,
    ModelSettings,
    RunConfig,
    Runner,
    function_tool,
    handoff,
)
from agents.items import ToolCallItem
from agents.models.interface import ModelTracing
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)
from pydantic import BaseModel
from support.invariants import check_stream

from demo_model import DemoModel, DemoModelProvider, offline_run_config


@function_tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Sunny in {city}"


def user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


async def stream(
    items: list[Any],
    tools: list[Any] | None = None,
    settings: ModelSettings | None = None,
    model: DemoModel | None = None,
) -> list[Any]:
    model = model or DemoModel("demo-test")
    return [
        event
        async for event in model.stream_response(
            "Be brief.",
            items,
            settings or ModelSettings(),
            tools or [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
    ]


def deltas(events: list[Any], kind: str) -> dict[str, str]:
    joined: dict[str, str] = defaultdict(str)
    for event in events:
        if event.type == kind:
            joined[event.item_id] += event.delta
    return dict(joined)


@pytest.mark.parametrize(
    "items",
    [
        user("What's the weather in Paris?"),
        [
            *user("What's the weather in Paris?"),
            {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "Sunny in Paris"},
        ],
    ],
    ids=["tool-call", "answer"],
)
async def test_stream_follows_the_responses_event_order(items: list[Any]) -> None:
    events = await stream(items, [get_weather])
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))

    by_index: dict[int, list[Any]] = defaultdict(list)
    for event in events[2:-1]:
        by_index[event.output_index].append(event)
    done_items = []
    for _, item_events in sorted(by_index.items()):
        assert item_events[0].type == "response.output_item.added"
        assert item_events[-1].type == "response.output_item.done"
        item = item_events[-1].item
        assert all(getattr(e, "item_id", item.id) == item.id for e in item_events)
        done_items.append(item)

    completed = events[-1]
    assert isinstance(completed, ResponseCompletedEvent)
    assert completed.response.output == done_items
    assert completed.response.model == "demo-test"
    usage = completed.response.usage
    assert usage is not None
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert 0 < usage.output_tokens_details.reasoning_tokens <= usage.output_tokens

    reasoning, *rest = done_items
    assert isinstance(reasoning, ResponseReasoningItem)
    summary = deltas(events, "response.reasoning_summary_text.delta")[reasoning.id]
    assert summary == reasoning.summary[0].text
    assert len([e for e in events if e.type == "response.reasoning_summary_text.delta"]) > 1
    for item in rest:
        if isinstance(item, ResponseFunctionToolCall):
            assert (
                deltas(events, "response.function_call_arguments.delta")[item.id] == item.arguments
            )
            assert item.name == "get_weather"
        else:
            assert isinstance(item, ResponseOutputMessage)
            assert deltas(events, "response.output_text.delta")[item.id] == item.content[0].text


def without_call_ids(events: list[Any]) -> list[Any]:
    """The events as dicts, each tool call's ``call_id`` blanked (they are new on every call)."""
    dumped = [e.model_dump() for e in events]
    text = json.dumps(dumped, default=str)
    for call_id in set(re.findall(r'"call_id": "(call_[0-9a-f]+)"', text)):
        text = text.replace(call_id, "call_")
    return list(json.loads(text))


def blank_calls(items: list[Any]) -> list[Any]:
    """Output items with each function call's ``call_id`` blanked."""
    blank = {"call_id": "call_"}
    return [
        i.model_copy(update=blank) if isinstance(i, ResponseFunctionToolCall) else i for i in items
    ]


def call_ids(events: list[Any]) -> list[str]:
    return [
        i.call_id for i in events[-1].response.output if isinstance(i, ResponseFunctionToolCall)
    ]


async def test_same_input_same_stream_and_new_input_new_ids() -> None:
    first = await stream(user("weather in Oslo"), [get_weather])
    again = await stream(user("weather in Oslo"), [get_weather])
    other = await stream(user("weather in Rome"), [get_weather])
    assert without_call_ids(first) == without_call_ids(again)
    assert first[-1].response.id != other[-1].response.id
    assert len({*call_ids(first), *call_ids(again), *call_ids(other)}) == 3


async def test_every_call_gets_a_new_id_as_the_responses_api_gives() -> None:
    """Two threads that say the same thing get calls of their own: a call id names one call."""
    ids = [call_ids(await stream(user("weather in Oslo"), [get_weather]))[0] for _ in range(5)]
    assert len(set(ids)) == 5
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", call_id) for call_id in ids)


async def test_get_response_matches_the_stream() -> None:
    model = DemoModel("demo-test")
    events = await stream(user("weather in Oslo"), [get_weather], model=model)
    response = await model.get_response(
        "Be brief.",
        user("weather in Oslo"),
        ModelSettings(),
        [get_weather],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )
    completed = events[-1].response
    assert blank_calls(response.output) == blank_calls(completed.output)
    assert response.response_id == completed.id
    assert response.usage.total_tokens == completed.usage.total_tokens
    assert response.usage.requests == 1


async def test_encrypted_reasoning_only_when_requested() -> None:
    plain = await stream(user("hello"))
    asked = await stream(
        user("hello"), settings=ModelSettings(response_include=["reasoning.encrypted_content"])
    )
    assert plain[-1].response.output[0].encrypted_content is None
    encrypted = asked[-1].response.output[0].encrypted_content
    assert encrypted and encrypted.startswith("demo-encrypted-")
    added = next(e for e in asked if e.type == "response.output_item.added")
    assert added.item.encrypted_content is None  # Only the finished item carries it.


async def test_tool_choice_none_means_text() -> None:
    events = await stream(user("weather in Oslo"), [get_weather], ModelSettings(tool_choice="none"))
    assert not any(e.type.startswith("response.function_call") for e in events)
    assert any(e.type == "response.output_text.delta" for e in events)


class Forecast(BaseModel):
    city: str
    days: int


async def test_structured_output_through_the_runner() -> None:
    agent = Agent(name="forecaster", instructions="Forecast.", output_type=Forecast, model="m")
    result = Runner.run_streamed(
        agent, "Forecast for Rome over 3 days", run_config=offline_run_config()
    )
    async for _ in result.stream_events():
        pass
    assert result.final_output == Forecast(city="Rome", days=3)


async def test_provider_serves_handoff_targets() -> None:
    billing = Agent(
        name="Billing agent", instructions="You handle invoices.", model="billing-model"
    )
    triage = Agent(
        name="Triage", instructions="Route requests.", handoffs=[handoff(billing)], model="m"
    )
    result = Runner.run_streamed(
        triage, "I have a billing question", run_config=offline_run_config()
    )
    async for _ in result.stream_events():
        pass
    assert result.last_agent is billing
    assert "“I have a billing question”" in str(result.final_output)
    assert [r.usage.requests for r in result.raw_responses] == [1, 1]


async def test_tool_calls_get_unique_ids_across_turns() -> None:
    @function_tool
    def get_time(city: str) -> str:
        """Get the local time in a city."""
        return "noon"

    agent = Agent(name="a", instructions="Help.", tools=[get_weather, get_time], model="m")
    result = Runner.run_streamed(agent, "weather and time in Lima", run_config=offline_run_config())
    async for _ in result.stream_events():
        pass
    calls = [item.raw_item for item in result.new_items if isinstance(item, ToolCallItem)]
    assert [call.name for call in calls] == ["get_weather", "get_time"]
    assert len({call.call_id for call in calls}) == 2
    assert "Sunny in Lima" in result.final_output and "noon" in result.final_output


async def test_translated_stream_is_valid_agui() -> None:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u1", role="user", content="What's the weather in Paris?")],
        tools=[],
        context=[],
        state={},
        forwarded_props=None,
        protocol_version="1.0",
    )
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    agent = Agent(name="w", instructions="Weather.", tools=[get_weather], model="gpt-test")
    result = Runner.run_streamed(
        agent, translated.messages, run_config=RunConfig(model_provider=DemoModelProvider())
    )
    events = [event async for event in translator.to_agui(result, run_input)]
    check_stream(events, run_input=run_input)
    assert events[-1].usage[0].model == "gpt-test"
