"""Custom-event options whose event ``value`` is itself a source (value, function, async function).

The option and the ``value`` of the ``CustomEvent`` (or ``{"name", "value"}`` mapping) it gives
are each resolved at the event's lifecycle position, in ``to_agui`` and in the wrapper; a source
that raises ends the run with RUN_ERROR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ag_ui.core import BaseEvent, CustomEvent, RunAgentInput, RunErrorEvent
from agents import Agent, RunConfig

from ag_ui_openai_agents import AGUITranslator, OpenAIAgentsAgent
from support.invariants import check_stream
from support.runs import of_type, only, request, run_agui
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn, run_streamed

PROTOCOLS = pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["1.0", "pre-1.0"])


def as_value(value: Any) -> Any:
    return value


def as_sync(value: Any) -> Callable[[], Any]:
    return lambda: value


def as_async(value: Any) -> Callable[[], Any]:
    async def resolve() -> Any:
        return value

    return resolve


SOURCES = pytest.mark.parametrize("wrap", [as_value, as_sync, as_async], ids=["v", "fn", "async"])
VALUES = pytest.mark.parametrize(
    "wrap_value", [as_value, as_sync, as_async], ids=["value", "value-fn", "value-async"]
)
FORMS = pytest.mark.parametrize("form", ["event", "mapping"])


def custom(name: str, value: Any, form: str) -> Any:
    return (
        CustomEvent(name=name, value=value) if form == "event" else {"name": name, "value": value}
    )


def customs(events: list[BaseEvent]) -> list[tuple[str, Any]]:
    return [(e.name, e.value) for e in of_type(events, CustomEvent)]


@PROTOCOLS
@FORMS
@VALUES
@SOURCES
async def test_event_values_are_resolved_in_to_agui(
    wrap: Callable[[Any], Any],
    wrap_value: Callable[[Any], Any],
    form: str,
    protocol_version: str | None,
) -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(protocol_version=protocol_version),
        [Turn([Text("Hi")])],
        start_custom_event=wrap(custom("hello", wrap_value({"k": 1}), form)),
        end_custom_event=wrap(custom("bye", wrap_value(["done"]), form)),
    )
    assert customs(run.events) == [("hello", {"k": 1}), ("bye", ["done"])]
    assert [e.type.value for e in run.events][1] == "CUSTOM"
    assert [e.type.value for e in run.events][-2:] == ["CUSTOM", "RUN_FINISHED"]


async def test_values_are_resolved_at_their_lifecycle_position() -> None:
    log: list[str] = []
    translator = AGUITranslator()
    run_input = request()
    result, _ = run_streamed(
        Agent(name="assistant"),
        translator.to_openai(run_input).messages,
        turns=[Turn([Text("Hi")])],
    )

    def value(label: str) -> Callable[[], str]:
        def resolve() -> str:
            log.append(f"resolve {label}")
            return label

        return resolve

    events: list[BaseEvent] = []
    async for event in translator.to_agui(
        result,
        run_input,
        start_custom_event=CustomEvent(name="s", value=value("start")),
        end_custom_event={"name": "e", "value": value("end")},
    ):
        events.append(event)
        log.append(event.type.value)
    check_stream(events, run_input=run_input)
    assert log[:3] == ["RUN_STARTED", "resolve start", "CUSTOM"]
    assert log[-4:] == ["MESSAGES_SNAPSHOT", "resolve end", "CUSTOM", "RUN_FINISHED"]


def failing(kind: str) -> Callable[[], Any]:
    def fail() -> Any:
        raise ValueError("the value could not be computed")

    async def fail_async() -> Any:
        raise ValueError("the value could not be computed")

    return fail if kind == "sync" else fail_async


@PROTOCOLS
@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("option", ["start_custom_event", "end_custom_event"])
async def test_a_value_source_that_raises_ends_the_run_with_run_error(
    option: str, kind: str, protocol_version: str | None
) -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(protocol_version=protocol_version),
        [Turn([Text("Hi")])],
        expect_error=True,
        run_error_message="The run failed.",
        **{option: CustomEvent(name="broken", value=failing(kind))},
    )
    assert isinstance(run.error, ValueError)
    assert only(run.events, RunErrorEvent).message == "The run failed."
    assert run.events[-1].type.value == "RUN_ERROR"
    assert of_type(run.events, CustomEvent) == []


async def wrapper_events(
    run_input: RunAgentInput, **options: Any
) -> tuple[list[BaseEvent], BaseException | None]:
    model = ScriptedResponsesModel([Turn([Text("Hi")])])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapper = OpenAIAgentsAgent(Agent(name="assistant"), run_config=config, **options)
    events: list[BaseEvent] = []
    error: BaseException | None = None
    try:
        async for event in wrapper.run_streamed(run_input):
            events.append(event)
    except Exception as exc:
        error = exc
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    assert model.call_count == 1
    return events, error


@PROTOCOLS
@FORMS
@VALUES
async def test_event_values_are_resolved_in_the_wrapper(
    wrap_value: Callable[[Any], Any], form: str, protocol_version: str | None
) -> None:
    events, error = await wrapper_events(
        request(protocol_version=protocol_version),
        start_custom_event=as_async(custom("hello", wrap_value({"k": 1}), form)),
        end_custom_event=custom("bye", wrap_value(2), form),
    )
    assert error is None
    assert customs(events) == [("hello", {"k": 1}), ("bye", 2)]


@PROTOCOLS
async def test_a_raising_value_in_the_wrapper_ends_with_run_error(
    protocol_version: str | None,
) -> None:
    events, error = await wrapper_events(
        request(protocol_version=protocol_version),
        end_custom_event={"name": "broken", "value": failing("async")},
        run_error_message="Something went wrong.",
    )
    assert isinstance(error, ValueError)
    assert only(events, RunErrorEvent).message == "Something went wrong."
