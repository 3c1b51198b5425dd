"""A long-running tool reports progress through the shared state while it works.

The tool waits, between its steps, for the test, and the test releases it only once it has read
the state event of the step before: a progress report held back until the tool returns would
hang the run (each wait is bounded, so a regression fails instead of hanging). The tool writes
no event by hand: it changes ``shared_state()``, and the run pushes the change out at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, ToolCallResultEvent
from agents import Agent, function_tool, set_tracing_disabled
from pydantic import BaseModel

from ag_ui_openai_agents import (
    AGUITranslator,
    SharedState,
    StateUpdates,
    shared_state,
    use_shared_state,
)
from support.http import wrapper_for
from support.invariants import check_stream, client_states
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, run_streamed
from support.state_runs import KINDS

set_tracing_disabled(True)

STEPS = [
    {"description": "Gather ingredients", "status": "pending"},
    {"description": "Melt butter and mix with cocoa", "status": "pending"},
    {"description": "Bake for 25 minutes", "status": "pending"},
]
WAIT = 30.0


class Step(BaseModel):
    description: str
    status: str


class Gate:
    """Lets the tool's next step go once the client has seen the previous one."""

    def __init__(self) -> None:
        self.released = asyncio.Event()

    async def wait(self) -> None:
        await asyncio.wait_for(self.released.wait(), timeout=WAIT)
        self.released.clear()


def plan_agent(gate: Gate) -> Agent[Any]:
    @function_tool
    async def generate_task_steps(steps: list[Step]) -> str:
        """Carry out the plan's steps one by one, reporting each in the shared state."""
        state = shared_state()
        current = [step.model_dump() for step in steps]
        state.update(steps=current)
        for step in current:
            await gate.wait()
            step["status"] = "completed"
            state.update(steps=[dict(s) for s in current])
        return "All steps completed."

    return Agent(name="planner", tools=[generate_task_steps])


def turns() -> list[Turn]:
    return [
        Turn([Call("generate_task_steps", {"steps": STEPS}, call_id="call_plan")]),
        Turn([Text("The plan is done.")]),
    ]


async def read_releasing(stream: AsyncIterator[BaseEvent], gate: Gate) -> list[BaseEvent]:
    """Read the stream; after each state event, let the tool take its next step."""
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if event.type.value in ("STATE_SNAPSHOT", "STATE_DELTA"):
            assert not [e for e in events if isinstance(e, ToolCallResultEvent)]
            gate.released.set()
    return events


def check_progress(events: list[BaseEvent], run_input: RunAgentInput) -> list[str]:
    """Check the stream and the states the client went through; return the state event types
    that came before the tool's result."""
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    done = [[s["status"] for s in state["steps"]] for state in client_states(events)]
    assert done == [
        ["pending", "pending", "pending"],
        ["completed", "pending", "pending"],
        ["completed", "completed", "pending"],
        ["completed", "completed", "completed"],
    ]
    names = [e.type.value for e in events]
    result = names.index("TOOL_CALL_RESULT")
    assert names.index("TOOL_CALL_END") < names.index("STATE_SNAPSHOT") < result
    return [n for n in names[:result] if n.startswith("STATE_")]


@pytest.mark.parametrize("deltas", [False, True], ids=["snapshots", "deltas"])
@pytest.mark.parametrize("version", KINDS)
async def test_each_step_reaches_the_client_while_the_tool_still_works(
    version: str | None, deltas: bool
) -> None:
    gate = Gate()
    run_input = request(state={}, protocol_version=version)
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(
            plan_agent(gate), translator.to_openai(run_input).messages, turns=turns()
        )
    stream = translator.to_agui(
        result, run_input, shared_state=state, state=StateUpdates(deltas=deltas)
    )

    events = await asyncio.wait_for(read_releasing(stream, gate), timeout=WAIT)

    expected = ["STATE_DELTA"] * 3 if deltas else ["STATE_SNAPSHOT"] * 3
    assert check_progress(events, run_input) == ["STATE_SNAPSHOT", *expected]


@pytest.mark.parametrize("version", KINDS)
async def test_the_wrapper_streams_the_progress_of_its_tools_too(version: str | None) -> None:
    gate = Gate()
    wrapper = wrapper_for(
        plan_agent(gate), ScriptedResponsesModel(turns()), state=StateUpdates(deltas=True)
    )
    run_input = request(state={}, protocol_version=version)

    events = await asyncio.wait_for(
        read_releasing(wrapper.run_streamed(run_input), gate), timeout=WAIT
    )

    assert check_progress(events, run_input) == ["STATE_SNAPSHOT", *["STATE_DELTA"] * 3]
