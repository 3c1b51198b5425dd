"""A resume entry naming no open interrupt is logged with its id, and the request runs as before."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    ToolCall,
)
from agents import Agent, RunConfig, function_tool

from ag_ui_openai_agents import OpenAIAgentsAgent
from support.invariants import check_stream
from support.runs import only, user
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn, collect

PROTOCOLS = pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["1.0", "pre-1.0"])
LOGGER = "ag_ui_openai_agents.approvals.resume"


@function_tool(needs_approval=True)
def refund(amount: int) -> str:
    """Refund an amount."""
    return f"Refunded {amount}."


def make_input(protocol_version: str | None, messages: list[Any], entry_id: str) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r2",
        protocol_version=protocol_version,
        state=None,
        messages=messages,
        tools=[],
        context=[],
        forwarded_props=None,
        resume=[ResumeEntry(interrupt_id=entry_id, status="resolved", payload={"approved": True})],
    )


async def run_wrapper(run_input: RunAgentInput, turns: list[Turn]) -> tuple[list[Any], int]:
    model = ScriptedResponsesModel(turns)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapper = OpenAIAgentsAgent(Agent(name="shop", tools=[refund]), run_config=config)
    events = await collect(wrapper.run_streamed(run_input))
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events, model.call_count


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING
    ]


@PROTOCOLS
async def test_an_entry_beside_a_paused_call_is_logged_and_the_call_stays_open(
    protocol_version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    paused = AssistantMessage(
        id="a1",
        tool_calls=[
            ToolCall(
                id="call_refund", function=FunctionCall(name="refund", arguments='{"amount": 3}')
            )
        ],
    )
    run_input = make_input(protocol_version, [user("Refund 3"), paused], "call_other")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        events, calls = await run_wrapper(run_input, [])
    [warning] = warnings_of(caplog)
    assert "call_other" in warning
    assert calls == 0
    outcome = only(events, RunFinishedEvent).outcome
    assert outcome is not None and outcome.type == "interrupt"
    assert [i.id for i in outcome.interrupts] == ["call_refund"]  # type: ignore[union-attr]


@PROTOCOLS
async def test_an_entry_with_nothing_open_is_logged_and_the_run_goes_on(
    protocol_version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    run_input = make_input(protocol_version, [user("Hello")], "call_gone")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        events, calls = await run_wrapper(run_input, [Turn([Text("Hi.")])])
    [warning] = warnings_of(caplog)
    assert "call_gone" in warning
    assert calls == 1
    assert only(events, RunFinishedEvent).outcome.type == "success"  # type: ignore[union-attr]


async def test_an_entry_naming_the_paused_call_is_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    paused = AssistantMessage(
        id="a1",
        tool_calls=[
            ToolCall(id="c9", function=FunctionCall(name="refund", arguments='{"amount": 1}'))
        ],
    )
    run_input = make_input("1.0", [user("Refund 1"), paused], "c9")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _, calls = await run_wrapper(run_input, [Turn([Text("Done.")])])
    assert warnings_of(caplog) == []
    assert calls == 1
