"""ResumeLimits: the caps are checked first, name the limit and the count, and can be moved."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import ResumeEntry, RunAgentInput, UserMessage
from agents import Agent

from ag_ui_openai_agents import Approvals
from ag_ui_openai_agents.approvals.resume import (
    RESUME_LIMIT_CODE,
    ResumeLimitError,
    ResumeLimits,
    resume_tool_calls,
)


def request(entries: int) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-2",
        state={},
        messages=[UserMessage(id="u1", content="Hi")],
        tools=[],
        context=[],
        forwarded_props=None,
        resume=[ResumeEntry(interrupt_id=f"ghost-{i}", status="resolved") for i in range(entries)],
    )


async def test_the_entry_cap_names_the_limit_and_the_count() -> None:
    with pytest.raises(ResumeLimitError) as raised:
        await resume_tool_calls(Agent(name="a"), request(101))
    error = raised.value
    assert (error.what, error.count, error.limit, error.code) == (
        "resume entries",
        101,
        100,
        RESUME_LIMIT_CODE,
    )
    assert "101 resume entries" in str(error) and "at most 100" in str(error)
    assert isinstance(error, ValueError)


async def test_the_caps_move_in_one_object() -> None:
    resumed = await resume_tool_calls(
        Agent(name="a"), request(150), approvals=Approvals(limits=ResumeLimits(max_entries=150))
    )
    assert resumed.events == [] and resumed.open_interrupts == []
    with pytest.raises(ResumeLimitError):
        await resume_tool_calls(
            Agent(name="a"), request(3), approvals=Approvals(limits=ResumeLimits(max_entries=2))
        )


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "10"])
def test_caps_must_be_positive_whole_numbers(value: Any) -> None:
    with pytest.raises(ValueError, match="max_entries"):
        ResumeLimits(max_entries=value)
    with pytest.raises(ValueError, match="max_open_calls"):
        ResumeLimits(max_open_calls=value)
