"""Which requests see subagents: AG-UI 1.0 ones by default, the others only with the opt-in.

A request without ``protocolVersion`` may come from ``@ag-ui/client`` 0.0.57 (CopilotKit 1.61,
the AG-UI Dojo), which rejects ``SUBAGENT_*`` events and strips ``subagentRunId`` from the
messages it keeps. By default such a request gets the stream a tool without ``on_stream`` gives:
the manager's call and its result, and a snapshot without the specialists' messages.
``subagents=Subagents(pre_1_0_clients=True)`` shows it the subagents as a 1.0 request sees them.
Every
run goes through the real ``Runner.run_streamed`` on a scripted model, through both entry points,
and every stream through the stream checker.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    SubagentErrorEvent,
    SubagentStartedEvent,
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
from support.runs import AguiRun, _drain, request, user
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, TurnUsage, run_streamed
from support.subagent_runs import AgentScripts, run_served, run_translated

ENTRY_POINTS = pytest.mark.parametrize("entry", ["translator", "agent"])


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


RESEARCHER = Agent(name="Researcher", instructions="research", tools=[lookup])
CHECKER = Agent(name="Checker", instructions="check")


def manager(*, streamed: bool = True) -> Agent[Any]:
    """A manager with a researcher tool, and a lead whose checker is a nested agent tool."""
    on_stream = {"on_stream": subagent_events} if streamed else {}
    lead = Agent(
        name="Lead",
        instructions="lead",
        tools=[CHECKER.as_tool(tool_name="check_fact", tool_description="Check.", **on_stream)],
    )
    return Agent(
        name="Manager",
        instructions="manage",
        tools=[
            RESEARCHER.as_tool(
                tool_name="research_topic", tool_description="Research.", **on_stream
            ),
            lead.as_tool(tool_name="lead_research", tool_description="Lead.", **on_stream),
        ],
    )


def scripts() -> AgentScripts:
    """Two specialists at once (one nests a third); each model call reports usage."""
    used = TurnUsage(5, 2)
    return AgentScripts(
        {
            "manage": [
                Turn(
                    [
                        Call("research_topic", {"input": "owls"}, call_id="call_research"),
                        Call("lead_research", {"input": "bats"}, call_id="call_lead"),
                    ]
                ),
                Turn([Text("Owls hoot; bats squeak.")]),
            ],
            "research": [
                Turn([Call("lookup", {"topic": "owls"})], usage=used, delay=0.005),
                Turn([Text("They hoot.")], usage=used),
            ],
            "lead": [
                Turn([Call("check_fact", {"input": "bats squeak"}, call_id="call_check")]),
                Turn([Text("Checked: they squeak.")], usage=used),
            ],
            "check": [Turn([Text("True.")], usage=used, delay=0.005)],
        }
    )


async def run(
    entry: str, protocol: str | None, *, opt_in: bool = False, streamed: bool = True
) -> AguiRun:
    run_input = request(user("Owls and bats?"), protocol_version=protocol)
    option = {"subagents": Subagents(pre_1_0_clients=opt_in)}
    agent = manager(streamed=streamed)
    if entry == "agent":
        return await run_served(agent, run_input, scripts(), **option)
    return await run_translated(agent, run_input, scripts(), **option)


def outline(result: AguiRun) -> tuple[list[str], list[str], dict[str, str]]:
    """What the stream shows: its event types, the calls' names and each call's result (the
    order the parallel calls end in is the tools', so results are compared by call)."""
    names = [e.tool_call_name for e in result.of(ToolCallStartEvent)]
    return result.types, names, {e.tool_call_id: e.content for e in result.of(ToolCallResultEvent)}


def kinds(events: list[BaseEvent]) -> list[str]:
    """The event types, sorted (parallel specialists interleave in any order)."""
    return sorted(e.type.value for e in events)


def attributed(result: AguiRun) -> list[BaseEvent]:
    return [e for e in result.events if getattr(e, "subagent_run_id", None) is not None]


# --- the default -------------------------------------------------------------------------------


@ENTRY_POINTS
async def test_pre_1_0_request_gets_the_calls_and_results_a_plain_agent_tool_gives(
    entry: str,
) -> None:
    hidden = await run(entry, None)
    plain = await run(entry, None, streamed=False)
    assert not hidden.of(SubagentStartedEvent) and not attributed(hidden)
    assert outline(hidden) == outline(plain)
    _, names, results = outline(hidden)
    assert names == ["research_topic", "lead_research"]
    assert results == {"call_research": "They hoot.", "call_lead": "Checked: they squeak."}
    # The snapshot holds the manager's conversation only, as it did for that plain tool.
    assert [m.role for m in hidden.snapshot] == [m.role for m in plain.snapshot]
    assert all(m.subagent_run_id is None for m in hidden.snapshot)


@ENTRY_POINTS
async def test_hidden_specialists_still_count_in_the_usage_per_model(entry: str) -> None:
    hidden = await run(entry, None)
    shown = await run(entry, "1.0")
    assert hidden.finished.usage == shown.finished.usage
    assert all(entry.model is not None for entry in hidden.finished.usage or [])


@ENTRY_POINTS
async def test_1_0_request_sees_every_subagent_by_default(entry: str) -> None:
    result = await run(entry, "1.0")
    started = result.of(SubagentStartedEvent)
    assert sorted(s.name for s in started) == ["Checker", "Lead", "Researcher"]
    assert attributed(result)
    assert any(m.subagent_run_id for m in result.snapshot)


async def test_next_turn_after_a_hidden_run_gives_the_manager_its_own_conversation() -> None:
    hidden = await run("agent", None)
    translated = AGUITranslator().to_openai(
        request(*hidden.snapshot, user("Thanks", id="user-2"), protocol_version=None)
    )
    plain = [str(item) for item in translated.messages]
    assert any("call_research" in text for text in plain)
    assert not any("lookup" in text or "call_check" in text for text in plain)


async def test_failed_hidden_specialist_leaves_only_its_tool_error_result() -> None:
    failing = AgentScripts(
        {
            "manage": [
                Turn([Call("research_topic", {"input": "owls"}, call_id="call_research")]),
                Turn([Text("The research failed.")]),
            ],
            "research": [Turn([Text("Half an ans")], raise_after_events=6)],
        }
    )
    result = await run_translated(manager(), request(protocol_version=None), failing)
    assert not result.of(SubagentErrorEvent) and not attributed(result)
    [answer] = result.of(ToolCallResultEvent)
    assert answer.tool_call_id == "call_research" and answer.content
    assert result.events[-1].type.value == "RUN_FINISHED"


async def test_hidden_specialists_open_when_the_run_fails_or_stops_leave_no_trace() -> None:
    """A failed run ends with RUN_ERROR, a cancelled one with RUN_FINISHED, and neither closes
    a subagent the client never saw."""
    slow = {
        "manage": [Turn([Call("research_topic", {"input": "owls"}, call_id="call_research")])],
        "research": [Turn([Text("A very slow answer.")], delay=0.05)] * 2,
    }
    failing = {
        "manage": slow["manage"],
        "research": [Turn([Text("Half")], raise_after_events=6)],
    }
    agent = Agent(
        name="Manager",
        instructions="manage",
        tools=[
            RESEARCHER.as_tool(
                tool_name="research_topic",
                tool_description="Research.",
                on_stream=subagent_events,
                failure_error_function=None,
            )
        ],
    )
    failed = await run_translated(
        agent, request(protocol_version=None), AgentScripts(failing), expect_error=True
    )
    assert not attributed(failed) and failed.run_error is failed.events[-1]
    translator = AGUITranslator()
    run_input = request(protocol_version=None)
    model = ScriptedResponsesModel(AgentScripts(slow))
    with use_shared_state(SharedState()) as scope:
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, model=model)

    async def cancel_while_the_specialist_answers() -> Any:
        async for event in translator.to_agui(result, run_input, shared_state=scope):
            yield event
            if isinstance(event, ToolCallEndEvent):
                for _ in range(1000):  # until the specialist's model is answering
                    if any(c.instructions == "research" for c in model.calls):
                        break
                    await asyncio.sleep(0.005)
                result.cancel()

    events, _ = await _drain(cancel_while_the_specialist_answers(), run_input, False, True)
    stopped = AguiRun(events, None, result)
    assert any(c.instructions == "research" for c in model.calls)
    assert not attributed(stopped) and not stopped.of(SubagentErrorEvent)
    assert stopped.finished.outcome is None  # a pre-1.0 client gets no cancelled outcome


@pytest.mark.parametrize(
    ("version", "shown"),
    [("1.0", True), ("1.2", True), ("1", True), (None, False), ("0.9", False), ("2.0", False)],
)
async def test_only_a_1_x_protocol_version_sees_subagents_by_default(
    version: str | None, shown: bool
) -> None:
    run_input = request(user("Owls and bats?"), protocol_version=version)
    result = await run_translated(manager(), run_input, scripts())
    assert bool(result.of(SubagentStartedEvent)) is shown


# --- the opt-in --------------------------------------------------------------------------------


@ENTRY_POINTS
async def test_opt_in_shows_pre_1_0_requests_what_1_0_requests_see(entry: str) -> None:
    opted = await run(entry, None, opt_in=True)
    shown = await run(entry, "1.0")
    assert len(opted.of(SubagentStartedEvent)) == 3
    assert kinds(attributed(opted)) == kinds(attributed(shown))
    assert {m.role for m in opted.snapshot if m.subagent_run_id} == {"assistant", "tool"}


@ENTRY_POINTS
async def test_opt_in_changes_nothing_for_1_0_requests(entry: str) -> None:
    opted = await run(entry, "1.0", opt_in=True)
    default = await run(entry, "1.0")
    assert kinds(opted.events) == kinds(default.events)
    assert len(opted.of(SubagentStartedEvent)) == 3
