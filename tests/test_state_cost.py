"""What a change of the shared state costs the event loop, counted, and the cap on its size.

Counts and sizes, never timings (``benchmarks/loop_lag.py`` times it): each change is written
as JSON once, never deep-copied, never dumped by the standard ``json`` module; a small change
of a large state is one small operation; a state over ``StateUpdates(max_bytes=...)`` ends the
run with ``STATE_TOO_LARGE``, in the request or when a tool makes it.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunErrorEvent, StateDeltaEvent, StateSnapshotEvent
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents import (
    STATE_TOO_LARGE_CODE,
    SharedState,
    StateTooLargeError,
    StateUpdates,
    shared_state,
)
from ag_ui_openai_agents import state as state_module
from ag_ui_openai_agents.outbound import state_diff
from ag_ui_openai_agents.state import DEFAULT_MAX_STATE_BYTES
from support.http import wrapper_for
from support.invariants import client_states
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn
from support.state_runs import KINDS, post_run

set_tracing_disabled(True)

ROWS = 2_000
CHANGES = 3


def rows_state() -> dict[str, Any]:
    rows = [{"id": i, "done": False, "note": f"row {i} of the list"} for i in range(ROWS)]
    return {"title": "Rows", "rows": rows}


@function_tool
async def mark_rows(times: int) -> str:
    """Mark rows done, one change of the shared state at a time."""
    state = shared_state()
    for index in range(times):
        rows = list(state.value["rows"])
        rows[index * 500] = {**rows[index * 500], "done": True}
        state.update(rows=rows)
        await asyncio.sleep(0)
    return "Marked."


def is_whole_state(value: Any) -> bool:
    return isinstance(value, dict) and "rows" in value and "title" in value


class Counted:
    """Wraps ``function`` and counts its calls whose first argument is the whole state."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.whole = 0

    def __call__(self, value: Any, *args: Any, **kwargs: Any) -> Any:
        if is_whole_state(value):
            self.whole += 1
        return self.function(value, *args, **kwargs)


def state_events(events: list[BaseEvent]) -> list[BaseEvent]:
    return [e for e in events if isinstance(e, StateSnapshotEvent | StateDeltaEvent)]


@pytest.mark.parametrize("deltas", [False, True])
async def test_each_change_is_written_once_and_never_deep_copied(
    monkeypatch: pytest.MonkeyPatch, deltas: bool
) -> None:
    deep_copies = Counted(copy.deepcopy)
    json_dumps = Counted(json.dumps)
    stream_dumps = Counted(state_diff.to_json)
    request_dumps = Counted(state_module.to_json)
    monkeypatch.setattr(copy, "deepcopy", deep_copies)
    monkeypatch.setattr(json, "dumps", json_dumps)
    monkeypatch.setattr(state_diff, "to_json", stream_dumps)
    monkeypatch.setattr(state_module, "to_json", request_dumps)
    model = ScriptedResponsesModel(
        [Turn([Call("mark_rows", {"times": CHANGES})]), Turn([Text("Done.")])]
    )
    wrapper = wrapper_for(
        Agent(name="rows", tools=[mark_rows]), model, state=StateUpdates(deltas=deltas)
    )
    run_input = request(state=rows_state())

    events = [event async for event in wrapper.run_streamed(run_input)]

    sent = state_events(events)
    assert len(sent) == CHANGES
    # One JSON write of the request's state (its copy and its size), one per change; no deep
    # copy, no json.dumps of the whole state, whether a change goes as a snapshot or a delta.
    assert request_dumps.whole == 1
    assert stream_dumps.whole == CHANGES
    assert (deep_copies.whole, json_dumps.whole) == (0, 0)
    if deltas:
        assert [type(e).__name__ for e in sent] == ["StateSnapshotEvent"] + ["StateDeltaEvent"] * (
            CHANGES - 1
        )
    assert client_states(events)[-1]["rows"][1000]["done"] is True
    assert run_input.state["rows"][1000]["done"] is False  # the request's object is untouched


async def test_a_small_change_of_a_large_state_is_one_small_operation() -> None:
    @function_tool
    async def reorder() -> str:
        """Mark one row done and put a new row first."""
        state = shared_state()
        state.update(title="Rows")
        await asyncio.sleep(0)
        rows = [{"id": -1, "done": False, "note": "new"}, *state.value["rows"]]
        rows[1500] = {**rows[1500], "done": True}
        state.update(rows=rows)
        return "ok"

    model = ScriptedResponsesModel([Turn([Call("reorder")]), Turn([Text("Done.")])])
    wrapper = wrapper_for(
        Agent(name="rows", tools=[reorder]), model, state=StateUpdates(deltas=True)
    )
    run_input = request(state=rows_state())

    events = await post_run(wrapper, run_input)

    snapshot, delta = state_events(events)
    assert isinstance(snapshot, StateSnapshotEvent) and isinstance(delta, StateDeltaEvent)
    ops = [op.model_dump(mode="json", by_alias=True, exclude_none=True) for op in delta.delta]
    assert ops == [
        {"op": "replace", "path": "/rows/1500/done", "value": True},
        {"op": "add", "path": "/rows/0", "value": {"id": -1, "done": False, "note": "new"}},
    ] or ops == [
        {"op": "add", "path": "/rows/0", "value": {"id": -1, "done": False, "note": "new"}},
        {"op": "replace", "path": "/rows/1500/done", "value": True},
    ]
    assert len(json.dumps(ops)) < 200 < len(json.dumps(snapshot.snapshot)) // 100
    assert client_states(events)[-1]["rows"][1500] == {
        "id": 1499,
        "done": True,
        "note": "row 1499 of the list",
    }


@pytest.mark.parametrize("version", KINDS)
async def test_a_request_state_over_the_cap_is_refused_before_anything_runs(
    version: str | None,
) -> None:
    model = ScriptedResponsesModel([Turn([Text("Hello.")])])
    wrapper = wrapper_for(Agent(name="rows"), model, state=StateUpdates(max_bytes=10_000))

    events = await post_run(wrapper, request(state=rows_state(), protocol_version=version))

    assert [e.type.value for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    end = events[-1]
    assert isinstance(end, RunErrorEvent) and end.code == STATE_TOO_LARGE_CODE == "STATE_TOO_LARGE"
    assert "10000 bytes" in end.message and "row" not in end.message
    assert model.call_count == 0


async def test_a_change_over_the_cap_ends_the_run_and_is_not_sent() -> None:
    @function_tool
    async def grow() -> str:
        """Add a small note, then a large one."""
        state = shared_state()
        state.update(note="small")
        await asyncio.sleep(0)
        state.update(note="x" * 20_000)
        await asyncio.sleep(0)
        return "grown"

    model = ScriptedResponsesModel([Turn([Call("grow")]), Turn([Text("Done.")])])
    wrapper = wrapper_for(
        Agent(name="notes", tools=[grow]), model, state=StateUpdates(max_bytes=10_000)
    )

    events = await post_run(wrapper, request(state={"note": ""}))

    assert [e.snapshot for e in state_events(events)] == [{"note": "small"}]  # type: ignore[union-attr]
    end = events[-1]
    assert isinstance(end, RunErrorEvent) and end.code == STATE_TOO_LARGE_CODE
    assert "20" in end.message and "10000 bytes" in end.message
    assert model.call_count == 1  # the run stopped before the model was asked again


def test_the_default_cap_and_its_checks() -> None:
    assert StateUpdates().max_bytes == DEFAULT_MAX_STATE_BYTES == 1024 * 1024
    assert StateUpdates(max_bytes=None).max_bytes is None
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="max_bytes"):
            StateUpdates(max_bytes=bad)  # type: ignore[arg-type]


def test_a_request_state_is_copied_and_measured_once() -> None:
    given = {"items": [{"name": "milk"}]}

    state = SharedState.from_request(given, max_bytes=100)
    state.value["items"].append({"name": "bread"})

    assert given == {"items": [{"name": "milk"}]}
    assert SharedState.from_request(None).value == {}
    with pytest.raises(StateTooLargeError) as refused:
        SharedState.from_request({"items": ["x" * 200]}, max_bytes=100)
    assert (refused.value.limit, refused.value.code) == (100, STATE_TOO_LARGE_CODE)
    assert refused.value.size == len('{"items":["' + "x" * 200 + '"]}')
