"""``AGUITranslator.to_agui``: lifecycle options, outcomes, errors and cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import agents.exceptions
import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunFinishedCancelledOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    Tool,
)
from ag_ui.encoder import EventEncoder
from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    ModelBehaviorError,
    RunContextWrapper,
    StopAtTools,
    UserError,
    function_tool,
    input_guardrail,
    set_tracing_disabled,
)
from agents.result import RunResultStreaming

from ag_ui_openai_agents import AGUITranslator
from support.invariants import check_stream
from support.runs import (
    check_prefix,
    request,
    run_agui,
    with_client_tools,
)
from support.scripted import Call, Hosted, Refusal, Text, Turn, run_streamed

set_tracing_disabled(True)

CONFIRM = Tool(
    name="confirm",
    description="Ask the user to confirm.",
    parameters={"type": "object", "properties": {"question": {"type": "string"}}},
)


@function_tool
def get_weather(city: str) -> str:
    """Report the weather of a city."""
    return f"Sunny in {city}"


@function_tool(failure_error_function=None)
def explode() -> str:
    """Always fails."""
    raise ValueError("secret database password leaked in traceback")


def weather_agent() -> Agent[Any]:
    return Agent(name="assistant", tools=[get_weather, explode])


def run_task(result: RunResultStreaming) -> asyncio.Task[Any]:
    """The SDK task driving a streamed run (its attribute name differs between versions)."""
    task = getattr(result, "run_loop_task", None) or getattr(result, "_run_impl_task", None)
    assert isinstance(task, asyncio.Task)
    return task


# --------------------------------------------------------------------------- lifecycle


def as_value(value: Any) -> Any:
    return value


def as_sync(value: Any) -> Callable[[], Any]:
    return lambda: value


def as_async(value: Any) -> Callable[[], Awaitable[Any]]:
    async def resolve() -> Any:
        await asyncio.sleep(0)
        return value

    return resolve


@pytest.mark.parametrize("wrap", [as_value, as_sync, as_async], ids=["value", "sync", "async"])
async def test_lifecycle_order_with_every_option(wrap: Callable[[Any], Any]) -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("Hi", id="msg_hi")])],
        start_custom_event=wrap(CustomEvent(name="started", value={"step": 1})),
        initial_state=wrap({"count": 0}),
        final_state=wrap({"count": 1}),
        end_custom_event=wrap(CustomEvent(name="ended", value="bye")),
    )

    assert run.brief == [
        ("RUN_STARTED",),
        ("CUSTOM", "started", {"step": 1}),
        ("STATE_SNAPSHOT", {"count": 0}),
        ("STEP_STARTED", "assistant"),
        ("TEXT_MESSAGE_START", "msg_hi"),
        ("TEXT_MESSAGE_CONTENT", "msg_hi", "Hi"),
        ("TEXT_MESSAGE_END", "msg_hi"),
        ("STEP_FINISHED", "assistant"),
        ("STATE_SNAPSHOT", {"count": 1}),
        ("MESSAGES_SNAPSHOT",),
        ("CUSTOM", "ended", "bye"),
        ("RUN_FINISHED",),
    ]


async def test_default_lifecycle_of_a_text_run() -> None:
    run = await run_agui(Agent(name="assistant"), request(), [Turn([Text("Hello", id="m")])])

    assert run.types == [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]


async def test_each_source_is_resolved_at_its_position() -> None:
    log: list[str] = []

    def source(name: str, value: Any) -> Callable[[], Any]:
        def resolve() -> Any:
            log.append(f"resolve {name}")
            return value

        return resolve

    translator = AGUITranslator()
    run_input = request()
    result, _ = run_streamed(
        Agent(name="assistant"),
        translator.to_openai(run_input).messages,
        turns=[Turn([Text("Hi", id="m")])],
    )
    events: list[BaseEvent] = []
    async for event in translator.to_agui(
        result,
        run_input,
        start_custom_event=source("start", CustomEvent(name="s", value=None)),
        initial_state=source("initial", {}),
        final_state=source("final", {}),
        end_custom_event=source("end", CustomEvent(name="e", value=None)),
    ):
        events.append(event)
        log.append(event.type.value)
    check_stream(events, run_input=run_input)

    assert log == [
        "RUN_STARTED",
        "resolve start",
        "CUSTOM",
        "resolve initial",
        "STATE_SNAPSHOT",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "resolve final",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "resolve end",
        "CUSTOM",
        "RUN_FINISHED",
    ]


async def test_final_state_sees_what_tools_changed() -> None:
    store: dict[str, Any] = {"items": []}

    @function_tool
    def add_item(name: str) -> str:
        """Add an item."""
        store["items"] = [*store["items"], name]
        return "added"

    run = await run_agui(
        Agent(name="assistant", tools=[add_item]),
        request(),
        [Turn([Call("add_item", {"name": "milk"})]), Turn([Text("Done")])],
        initial_state=lambda: dict(store),
        final_state=lambda: dict(store),
    )

    snapshots = [e[1] for e in run.brief if e[0] == "STATE_SNAPSHOT"]
    assert snapshots == [{"items": []}, {"items": ["milk"]}]


async def test_none_skips_a_state_snapshot_and_an_empty_dict_emits_one() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("Hi")])],
        initial_state=lambda: None,
        final_state={},
    )

    assert [e for e in run.brief if e[0] == "STATE_SNAPSHOT"] == [("STATE_SNAPSHOT", {})]
    assert run.types[-4:] == [
        "STEP_FINISHED",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]


async def test_custom_events_may_be_mappings_and_none_skips_them() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("Hi")])],
        start_custom_event={"name": "progress", "value": {"pct": 0}},
        end_custom_event=lambda: None,
    )

    assert [e for e in run.brief if e[0] == "CUSTOM"] == [("CUSTOM", "progress", {"pct": 0})]
    assert run.brief[1] == ("CUSTOM", "progress", {"pct": 0})


async def test_run_started_carries_the_request_ids_and_protocol_version() -> None:
    run_input = request(thread_id="t-42", run_id="r-7", parent_run_id="r-6")

    run = await run_agui(Agent(name="assistant"), run_input, [Turn([Text("Hi")])])

    started = run.events[0]
    assert isinstance(started, RunStartedEvent)
    assert (started.thread_id, started.run_id, started.parent_run_id) == ("t-42", "r-7", "r-6")
    assert started.protocol_version == "1.0"
    assert (run.finished.thread_id, run.finished.run_id) == ("t-42", "r-7")


async def test_request_without_protocol_version_still_gets_version_1_0() -> None:
    run = await run_agui(
        Agent(name="assistant"), request(protocol_version=None), [Turn([Text("Hi")])]
    )

    started = run.events[0]
    assert isinstance(started, RunStartedEvent)
    assert started.protocol_version == "1.0"


async def test_nothing_to_run_still_opens_and_closes_the_run() -> None:
    run_input = request()
    events = [event async for event in AGUITranslator().to_agui(None, run_input)]
    check_stream(events, run_input=run_input)

    assert [e.type.value for e in events] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert events[1].messages == run_input.messages  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- outcomes


async def test_successful_run_reports_success_without_pending_calls() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Call("get_weather", {"city": "Rome"})]), Turn([Text("Sunny")])],
    )

    assert run.finished.outcome == RunFinishedSuccessOutcome()
    assert run.finished.model_dump(mode="json", exclude_none=True)["outcome"] == {"type": "success"}


async def test_client_tool_calls_are_pending_in_call_order_and_hosted_never() -> None:
    run = await run_agui(
        with_client_tools(weather_agent()),
        request(tools=[CONFIRM]),
        [
            Turn(
                [
                    Call("confirm", {"question": "first?"}),
                    Hosted("web_search_call", query="x"),
                    Call("get_weather", {"city": "Oslo"}),
                    Call("confirm", {"question": "second?"}),
                ]
            )
        ],
    )

    assert run.model is not None and run.model.call_count == 1
    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == ["call_1", "call_3"]
    results = [e[2] for e in run.brief if e[0] == "TOOL_CALL_RESULT"]
    assert results == ["ws_1", "call_2"]


async def test_stop_at_tools_on_a_client_tool_leaves_it_pending() -> None:
    def clone(translated: Any) -> Agent[Any]:
        return Agent(
            name="planner",
            tools=list(translated.tools),
            tool_use_behavior=StopAtTools(stop_at_tool_names=["confirm"]),
        )

    run = await run_agui(
        clone,
        request(tools=[CONFIRM]),
        [Turn([Text("Asking"), Call("confirm", {"question": "ok?"})])],
    )

    outcome = run.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == ["call_1"]
    assert "TOOL_CALL_RESULT" not in run.types


async def test_pre_1_0_request_gets_no_pending_ids() -> None:
    run = await run_agui(
        with_client_tools(weather_agent()),
        request(tools=[CONFIRM], protocol_version=None),
        [Turn([Call("confirm", {"question": "ok?"})])],
    )

    assert run.finished.outcome == RunFinishedSuccessOutcome()
    assert "TOOL_CALL_START" in run.types


async def _cancel_on_first_text(run_input: Any) -> tuple[list[BaseEvent], Any]:
    translator = AGUITranslator()
    result, model = run_streamed(
        Agent(name="assistant", tools=[get_weather]),
        translator.to_openai(run_input).messages,
        turns=[
            Turn([Text("one two three four five six", id="msg_c")], delay=0.002),
            Turn([Text("never")]),
        ],
    )
    events: list[BaseEvent] = []
    async for event in translator.to_agui(result, run_input):
        events.append(event)
        if event.type.value == "TEXT_MESSAGE_CONTENT" and not result.is_complete:
            result.cancel()
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events, model


async def test_cancelled_run_reports_cancelled_and_closes_its_windows() -> None:
    events, model = await _cancel_on_first_text(request())

    types = [e.type.value for e in events]
    assert types == [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    assert events[-1].outcome == RunFinishedCancelledOutcome()  # type: ignore[attr-defined]
    assert model.call_count == 1


async def test_pre_1_0_request_gets_no_cancelled_outcome() -> None:
    events, _ = await _cancel_on_first_text(request(protocol_version=None))

    assert events[-1].type.value == "RUN_FINISHED"
    assert events[-1].outcome is None  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- errors


def encoded(events: list[BaseEvent]) -> str:
    encoder = EventEncoder()
    return "".join(encoder.encode(event) for event in events)


async def test_model_error_closes_open_windows_then_run_error_and_reraises() -> None:
    failure = RuntimeError("upstream exploded")
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [
            Turn(
                [Text("partial answer here", id="msg_p")],
                raise_after_events=6,
                error=failure,
                delay=0.001,
            )
        ],
        expect_error=True,
    )

    assert run.error is failure
    assert run.brief[1:] == [
        ("STEP_STARTED", "assistant"),
        ("TEXT_MESSAGE_START", "msg_p"),
        ("TEXT_MESSAGE_CONTENT", "msg_p", "partial"),
        ("TEXT_MESSAGE_CONTENT", "msg_p", " answer"),
        ("TEXT_MESSAGE_END", "msg_p"),
        ("STEP_FINISHED", "assistant"),
        ("RUN_ERROR",),
    ]
    assert run.run_error.message == "upstream exploded"
    assert run.run_error.code == "RuntimeError"


async def test_tool_error_with_safe_message_leaks_nothing_and_reraises() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Text("Trying", id="msg_t"), Call("explode")])],
        expect_error=True,
        run_error_message="The agent could not complete this request.",
    )

    assert isinstance(run.error, UserError)
    assert "secret database password" in str(run.error)
    assert run.run_error.message == "The agent could not complete this request."
    assert run.run_error.code is None
    wire = encoded(run.events)
    assert "secret" not in wire
    assert "ValueError" not in wire and "UserError" not in wire
    assert run.types[-3:] == ["TOOL_CALL_END", "STEP_FINISHED", "RUN_ERROR"]


async def test_guardrail_tripwire_surfaces_as_run_error() -> None:
    @input_guardrail
    def block_everything(
        context: RunContextWrapper[Any], agent: Agent[Any], given: Any
    ) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    run = await run_agui(
        Agent(name="guarded", input_guardrails=[block_everything]),
        request(),
        [Turn([Text("should not matter")], delay=0.01)],
        expect_error=True,
    )

    assert isinstance(run.error, InputGuardrailTripwireTriggered)
    assert run.run_error.code == "InputGuardrailTripwireTriggered"
    assert "RUN_FINISHED" not in run.types and "MESSAGES_SNAPSHOT" not in run.types


async def test_refusal_the_sdk_raises_on_becomes_run_error() -> None:
    refusal_error = getattr(agents.exceptions, "ModelRefusalError", None)
    if refusal_error is None:
        pytest.skip("this openai-agents version does not raise on refusals")

    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Refusal("I won't do that.", id="msg_r")])],
        expect_error=True,
        run_error_message="Refused.",
    )

    assert isinstance(run.error, refusal_error)
    assert run.run_error.message == "Refused."
    assert run.types[-3:] == ["TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_ERROR"]


async def test_incomplete_turn_becomes_run_error() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("cut off", id="msg_i")], status="incomplete")],
        expect_error=True,
    )

    assert isinstance(run.error, ModelBehaviorError)
    assert run.run_error.code == "ModelBehaviorError"
    assert run.run_error.message == str(run.error)


async def test_run_error_can_be_switched_off() -> None:
    failure = RuntimeError("hidden")
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [
            Turn(
                [Text("partial text", chunks=2, id="msg_p")],
                raise_after_events=6,
                error=failure,
                delay=0.001,
            )
        ],
        expect_error=True,
        emit_run_error=False,
    )

    assert run.error is failure
    assert run.types[1:] == [
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
    ]


async def test_failing_lifecycle_source_ends_the_run_with_run_error() -> None:
    def broken() -> Any:
        raise KeyError("state store offline")

    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("Hi")])],
        final_state=broken,
        run_error_message="Sorry.",
        expect_error=True,
    )

    assert isinstance(run.error, KeyError)
    assert run.run_error.message == "Sorry."
    assert "RUN_FINISHED" not in run.types and "MESSAGES_SNAPSHOT" not in run.types


# --------------------------------------------------------------------------- cancellation


async def test_consumer_stopping_early_cancels_an_owned_run() -> None:
    translator = AGUITranslator()
    run_input = request()
    result, model = run_streamed(
        weather_agent(),
        translator.to_openai(run_input).messages,
        turns=[
            Turn([Call("get_weather", {"city": "Paris"})], delay=0.002),
            Turn([Text("Should never be requested")], delay=0.002),
        ],
    )
    stream = translator.to_agui(result, run_input)
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if event.type.value == "TOOL_CALL_START":
            break
    await stream.aclose()
    await asyncio.wait([run_task(result)], timeout=10)

    check_prefix(events, run_input)
    assert result.is_complete
    assert run_task(result).done()
    assert model.call_count == 1


async def test_consumer_stopping_early_leaves_a_bare_iterator_running() -> None:
    translator = AGUITranslator()
    run_input = request()
    result, model = run_streamed(
        weather_agent(),
        translator.to_openai(run_input).messages,
        turns=[
            Turn([Call("get_weather", {"city": "Paris"})], delay=0.002),
            Turn([Text("Finished anyway")], delay=0.002),
        ],
    )
    sdk_stream = result.stream_events()
    stream = translator.to_agui(sdk_stream, run_input)
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if event.type.value == "TOOL_CALL_START":
            break
    await stream.aclose()
    rest = [event async for event in sdk_stream]

    check_prefix(events, run_input)
    assert rest, "the SDK stream was left running for its owner"
    assert model.call_count == 2
    assert result.is_complete
    assert result.final_output == "Finished anyway"
