"""Faults at every position of a multi-turn run: the stream stays valid and the run stops.

The clean run (``support.reliability_scenario``) reasons, talks, calls two tools in parallel,
gets their results and answers. For each position of its SDK stream the tests inject, where
that fault can happen there: the model raising, the turn ending incomplete, a refusal, a tool
raising, a guardrail tripwire, ``result.cancel()`` by the consumer, a lifecycle factory
raising, and the consumer leaving (closing the ``to_agui`` generator, the wrapper's generator,
or the HTTP stream). Each time:

* the AG-UI stream is valid and ends in exactly one terminal event (a clean prefix when the
  consumer left);
* the SDK run is over (``result.is_complete``) and the model is not called after the
  consumer saw the end or left;
* no asyncio task started by the run is left once things settle;
* RUN_FINISHED / RUN_ERROR report exactly the usage of the responses the stream delivered.

The module prints which SDK positions each fault covered.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any, cast

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
)
from agents import (
    Agent,
    GuardrailFunctionOutput,
    ToolGuardrailFunctionOutput,
    function_tool,
    input_guardrail,
    output_guardrail,
    set_tracing_disabled,
    tool_input_guardrail,
)
from fastapi import FastAPI

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from support.e2e import serve_app
from support.invariants import check_stream, parse_sse
from support.reliability_drive import RUN_INPUT, Case, clean_run, drive
from support.reliability_harness import asgi_client, settle_tasks
from support.reliability_http import EVENT_DELAY, Served, leave_after, scenario_turn
from support.reliability_scenario import (
    FaultModel,
    InjectedModelError,
    ModelFault,
    Pacer,
    Tools,
    clean_turns,
    refusal_turns,
    run_config,
)
from support.runs import check_prefix
from support.scripted import Call, Text, Turn

set_tracing_disabled(True)

COVERAGE: dict[str, set[int]] = defaultdict(set)
"""Fault -> the SDK positions (events delivered before it struck) it was injected at."""
INJECTIONS: dict[str, int] = defaultdict(int)


@pytest.fixture(scope="module", autouse=True)
def _coverage_report() -> Iterator[None]:
    yield
    lines = [
        f"  {fault}: {INJECTIONS[fault]} injections, {len(spots)} positions {sorted(spots)}"
        for fault, spots in sorted(COVERAGE.items())
    ]
    total = sum(INJECTIONS.values())
    print(f"\nfaults injected: {total}\n" + "\n".join(lines))


def covered(fault: str, position: int) -> None:
    COVERAGE[fault].add(position)
    INJECTIONS[fault] += 1


def ended_with_error(case: Case, kind: type[BaseException] | None = None) -> None:
    assert isinstance(case.events[-1], RunErrorEvent), case.events[-1].type.value
    assert case.error is not None
    if kind is not None:
        assert isinstance(case.error, kind), repr(case.error)


# --------------------------------------------------------------------------- model faults


async def test_the_model_raising_at_every_raw_position() -> None:
    clean = await clean_run()
    problems: list[str] = []
    for position, call, index in clean.raw:
        model = FaultModel(clean_turns(), ModelFault(call, index, "raise"))
        case = await drive(Tools().agent(), model)
        ended_with_error(case, InjectedModelError)
        if case.position != position:
            problems.append(f"raise before #{position}: {case.position} events were delivered")
        assert model.call_count == call + 1
        covered("model raises", case.position)
    assert not problems, problems


async def test_an_incomplete_turn_at_every_raw_position() -> None:
    clean = await clean_run()
    for position, call, index in clean.raw:
        if index == 0:
            continue  # a response always starts with response.created
        model = FaultModel(clean_turns(), ModelFault(call, index, "incomplete"))
        case = await drive(Tools().agent(), model)
        ended_with_error(case)
        assert case.pacer.delivered[-1].data.type == "response.incomplete"  # type: ignore[union-attr]
        assert case.position == position + 1
        assert model.call_count == call + 1
        covered("incomplete turn", position)


async def test_a_refusal_at_every_item_boundary() -> None:
    clean = await clean_run()
    for call, turn in enumerate(clean_turns()):
        starts = clean.item_starts(call)
        for boundary in range(len(turn.items) + 1):
            turns = refusal_turns(call, boundary)
            calls_made = any(type(item).__name__ == "Call" for item in turns[call].items)
            case = await drive(Tools().agent(), FaultModel(turns), lockstep=False)
            if calls_made:  # the tools still run and the model answers after them
                assert isinstance(case.events[-1], RunFinishedEvent)
                assert case.model.call_count == 2
            else:
                ended_with_error(case)
                assert type(case.error).__name__ == "ModelRefusalError"
                assert case.model.call_count == call + 1
            covered("refusal", starts[boundary])


# --------------------------------------------------------------------------- tools


TOOL_PLANS = {
    "weather raises": Tools(failing=frozenset({"weather"})),
    "clock raises": Tools(failing=frozenset({"clock"})),
    "both raise": Tools(failing=frozenset({"weather", "clock"})),
    "weather raises, clock hangs": Tools(
        failing=frozenset({"weather"}), hanging=frozenset({"clock"})
    ),
}


@pytest.mark.parametrize("plan", list(TOOL_PLANS))
async def test_a_tool_raising(plan: str) -> None:
    template = TOOL_PLANS[plan]
    tools = Tools(failing=template.failing, hanging=template.hanging)

    def watch(pacer: Pacer) -> None:
        tools.position = lambda: len(pacer.delivered)

    case = await drive(tools.agent(), FaultModel(clean_turns()), before_run=watch)
    ended_with_error(case)
    assert "the tool failed" in str(case.error)
    assert case.model.call_count == 1, "the model ran after a tool failed"
    for name in tools.hanging:
        assert name in [started for started, _ in tools.started] and name not in tools.finished
    for _, position in tools.started:
        covered("tool raises", position)


# --------------------------------------------------------------------------- guardrails


def _tripping_input_guardrail(pacer_box: list[Pacer], position: int) -> Any:
    @input_guardrail(run_in_parallel=True)
    async def watchful(context: Any, agent: Any, given: Any) -> GuardrailFunctionOutput:
        await pacer_box[0].reached(position)
        return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    return watchful


async def test_a_parallel_input_guardrail_tripping_at_every_position() -> None:
    clean = await clean_run()
    for position in range(len(clean.kinds) + 1):
        box: list[Pacer] = []
        agent = Tools().agent(input_guardrails=[_tripping_input_guardrail(box, position)])
        # The SDK holds events back while a parallel guardrail runs, so the model cannot keep
        # pace with the consumer here; a small delay spreads the stream out instead.
        model = FaultModel(clean_turns(), delay=0.001)
        case = await drive(agent, model, before_run=box.append, lockstep=False)
        ended_with_error(case)
        assert type(case.error).__name__ == "InputGuardrailTripwireTriggered"
        covered("guardrail tripwire", case.position)


async def test_a_blocking_input_guardrail_and_an_output_guardrail_tripping() -> None:
    @input_guardrail(run_in_parallel=False)
    async def gate(context: Any, agent: Any, given: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="no", tripwire_triggered=True)

    @output_guardrail
    async def censor(context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="no", tripwire_triggered=True)

    blocked = await drive(Tools().agent(input_guardrails=[gate]), FaultModel(clean_turns()))
    ended_with_error(blocked)
    assert blocked.model.call_count == 0
    covered("guardrail tripwire", blocked.position)
    censored = await drive(Tools().agent(output_guardrails=[censor]), FaultModel(clean_turns()))
    ended_with_error(censored)
    assert type(censored.error).__name__ == "OutputGuardrailTripwireTriggered"
    covered("guardrail tripwire", censored.position)


async def test_a_tool_input_guardrail_raising() -> None:
    @tool_input_guardrail
    def refuse(data: Any) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.raise_exception(output_info="no")

    tools = Tools()
    agent = tools.agent()
    agent.tools[0].tool_input_guardrails = [refuse]  # type: ignore[union-attr]
    case = await drive(agent, FaultModel(clean_turns()))
    ended_with_error(case)
    assert type(case.error).__name__ == "ToolInputGuardrailTripwireTriggered"
    assert case.model.call_count == 1
    covered("guardrail tripwire", case.position)


# --------------------------------------------------------------------------- the consumer


async def test_the_consumer_cancelling_at_every_position() -> None:
    clean = await clean_run()
    for position in range(len(clean.kinds)):
        case = await drive(
            Tools().agent(), FaultModel(clean_turns()), hooks={position: lambda r: r.cancel()}
        )
        end = case.events[-1]
        assert isinstance(end, RunFinishedEvent)
        assert isinstance(end.outcome, RunFinishedCancelledOutcome), end.outcome
        assert case.position == position + 1
        covered("consumer cancel", position)


async def test_the_consumer_leaving_to_agui_at_every_event() -> None:
    clean = await clean_run()
    for count in range(1, clean.agui_count):
        tools = Tools()
        case = await drive(tools.agent(), FaultModel(clean_turns()), leave_after=count)
        assert len(case.events) == count
        completed = clean.item_starts(0)[-1]
        assert case.position > completed or not tools.started, "tools ran after the consumer left"
        covered("consumer leaves to_agui", case.position)


# --------------------------------------------------------------------------- lifecycle factories


def _raiser(message: str) -> Callable[[], Any]:
    def factory() -> Any:
        raise RuntimeError(message)

    return factory


@pytest.mark.parametrize(
    "option", ["start_custom_event", "initial_state", "final_state", "end_custom_event"]
)
async def test_a_lifecycle_factory_raising(option: str) -> None:
    clean = await clean_run()
    model = FaultModel(clean_turns(), delay=0.001)
    case = await drive(Tools().agent(), model, **{option: _raiser(f"{option} broke")})
    ended_with_error(case, RuntimeError)
    assert str(case.error) == f"{option} broke"
    early = option in ("start_custom_event", "initial_state")
    # An early factory fails before to_agui reads any SDK event; a late one after all of them.
    assert case.position == (0 if early else len(clean.kinds))
    covered("factory raises", case.position)


async def test_a_custom_event_factory_giving_no_event() -> None:
    async def nonsense() -> Any:
        return 42

    case = await drive(Tools().agent(), FaultModel(clean_turns()), end_custom_event=nonsense)
    ended_with_error(case, TypeError)
    covered("factory raises", case.position)


# --------------------------------------------------------------------------- the wrapper


def _wrapper(tools: Tools, model: FaultModel, **options: Any) -> OpenAIAgentsAgent:
    return OpenAIAgentsAgent(tools.agent(), run_config=run_config(model), **options)


async def _leave_wrapper(count: int) -> set[asyncio.Task[Any]]:
    """Read ``count`` events from the wrapper and leave; return the tasks left behind."""
    tools, model = Tools(), FaultModel(clean_turns(), delay=0.002)
    before = asyncio.all_tasks()
    stream = _wrapper(tools, model).run_streamed(RUN_INPUT)
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if len(events) >= count:
            break
    await cast(AsyncGenerator[BaseEvent, None], stream).aclose()
    calls = model.call_count
    check_prefix(events, RUN_INPUT)
    left = await settle_tasks(before, timeout=2.0)
    assert model.call_count == calls, "the model was called after the consumer left"
    assert count > 2 or not tools.started, "tools ran after the consumer left"
    return left


async def test_the_consumer_leaving_the_wrapper_at_every_event() -> None:
    clean = await clean_run()
    for count in range(1, clean.agui_count):
        left = await _leave_wrapper(count)
        assert not left, f"tasks left after leaving at event {count}: {left}"
        covered("consumer leaves wrapper (AG-UI events read)", count)


# --------------------------------------------------------------------------- HTTP disconnect


@pytest.mark.slow
def test_the_client_dropping_the_http_stream_at_every_event() -> None:
    clean_count = asyncio.run(clean_run()).agui_count
    served = Served(Tools(), FaultModel(scenario_turn, delay=EVENT_DELAY))
    problems: list[str] = []
    with serve_app(served.app) as base_url, httpx.Client(timeout=10) as client:
        assert client.get(f"{base_url}/probe").status_code == 200
        for count in range(1, clean_count):
            problems += leave_after(served, client, base_url, RUN_INPUT, count)
            covered("client drops HTTP (AG-UI events read)", count)
    assert not problems, problems


# --------------------------------------------------------------------------- unencodable values


class _Opaque:
    """A value a tool may keep in its state that JSON cannot carry."""


@function_tool
def list_reports() -> str:
    """File names as the OS gives them: undecodable bytes become lone surrogates."""
    return os.fsdecode(b"report-\xff.txt")


@function_tool
def keep_handle() -> str:
    """Keep a handle in the shared state."""
    shared_state().update(handle=_Opaque())
    return "kept"


@pytest.mark.parametrize("tool", [list_reports, keep_handle], ids=["surrogate", "state"])
async def test_an_unencodable_event_still_ends_the_http_stream(tool: Any) -> None:
    """An event JSON cannot carry ends the run with RUN_ERROR, not with a cut stream."""
    model = FaultModel([Turn([Call(tool.name, {})]), Turn([Text("Done.")])])
    app = FastAPI()
    wrapped = OpenAIAgentsAgent(Agent(name="files", tools=[tool]), run_config=run_config(model))
    add_openai_agents_fastapi_endpoint(app, wrapped, "/agent")
    async with asgi_client(app) as client:
        response = await client.post(
            "/agent",
            content=RUN_INPUT.model_dump_json(by_alias=True),
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 200
    events = parse_sse(response.text)
    check_stream(events, run_input=RUN_INPUT)
    assert isinstance(events[-1], RunErrorEvent)
    assert "report-" not in response.text and "_Opaque" not in response.text
    assert model.call_count == 1, "the run went on after its stream ended"
