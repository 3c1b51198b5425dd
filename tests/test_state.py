"""Shared state: ``SharedState`` semantics and its STATE_SNAPSHOT events during a run."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, StateSnapshotEvent, ToolCallResultEvent
from agents import Agent, RunContextWrapper, function_tool, set_tracing_disabled

from ag_ui_openai_agents import AGUITranslator, SharedState, shared_state, use_shared_state
from ag_ui_openai_agents.subagents import _current as current_sink
from support.invariants import check_stream
from support.runs import brief, request
from support.scripted import Call, Text, Turn, TurnSource, run_streamed

set_tracing_disabled(True)


# --------------------------------------------------------------------------- SharedState


def test_update_merges_top_level_keys() -> None:
    state = SharedState({"a": 1, "b": {"x": 1}})

    state.update(b={"y": 2}, c=3)

    assert state.value == {"a": 1, "b": {"y": 2}, "c": 3}


def test_set_replaces_the_whole_state() -> None:
    state = SharedState({"a": 1})

    state.set(["anything", "json"])

    assert state.value == ["anything", "json"]


def test_update_of_a_non_dict_state_starts_a_dict() -> None:
    state = SharedState([1, 2])

    state.update(k="v")

    assert state.value == {"k": "v"}


def test_missing_state_starts_empty() -> None:
    assert SharedState().value == {}
    assert SharedState(None).value == {}


def test_the_request_state_is_never_mutated() -> None:
    given = {"items": ["a"], "nested": {"n": 1}}
    state = SharedState(given)

    state.value["items"].append("b")
    state.value["nested"]["n"] = 2
    state.update(extra=True)

    assert given == {"items": ["a"], "nested": {"n": 1}}


def test_every_change_is_counted_and_reported_once() -> None:
    state = SharedState({})
    assert (state.version, state.take_change()) == (0, False)

    state.update(a=1)
    state.set({"b": 2})

    assert state.version == 2
    assert state.take_change() is True
    assert state.take_change() is False


def test_shared_state_outside_a_run_raises_lookup_error() -> None:
    with pytest.raises(LookupError):
        shared_state()


def test_use_shared_state_sets_and_restores_the_current_state() -> None:
    outer, inner = SharedState({"n": 1}), SharedState({"n": 2})

    with use_shared_state(outer):
        assert shared_state() is outer
        with use_shared_state(inner):
            assert shared_state() is inner
        assert shared_state() is outer

    with pytest.raises(LookupError):
        shared_state()


def test_use_shared_state_is_the_run_scope_state_and_subagent_sink() -> None:
    state = SharedState({"count": 1})
    with use_shared_state(state):
        assert shared_state() is state
        assert current_sink.get() is state.subagents
    assert current_sink.get() is None
    with pytest.raises(LookupError):
        shared_state()


# --------------------------------------------------------------------------- during a run


@function_tool
def add_item(name: str) -> str:
    """Add an item to the shared list."""
    state = shared_state()
    state.update(items=[*state.value.get("items", []), name])
    return f"Added {name}."


@function_tool
def read_items() -> str:
    """Read the shared list without changing it."""
    return ", ".join(shared_state().value.get("items", []))


async def run_with_state(
    agent: Agent[Any], run_input: RunAgentInput, turns: TurnSource, *, pass_state: bool = True
) -> tuple[list[BaseEvent], SharedState]:
    """Start the run inside ``use_shared_state`` and translate it with the same state."""
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, turns=turns)
    events = [
        event
        async for event in translator.to_agui(
            result, run_input, shared_state=state if pass_state else None
        )
    ]
    check_stream(events, run_input=run_input)
    return events, state


async def test_each_tool_change_is_streamed_before_that_tools_result() -> None:
    run_input = request(state={"items": ["bread"]})

    events, state = await run_with_state(
        Agent(name="shopper", tools=[add_item, read_items]),
        run_input,
        [
            Turn([Call("add_item", {"name": "milk"})]),
            Turn([Call("read_items")]),
            Turn([Call("add_item", {"name": "eggs"})]),
            Turn([Text("Done")]),
        ],
    )

    relevant = [e for e in brief(events) if e[0] in ("STATE_SNAPSHOT", "TOOL_CALL_RESULT")]
    assert relevant == [
        ("STATE_SNAPSHOT", {"items": ["bread", "milk"]}),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", "Added milk."),
        ("TOOL_CALL_RESULT", "call_2-result", "call_2", "bread, milk"),
        ("STATE_SNAPSHOT", {"items": ["bread", "milk", "eggs"]}),
        ("TOOL_CALL_RESULT", "call_3-result", "call_3", "Added eggs."),
    ]
    assert state.value == {"items": ["bread", "milk", "eggs"]}
    assert run_input.state == {"items": ["bread"]}


async def test_change_in_dynamic_instructions_reaches_the_client_before_the_reply() -> None:
    def instructions(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        shared_state().update(seen=True)
        return "Be brief."

    events, _ = await run_with_state(
        Agent(name="assistant", instructions=instructions),
        request(state={}),
        [Turn([Text("Hi", id="msg_hi")])],
    )

    types = [e.type.value for e in events]
    assert types.index("STATE_SNAPSHOT") < types.index("TEXT_MESSAGE_START")
    assert [e for e in brief(events) if e[0] == "STATE_SNAPSHOT"] == [
        ("STATE_SNAPSHOT", {"seen": True})
    ]


async def test_changes_are_not_streamed_when_the_state_is_not_passed_to_to_agui() -> None:
    events, state = await run_with_state(
        Agent(name="shopper", tools=[add_item]),
        request(state={}),
        [Turn([Call("add_item", {"name": "tea"})]), Turn([Text("ok")])],
        pass_state=False,
    )

    assert "STATE_SNAPSHOT" not in [e.type.value for e in events]
    assert state.value == {"items": ["tea"]}


async def test_a_run_that_changes_nothing_streams_no_state() -> None:
    events, _ = await run_with_state(
        Agent(name="shopper", tools=[read_items]),
        request(state={"items": ["x"]}),
        [Turn([Call("read_items")]), Turn([Text("ok")])],
    )

    assert "STATE_SNAPSHOT" not in [e.type.value for e in events]


@function_tool(failure_error_function=None)
def add_then_fail(name: str) -> str:
    """Change the state, then fail."""
    shared_state().update(added=name)
    raise RuntimeError("tool failed after changing the state")


async def test_change_made_before_a_failure_is_streamed_before_run_error() -> None:
    translator = AGUITranslator()
    run_input = request(state={})
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(
            Agent(name="a", tools=[add_then_fail]),
            translator.to_openai(run_input).messages,
            turns=[Turn([Call("add_then_fail", {"name": "x"})])],
        )
    events: list[BaseEvent] = []
    with pytest.raises(Exception, match="tool failed"):
        async for event in translator.to_agui(result, run_input, shared_state=state):
            events.append(event)
    check_stream(events, run_input=run_input)

    assert state.value == {"added": "x"}
    assert [e for e in brief(events) if e[0] == "STATE_SNAPSHOT"] == [
        ("STATE_SNAPSHOT", {"added": "x"})
    ]


async def progress_run(
    tool: Any, release: asyncio.Event | threading.Event
) -> tuple[list[BaseEvent], SharedState]:
    """Run ``tool`` once; read the stream until the tool's progress arrives, then release it."""
    run_input = request(state={"progress": 0})
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    agent = Agent(name="worker", tools=[tool])
    turns = [Turn([Call(tool.name, {}, call_id="call_w")]), Turn([Text("Done")])]
    with use_shared_state(state):
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, turns=turns)
    events: list[BaseEvent] = []
    async for event in translator.to_agui(result, run_input, shared_state=state):
        events.append(event)
        if isinstance(event, StateSnapshotEvent) and event.snapshot == {"progress": 50}:
            assert not [e for e in events if isinstance(e, ToolCallResultEvent)]
            release.set()
    check_stream(events, run_input=run_input)
    return events, state


async def test_progress_reported_while_a_tool_works_reaches_the_client_before_it_returns() -> None:
    """The tool waits for the test, which waits for the snapshot: only a pushed change can
    reach the client in time (a change seen only with the next SDK event would hang)."""
    release = asyncio.Event()

    @function_tool
    async def long_job() -> str:
        """Work in steps, reporting progress."""
        shared_state().update(progress=50)
        await release.wait()
        shared_state().update(progress=100)
        return "finished"

    events, state = await asyncio.wait_for(progress_run(long_job, release), timeout=30)
    relevant = [e for e in brief(events) if e[0] in ("STATE_SNAPSHOT", "TOOL_CALL_RESULT")]
    assert relevant == [
        ("STATE_SNAPSHOT", {"progress": 50}),
        ("STATE_SNAPSHOT", {"progress": 100}),
        ("TOOL_CALL_RESULT", "call_w-result", "call_w", "finished"),
    ]
    assert state.value == {"progress": 100}


async def test_progress_of_a_sync_tool_in_its_worker_thread_is_pushed_too() -> None:
    release = threading.Event()

    @function_tool
    def sync_job() -> str:
        """Work in steps in a thread, reporting progress."""
        shared_state().update(progress=50)
        release.wait(timeout=30)
        return "finished" if release.is_set() else "never released"

    events, _ = await asyncio.wait_for(progress_run(sync_job, release), timeout=30)
    results = [e.content for e in events if isinstance(e, ToolCallResultEvent)]
    assert results == ["finished"]
