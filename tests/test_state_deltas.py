"""STATE_DELTA: shared state streamed as JSON Patch, through the real Runner, both request kinds."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import BaseEvent, StateDeltaEvent, StateSnapshotEvent, ToolCallResultEvent
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents import StateUpdates, shared_state
from support.http import wrapper_for
from support.invariants import client_states
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn
from support.state_runs import KINDS, post_run, run_with_state

set_tracing_disabled(True)

PLAN = {
    "title": "Plan a trip to Lisbon with a museum, a tram ride and a dinner",
    "steps": [
        {"description": f"Step {n}: something worth doing on the trip", "done": False}
        for n in range(4)
    ],
}


@function_tool
def complete_step(index: int) -> str:
    """Mark one step of the plan as done."""
    state = shared_state()
    steps = [dict(step) for step in state.value["steps"]]
    steps[index]["done"] = True
    state.update(steps=steps)
    return f"Step {index} done."


@function_tool
def rename_plan(title: str) -> str:
    """Give the plan a new title."""
    shared_state().update(title=title)
    return "Renamed."


def turns() -> list[Turn]:
    return [
        Turn([Call("complete_step", {"index": 0})]),
        Turn([Call("complete_step", {"index": 1})]),
        Turn([Call("rename_plan", {"title": "Lisbon"})]),
        Turn([Text("Two steps are done.")]),
    ]


def state_events(events: list[BaseEvent]) -> list[str]:
    return [e.type.value for e in events if isinstance(e, StateSnapshotEvent | StateDeltaEvent)]


@pytest.mark.parametrize("version", KINDS)
async def test_changes_after_the_first_snapshot_stream_as_deltas(version: str | None) -> None:
    agent = Agent(name="planner", tools=[complete_step, rename_plan])
    run_input = request(state=PLAN, protocol_version=version)

    events, state = await run_with_state(agent, run_input, turns(), state=StateUpdates(deltas=True))

    # The first change is a snapshot (the client holds none from this run yet); the next two
    # are small patches of a larger state.
    assert state_events(events) == ["STATE_SNAPSHOT", "STATE_DELTA", "STATE_DELTA"]
    deltas = [e for e in events if isinstance(e, StateDeltaEvent)]
    assert [op.model_dump(mode="json", by_alias=True) for op in deltas[0].delta] == [
        {"op": "replace", "path": "/steps/1/done", "value": True}
    ]
    assert client_states(events)[-1] == state.value
    # Each change still reaches the client before the result of the tool that made it.
    kinds = [e.type.value for e in events if e.type.value in ("STATE_DELTA", "TOOL_CALL_RESULT")]
    assert kinds == [
        "TOOL_CALL_RESULT",
        "STATE_DELTA",
        "TOOL_CALL_RESULT",
        "STATE_DELTA",
        "TOOL_CALL_RESULT",
    ]


@pytest.mark.parametrize("version", KINDS)
async def test_the_client_ends_with_the_same_states_as_with_snapshots_only(
    version: str | None,
) -> None:
    agent = Agent(name="planner", tools=[complete_step, rename_plan])

    with_deltas, _ = await run_with_state(
        agent,
        request(state=PLAN, protocol_version=version),
        turns(),
        state=StateUpdates(deltas=True),
    )
    snapshots_only, _ = await run_with_state(
        agent, request(state=PLAN, protocol_version=version), turns()
    )

    assert state_events(snapshots_only) == ["STATE_SNAPSHOT"] * 3
    assert client_states(with_deltas) == client_states(snapshots_only)


@pytest.mark.parametrize("version", KINDS)
async def test_an_initial_state_snapshot_is_what_the_first_delta_patches(
    version: str | None,
) -> None:
    agent = Agent(name="planner", tools=[complete_step])
    run_input = request(state=PLAN, protocol_version=version)

    events, state = await run_with_state(
        agent,
        run_input,
        [Turn([Call("complete_step", {"index": 2})]), Turn([Text("Done.")])],
        state=StateUpdates(deltas=True),
        initial_state=PLAN,
    )

    assert state_events(events) == ["STATE_SNAPSHOT", "STATE_DELTA"]
    assert client_states(events) == [PLAN, state.value]


@pytest.mark.parametrize("version", KINDS)
async def test_a_change_that_undoes_itself_sends_nothing(version: str | None) -> None:
    @function_tool
    async def touch() -> str:
        """Change the state and change it back (async: nothing is sent in between)."""
        state = shared_state()
        before = state.value["title"]
        state.update(title="temporary")
        state.update(title=before)
        return "ok"

    agent = Agent(name="planner", tools=[complete_step, touch])
    events, _ = await run_with_state(
        agent,
        request(state=PLAN, protocol_version=version),
        [
            Turn([Call("complete_step", {"index": 0})]),
            Turn([Call("touch")]),
            Turn([Text("Done.")]),
        ],
        state=StateUpdates(deltas=True),
    )

    # The second tool's change is folded before it is sent: equal to what the client holds.
    assert state_events(events) == ["STATE_SNAPSHOT"]


@pytest.mark.parametrize("version", KINDS)
async def test_the_served_wrapper_streams_deltas_when_asked(version: str | None) -> None:
    model = ScriptedResponsesModel(turns())
    agent = Agent(name="planner", tools=[complete_step, rename_plan])

    events = await post_run(
        wrapper_for(agent, model, state=StateUpdates(deltas=True)),
        request(state=PLAN, protocol_version=version),
    )
    plain = await post_run(
        wrapper_for(agent, ScriptedResponsesModel(turns())),
        request(state=PLAN, protocol_version=version),
    )

    assert state_events(events) == ["STATE_SNAPSHOT", "STATE_DELTA", "STATE_DELTA"]
    assert state_events(plain) == ["STATE_SNAPSHOT"] * 3
    assert client_states(events) == client_states(plain)
    results = [e.content for e in events if isinstance(e, ToolCallResultEvent)]
    assert results == ["Step 0 done.", "Step 1 done.", "Renamed."]


def test_the_capabilities_say_whether_deltas_are_sent() -> None:
    agent: Agent[Any] = Agent(name="planner")

    assert wrapper_for(agent, state=StateUpdates(deltas=True)).capabilities().state.deltas is True
    assert wrapper_for(agent).capabilities().state.deltas is False
