"""The subagent book on its own: nested events fed to a bare engine in a forced order.

The specialist's stream is recorded from a real run; the manager's too. Feeding the nested
events before the manager's call has been streamed shows they wait for TOOL_CALL_END; feeding
them late shows they still come before the call's result.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
)
from agents import Agent, function_tool
from agents.stream_events import StreamEvent
from openai.types.responses import ResponseFunctionToolCall

from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from ag_ui_openai_agents.subagents import SubagentSink
from support.invariants import check_stream
from support.runs import record, request
from support.scripted import Call, Reasoning, Text, Turn


@function_tool
def research_topic(input: str) -> str:
    """Stands in for the agent tool in the manager's recorded stream."""
    return "They hoot."


async def recorded() -> tuple[list[StreamEvent], list[StreamEvent], Agent[Any]]:
    specialist = Agent(name="Researcher", instructions="research")
    inner, _ = await record(
        specialist,
        [
            Turn(
                [Reasoning(summary=["Owls."], id="rs_in"), Text("They hoot.", id="msg_in")],
                fake_ids=False,
            )
        ],
    )
    manager = Agent(name="Manager", instructions="manage", tools=[research_topic])
    outer, _ = await record(
        manager,
        [
            Turn([Call("research_topic", {"input": "owls"}, call_id="call_x", id="fc_x")]),
            Turn([Text("Done.", id="msg_out")]),
        ],
    )
    return outer, inner, specialist


def payloads(events: list[StreamEvent], agent: Agent[Any]) -> list[Any]:
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_x", name="research_topic", arguments="{}", id="fc_x"
    )
    return [{"event": event, "agent": agent, "tool_call": call} for event in events]


def check(engine: OpenAIToAGUITranslator, body: list[BaseEvent]) -> list[BaseEvent]:
    run_input = engine.run_input
    stream = [
        RunStartedEvent(thread_id="thread-1", run_id="run-1", protocol_version="1.0"),
        *body,
        *engine.finish(),
        engine.messages_snapshot(),
        RunFinishedEvent(thread_id="thread-1", run_id="run-1"),
    ]
    check_stream(stream, run_input=run_input)
    return stream


async def test_nested_events_wait_for_the_parent_call_then_precede_its_result() -> None:
    outer, inner, specialist = await recorded()
    engine = OpenAIToAGUITranslator(request())
    sink = SubagentSink()
    engine.attach_subagent_sink(sink)
    for payload in payloads(inner, specialist):
        sink.put(payload)  # everything arrives before the manager's call is streamed
    body: list[BaseEvent] = list(engine.translate_subagent_events())
    assert body == []  # the parent call has not been streamed yet: they wait
    for event in outer:
        body += engine.translate(event)
        body += engine.translate_subagent_events()
    stream = check(engine, body)
    kinds = [type(e) for e in stream]
    end = next(i for i, e in enumerate(stream) if isinstance(e, ToolCallEndEvent))
    started = kinds.index(SubagentStartedEvent)
    finished = kinds.index(SubagentFinishedEvent)
    result = kinds.index(ToolCallResultEvent)
    assert end < started < finished < result
    tagged = [e.type.value for e in stream[started + 1 : finished]]
    assert "REASONING_START" in tagged and "TEXT_MESSAGE_START" in tagged
    snapshot = stream[-2]
    assert isinstance(snapshot, MessagesSnapshotEvent)
    owned = [m.id for m in snapshot.messages if m.subagent_run_id]
    assert owned == ["rs_in", "msg_in"]


async def test_nested_events_arriving_late_still_come_before_the_result() -> None:
    outer, inner, specialist = await recorded()
    engine = OpenAIToAGUITranslator(request())
    sink = SubagentSink()
    engine.attach_subagent_sink(sink)
    body: list[BaseEvent] = []
    for event in outer:
        if event.type == "run_item_stream_event" and event.name == "tool_output":
            for payload in payloads(inner, specialist):
                sink.put(payload)  # not picked up before the result is due
        body += engine.translate(event)
    stream = check(engine, body)
    kinds = [type(e) for e in stream]
    assert kinds.index(SubagentFinishedEvent) < kinds.index(ToolCallResultEvent)


async def test_a_run_ending_with_a_subagent_open_closes_it_once() -> None:
    outer, inner, specialist = await recorded()
    engine = OpenAIToAGUITranslator(request())
    sink = SubagentSink()
    engine.attach_subagent_sink(sink)
    body: list[BaseEvent] = []
    for event in outer:
        if event.type == "run_item_stream_event" and event.name == "tool_output":
            break  # the run stops while the specialist works
        body += engine.translate(event)
    for payload in payloads(inner[:4], specialist):
        sink.put(payload)
    body += engine.translate_subagent_events()
    body += engine.close_subagents("cancelled")
    stream = check(engine, body)
    errors = [e for e in stream if isinstance(e, SubagentErrorEvent)]
    assert [e.code for e in errors] == ["cancelled"]
    assert engine.close_subagents("failed") == []
