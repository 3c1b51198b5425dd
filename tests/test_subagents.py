"""Agents used as tools with ``on_stream=subagent_events``, through the real Runner.

A manager calls specialists built with ``Agent.as_tool``; every run goes through the real
``Runner.run_streamed`` on a scripted model and through both entry points (the translator in a
run scope, and ``OpenAIAgentsAgent``), for AG-UI 1.0 requests and requests without
``protocolVersion`` (those with ``subagents_for_pre_1_0_clients``: without it they see no
subagent, see test_subagents_clients.py). Every stream is checked with the subagent rules of
the stream checker.
"""

from __future__ import annotations

import logging
from itertools import pairwise
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    RunFinishedCancelledOutcome,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from agents import Agent, function_tool

from ag_ui_openai_agents import (
    AGUITranslator,
    SharedState,
    Subagents,
    subagent_events,
    use_shared_state,
)
from ag_ui_openai_agents.run_queue import IDLE, RunQueue
from ag_ui_openai_agents.subagents import SubagentSink, streams_as_subagent
from support.runs import AguiRun, _drain, request, run_agui, user
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, TurnUsage, run_streamed
from support.subagent_runs import AgentScripts, run_served, run_translated

PROTOCOLS = pytest.mark.parametrize("protocol", ["1.0", None], ids=["1.0", "pre-1.0-opted-in"])
ENTRY_POINTS = pytest.mark.parametrize("entry", ["translator", "agent"])


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


def specialist(name: str, instructions: str, **kw: Any) -> Agent[Any]:
    return Agent(name=name, instructions=instructions, tools=[lookup], **kw)


RESEARCHER = specialist("Researcher", "research", handoff_description="Finds facts.")
WRITER = specialist("Writer", "write")


def manager(*tools: Any) -> Agent[Any]:
    return Agent(name="Manager", instructions="manage", tools=list(tools))


def research_tool(**kw: Any) -> Any:
    return RESEARCHER.as_tool(
        tool_name="research_topic",
        tool_description="Research a topic.",
        on_stream=kw.pop("on_stream", subagent_events),
        **kw,
    )


def write_tool() -> Any:
    return WRITER.as_tool(
        tool_name="write_prose", tool_description="Write prose.", on_stream=subagent_events
    )


def working(topic: str, answer: str) -> list[Turn]:
    """A specialist's turns: look the topic up, then answer."""
    return [Turn([Call("lookup", {"topic": topic})]), Turn([Text(answer)])]


ONE_CALL = {
    "manage": [
        Turn([Call("research_topic", {"input": "owls"}, call_id="call_outer")]),
        Turn([Text("Owls hoot at night.")]),
    ],
    "research": {"owls": working("owls", "They hoot.")},
}


async def run(
    entry: str, agent: Agent[Any], scripts: dict[str, Any], protocol: str | None = "1.0"
) -> AguiRun:
    """One run; a request without ``protocolVersion`` is served with the opt-in."""
    run_input = request(protocol_version=protocol)
    option = {"subagents": Subagents(pre_1_0_clients=protocol is None)}
    if entry == "agent":
        return await run_served(agent, run_input, AgentScripts(scripts), **option)
    return await run_translated(agent, run_input, AgentScripts(scripts), **option)


def positions(events: list[BaseEvent], cls: type[BaseEvent], **match: Any) -> list[int]:
    return [
        i
        for i, e in enumerate(events)
        if isinstance(e, cls) and all(getattr(e, k) == v for k, v in match.items())
    ]


def tagged(events: list[BaseEvent], subagent_run_id: str) -> list[BaseEvent]:
    return [
        e
        for e in events
        if getattr(e, "subagent_run_id", None) == subagent_run_id
        and not isinstance(e, SubagentStartedEvent | SubagentFinishedEvent | SubagentErrorEvent)
    ]


# --- one specialist ---------------------------------------------------------------------------


@ENTRY_POINTS
@PROTOCOLS
async def test_specialist_streams_between_call_end_and_result(
    entry: str, protocol: str | None
) -> None:
    result = await run(entry, manager(research_tool()), ONE_CALL, protocol)
    events = result.events
    started = result.one(SubagentStartedEvent)
    start = positions(events, ToolCallStartEvent, tool_call_id="call_outer")[0]
    assert started.name == "Researcher"
    assert started.description == "Finds facts."
    assert started.parent_tool_call_id == "call_outer"
    assert started.parent_message_id == events[start].parent_message_id  # type: ignore[attr-defined]
    assert started.parent_subagent_run_id is None
    end = positions(events, ToolCallEndEvent, tool_call_id="call_outer")[0]
    answer = positions(events, ToolCallResultEvent, tool_call_id="call_outer")[0]
    opened = events.index(started)
    closed = positions(events, SubagentFinishedEvent)[0]
    assert end < opened < closed < answer
    inner = tagged(events, started.subagent_run_id)
    kinds = [e.type.value for e in inner]
    assert [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k] == [
        "STEP_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
    ]
    assert all(opened < events.index(e) < closed for e in inner)
    assert "".join(e.delta for e in inner if isinstance(e, TextMessageContentEvent)) == "They hoot."
    assert result.finished.outcome is None or result.finished.outcome.type == "success"


async def test_description_falls_back_to_the_tool_description() -> None:
    plain = specialist("Plain", "research")
    tool = plain.as_tool(
        tool_name="research_topic", tool_description="Research a topic.", on_stream=subagent_events
    )
    result = await run("translator", manager(tool), ONE_CALL)
    assert result.one(SubagentStartedEvent).description == "Research a topic."


async def test_without_on_stream_nothing_changes() -> None:
    tool = RESEARCHER.as_tool(tool_name="research_topic", tool_description="Research a topic.")
    result = await run("agent", manager(tool), ONE_CALL)
    assert not result.of(SubagentStartedEvent)
    assert [e.tool_call_id for e in result.of(ToolCallStartEvent)] == ["call_outer"]


# --- several invocations ----------------------------------------------------------------------

PARALLEL = {
    "manage": [
        Turn(
            [
                Call("research_topic", {"input": "owls"}, call_id="call_owls"),
                Call("research_topic", {"input": "bats"}, call_id="call_bats"),
                Call("write_prose", {"input": "a poem"}, call_id="call_poem"),
            ]
        ),
        Turn([Text("All done.")]),
    ],
    "research": {
        "owls": [Turn([Call("lookup", {"topic": "owls"})], delay=0.01), Turn([Text("Hoot.")])],
        "bats": [Turn([Call("lookup", {"topic": "bats"})], delay=0.01), Turn([Text("Squeak.")])],
    },
    "write": {"poem": [Turn([Text("Roses are red.")], delay=0.01)]},
}


@ENTRY_POINTS
@PROTOCOLS
async def test_parallel_specialists_interleave_and_close_once(
    entry: str, protocol: str | None
) -> None:
    result = await run(entry, manager(research_tool(), write_tool()), PARALLEL, protocol)
    events = result.events
    started = result.of(SubagentStartedEvent)
    by_call = {s.parent_tool_call_id: s for s in started}
    assert set(by_call) == {"call_owls", "call_bats", "call_poem"}
    assert len({s.subagent_run_id for s in started}) == 3  # one run per invocation
    assert by_call["call_poem"].name == "Writer"
    closes = result.of(SubagentFinishedEvent)
    assert sorted(c.subagent_run_id for c in closes) == sorted(s.subagent_run_id for s in started)
    # The three ran at once: every one started before any finished, and their events mix.
    assert max(events.index(s) for s in started) < min(events.index(c) for c in closes)
    owners = [getattr(e, "subagent_run_id", None) for e in events]
    switches = sum(1 for a, b in pairwise(owners) if a and b and a != b)
    assert switches >= 3
    for call, sub in by_call.items():
        close = next(c for c in closes if c.subagent_run_id == sub.subagent_run_id)
        answer = positions(events, ToolCallResultEvent, tool_call_id=call)[0]
        assert events.index(close) < answer
    texts = {
        sub.parent_tool_call_id: "".join(
            e.delta
            for e in tagged(events, sub.subagent_run_id)
            if isinstance(e, TextMessageContentEvent)
        )
        for sub in started
    }
    assert texts == {"call_owls": "Hoot.", "call_bats": "Squeak.", "call_poem": "Roses are red."}


async def test_two_turns_calling_one_tool_are_two_subagent_runs() -> None:
    scripts = {
        "manage": [
            Turn([Call("research_topic", {"input": "owls"}, call_id="call_1st")]),
            Turn([Call("research_topic", {"input": "owls again"}, call_id="call_2nd")]),
            Turn([Text("Twice.")]),
        ],
        "research": {"owls again": [Turn([Text("Still hoot.")])], "owls": [Turn([Text("Hoot.")])]},
    }
    result = await run("translator", manager(research_tool()), scripts)
    started = result.of(SubagentStartedEvent)
    assert [s.parent_tool_call_id for s in started] == ["call_1st", "call_2nd"]
    assert started[0].subagent_run_id != started[1].subagent_run_id


# --- nesting ----------------------------------------------------------------------------------


@PROTOCOLS
async def test_agent_tool_inside_a_specialist_is_a_nested_subagent(protocol: str | None) -> None:
    checker = specialist("Checker", "check")
    lead = Agent(
        name="Lead",
        instructions="lead",
        tools=[
            checker.as_tool(
                tool_name="check_fact", tool_description="Check.", on_stream=subagent_events
            )
        ],
    )
    tool = lead.as_tool(
        tool_name="lead_research", tool_description="Lead.", on_stream=subagent_events
    )
    scripts = {
        "manage": [
            Turn([Call("lead_research", {"input": "owls"}, call_id="call_lead")]),
            Turn([Text("Checked.")]),
        ],
        "lead": [
            Turn([Call("check_fact", {"input": "owls hoot"}, call_id="call_check")]),
            Turn([Text("Confirmed.")]),
        ],
        "check": {"owls hoot": working("owls", "True.")},
    }
    result = await run("agent", manager(tool), scripts, protocol)
    events = result.events
    outer, inner = result.of(SubagentStartedEvent)
    assert outer.parent_tool_call_id == "call_lead" and outer.parent_subagent_run_id is None
    assert inner.parent_tool_call_id == "call_check"
    assert inner.parent_subagent_run_id == outer.subagent_run_id
    check_start = positions(events, ToolCallStartEvent, tool_call_id="call_check")[0]
    assert events[check_start].subagent_run_id == outer.subagent_run_id  # type: ignore[attr-defined]
    assert inner.parent_message_id == events[check_start].parent_message_id  # type: ignore[attr-defined]
    finished = [e.subagent_run_id for e in result.of(SubagentFinishedEvent)]
    assert finished == [inner.subagent_run_id, outer.subagent_run_id]
    assert tagged(events, inner.subagent_run_id)


# --- failure and cancellation -----------------------------------------------------------------


@ENTRY_POINTS
@PROTOCOLS
async def test_failed_specialist_is_a_subagent_error_and_the_run_goes_on(
    entry: str, protocol: str | None
) -> None:
    scripts = {
        "manage": [
            Turn([Call("research_topic", {"input": "owls"}, call_id="call_outer")]),
            Turn([Text("The research failed.")]),
        ],
        "research": {"owls": [Turn([Text("Half an ans")], raise_after_events=6)]},
    }
    result = await run(entry, manager(research_tool()), scripts, protocol)
    error = result.one(SubagentErrorEvent)
    started = result.one(SubagentStartedEvent)
    assert error.subagent_run_id == started.subagent_run_id
    answer = result.of(ToolCallResultEvent)[-1]
    assert answer.tool_call_id == "call_outer"
    assert error.message == answer.content  # what the manager's model was told
    assert result.events.index(error) < result.events.index(answer)
    assert not result.of(SubagentFinishedEvent)
    assert result.events[-1].type.value == "RUN_FINISHED"


async def test_unfinished_specialist_run_is_an_error() -> None:
    scripts = {
        "manage": [
            Turn([Call("research_topic", {"input": "owls"}, call_id="call_outer")]),
            Turn([Text("Gave up.")]),
        ],
        "research": {"owls": [Turn([Call("lookup", {"topic": "owls"})])] * 2},
    }
    tool = research_tool(max_turns=1)
    result = await run("translator", manager(tool), scripts)
    assert result.one(SubagentErrorEvent).code == "tool_failed"


@PROTOCOLS
async def test_outer_failure_closes_open_subagents_before_run_error(protocol: str | None) -> None:
    scripts = {
        "manage": [Turn([Call("research_topic", {"input": "owls"}, call_id="call_outer")])],
        "research": {"owls": [Turn([Text("Half")], raise_after_events=6)]},
    }
    tool = research_tool(failure_error_function=None)
    run_input = request(protocol_version=protocol)
    result = await run_translated(
        manager(tool),
        run_input,
        AgentScripts(scripts),
        expect_error=True,
        subagents=Subagents(pre_1_0_clients=True),
    )
    error = result.one(SubagentErrorEvent)
    assert error.code == "run_failed"
    assert result.events.index(error) < len(result.events) - 1
    assert result.run_error is result.events[-1]


async def test_cancelled_run_closes_open_subagents_before_run_finished() -> None:
    scripts = {
        "manage": [Turn([Call("research_topic", {"input": "owls"}, call_id="call_outer")])],
        "research": {"owls": [Turn([Text("A very slow answer.")], delay=0.05)] * 2},
    }
    run_input = request()
    translator = AGUITranslator()
    with use_shared_state(SharedState()) as scope:
        result, _ = run_streamed(
            manager(research_tool()),
            translator.to_openai(run_input).messages,
            model=ScriptedResponsesModel(AgentScripts(scripts)),
        )

    async def cancel_once_streaming() -> Any:
        async for event in translator.to_agui(result, run_input, shared_state=scope):
            if isinstance(event, TextMessageContentEvent) and event.subagent_run_id:
                result.cancel()
            yield event

    events, _ = await _drain(cancel_once_streaming(), run_input, False, True)
    run = AguiRun(events, None, result)
    error = run.one(SubagentErrorEvent)
    assert error.code == "cancelled"
    assert isinstance(run.finished.outcome, RunFinishedCancelledOutcome)


# --- snapshot, next turn, usage ---------------------------------------------------------------


@ENTRY_POINTS
async def test_snapshot_keeps_specialist_messages_and_the_next_turn_leaves_them_out(
    entry: str,
) -> None:
    result = await run(entry, manager(research_tool()), ONE_CALL)
    started = result.one(SubagentStartedEvent)
    snapshot = result.snapshot
    attributed = [m for m in snapshot if m.subagent_run_id == started.subagent_run_id]
    assert [m.role for m in attributed] == ["assistant", "tool", "assistant"]
    ids = [m.id for m in snapshot]
    holder = next(i for i, m in enumerate(snapshot) if m.id == started.parent_message_id)
    answer = ids.index("call_outer-result")
    assert all(holder < ids.index(m.id) < answer for m in attributed)
    # The next request carries the whole conversation: the manager sees only its tool's result.
    translated = AGUITranslator().to_openai(request(*snapshot, user("More?", id="user-2")))
    plain = [str(item) for item in translated.messages]
    assert not any("lookup" in text or "notes on owls" in text for text in plain)
    assert any("call_outer" in text for text in plain)


async def test_next_turn_with_subagent_history_runs_the_manager_on_its_own_calls() -> None:
    first = await run("agent", manager(research_tool()), ONE_CALL)
    scripts = AgentScripts({"manage": [Turn([Text("Anything else?", id="msg_second")])]})
    second_input = request(*first.snapshot, user("Thanks", id="user-2"), run_id="run-2")
    second = await run_served(manager(research_tool()), second_input, scripts)
    assert second.finished.outcome is None or second.finished.outcome.type == "success"
    assert not second.of(SubagentStartedEvent)


async def test_specialist_usage_counts_once_per_model() -> None:
    inner_model = ScriptedResponsesModel(
        [
            Turn(
                [Call("lookup", {"topic": "owls"}, call_id="call_in", id="fc_in")],
                usage=TurnUsage(7, 3),
            ),
            Turn([Text("Hoot.", id="msg_in")], usage=TurnUsage(7, 3)),
        ],
        model_name="specialist-model",
    )
    inner = Agent(name="Researcher", instructions="research", tools=[lookup], model=inner_model)
    tool = inner.as_tool(
        tool_name="research_topic", tool_description="R.", on_stream=subagent_events
    )
    result = await run("translator", manager(tool), ONE_CALL)
    usage = {(u.model, u.input_tokens, u.output_tokens) for u in result.finished.usage or []}
    assert usage == {("scripted-model", 20, 10), ("specialist-model", 14, 6)}


# --- the callback and the sink ----------------------------------------------------------------


async def test_callback_outside_a_scope_does_nothing_but_warn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import ag_ui_openai_agents.subagents as module

    module._warned_without_sink = False
    caplog.set_level(logging.WARNING, logger=module.__name__)
    run_input = request()
    scripts = AgentScripts(ONE_CALL)
    result = await run_agui(
        manager(research_tool()), run_input, model=ScriptedResponsesModel(scripts)
    )
    assert not result.of(SubagentStartedEvent)
    assert result.of(ToolCallResultEvent)[0].content == "They hoot."
    assert "outside a run scope" in caplog.text


async def test_sink_keeps_events_until_a_queue_is_attached_then_offers_them_to_it() -> None:
    payload: Any = {"event": None, "agent": None, "tool_call": None}
    sink = SubagentSink()
    assert sink.put(payload) is None and len(sink) == 1  # no queue yet: kept at once
    queue = RunQueue(maxsize=1)
    sink.attach(queue)
    assert await anext(queue) is IDLE  # its first turn sends what changed before it
    assert sink.put(payload) is None and len(queue) == 1 and len(sink) == 1
    full = sink.put(payload)  # the queue is full: the event waits, with what to await
    assert full is not None and not full.done() and len(queue) == 1
    assert await anext(queue) is payload
    assert full.done() and len(queue) == 1  # taking one let the waiting one in
    sink.notify()  # a state change: the queue's consumer gets its idle turn after the items
    assert await anext(queue) is payload
    assert await anext(queue) is IDLE
    assert len(sink.take()) == 1 and len(sink) == 0
    await queue.aclose()
    assert sink.put(payload) is None and len(queue) == 0  # closed: dropped


def test_streams_as_subagent_tells_agent_tools_apart() -> None:
    assert streams_as_subagent(research_tool())
    assert not streams_as_subagent(research_tool(on_stream=lambda event: None))
    assert not streams_as_subagent(RESEARCHER.as_tool(tool_name="r", tool_description="R."))
    assert not streams_as_subagent(lookup)


async def test_specialist_without_item_ids_gets_generated_ids() -> None:
    scripts = {
        "manage": ONE_CALL["manage"],
        "research": {
            "owls": [
                Turn([Call("lookup", {"topic": "owls"})], fake_ids=True),
                Turn([Text("They hoot.")], fake_ids=True),
            ]
        },
    }
    result = await run("translator", manager(research_tool()), scripts)
    sub = result.one(SubagentStartedEvent).subagent_run_id
    ids = {getattr(e, "message_id", None) for e in tagged(result.events, sub)} - {None}
    assert ids and all(i.startswith(("msg_", "call_")) for i in ids)  # never the placeholder
