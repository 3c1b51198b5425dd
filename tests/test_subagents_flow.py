"""Subagent streams over HTTP (both request kinds) and across a resumed approval."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag_ui.core import (
    ResumeEntry,
    RunAgentInput,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    ToolCallResultEvent,
)
from agents import Agent

from ag_ui_openai_agents import subagent_events
from support.invariants import check_stream, parse_sse
from support.runs import AguiRun, _drain, request, user
from support.scripted import Call, Text, Turn
from support.subagent_app import build_app
from support.subagent_runs import AgentScripts, served_agent


@pytest.mark.parametrize("opt_in", [False, True], ids=["default", "opted-in"])
@pytest.mark.parametrize("protocol", ["1.0", None], ids=["1.0", "pre-1.0"])
async def test_http_stream_carries_subagents_to_the_requests_that_get_them(
    protocol: str | None, opt_in: bool
) -> None:
    run_input = request(user("Tell me about owls"), protocol_version=protocol)
    body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    transport = httpx.ASGITransport(app=build_app(subagents_for_pre_1_0_clients=opt_in))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/agent", json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200
    events = parse_sse(response.text)
    check_stream(events, run_input=run_input, pre_1_0=protocol is None)
    started = [e for e in events if isinstance(e, SubagentStartedEvent)]
    if protocol is None and not opt_in:
        # The 0.1.0 stream: the manager's two calls and their results, nothing nested.
        assert started == []
        assert not any(getattr(e, "subagent_run_id", None) for e in events)
        results = [e.tool_call_id for e in events if isinstance(e, ToolCallResultEvent)]
        assert len(results) == 2
        return
    assert sorted(s.name for s in started) == ["Researcher", "Writer"]
    assert len([e for e in events if isinstance(e, SubagentFinishedEvent)]) == 2


async def test_resumed_agent_tool_streams_its_subagent_before_its_result() -> None:
    researcher = Agent(name="Researcher", instructions="research")
    tool = researcher.as_tool(
        tool_name="research_topic",
        tool_description="Research.",
        on_stream=subagent_events,
        needs_approval=True,
    )
    manager = Agent(name="Manager", instructions="manage", tools=[tool])
    scripts = AgentScripts(
        {
            "manage": [
                Turn([Call("research_topic", {"input": "owls"}, call_id="call_gated")]),
                Turn([Text("Approved research: they hoot.")]),
            ],
            "research": [Turn([Text("They hoot.")])],
        }
    )
    served = served_agent(manager, scripts)

    async def play(run_input: RunAgentInput) -> AguiRun:
        events, _ = await _drain(served.run_streamed(run_input), run_input, False, True)
        return AguiRun(events, None, None)

    first = await play(request())
    assert first.finished.outcome is not None and first.finished.outcome.type == "interrupt"
    assert not first.of(SubagentStartedEvent)
    approve = ResumeEntry(interrupt_id="call_gated", status="resolved", payload={"approved": True})
    second_input = request(*first.snapshot, run_id="run-2").model_copy(update={"resume": [approve]})
    second = await play(second_input)
    started = second.one(SubagentStartedEvent)
    assert started.parent_tool_call_id == "call_gated"
    holder = next(m for m in first.snapshot if getattr(m, "tool_calls", None))
    assert started.parent_message_id == holder.id
    finished = second.one(SubagentFinishedEvent)
    result = next(e for e in second.of(ToolCallResultEvent) if e.tool_call_id == "call_gated")
    events: list[Any] = second.events
    assert events.index(started) < events.index(finished) < events.index(result)
    usage = second.finished.usage or []
    assert [(u.model, u.input_tokens) for u in usage] == [("scripted-model", 20)]
