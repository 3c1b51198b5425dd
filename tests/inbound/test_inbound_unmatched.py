"""A tool message answering a call the history never made is logged, and the run goes on."""

from __future__ import annotations

import logging

import pytest
from ag_ui.core import AssistantMessage, FunctionCall, RunFinishedEvent, ToolCall, ToolMessage
from agents import Agent

from support.runs import only, request, run_agui, user
from support.scripted import Text, Turn

PROTOCOLS = pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["1.0", "pre-1.0"])
LOGGER = "ag_ui_openai_agents.inbound.messages"


def history(answered_id: str) -> list[object]:
    return [
        user("Color?"),
        AssistantMessage(
            id="a1",
            tool_calls=[ToolCall(id="c1", function=FunctionCall(name="pick", arguments="{}"))],
        ),
        ToolMessage(id="t1", tool_call_id=answered_id, content="blue"),
    ]


@PROTOCOLS
async def test_an_unmatched_tool_message_is_logged_with_its_id(
    protocol_version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    run_input = request(*history("c-unknown"), protocol_version=protocol_version)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        # The snapshot would echo the orphan message back, which the stream checker rejects;
        # what is checked here is the warning and that the run itself goes on.
        run = await run_agui(
            Agent(name="helper"),
            run_input,
            [Turn([Text("Okay.")])],
            emit_messages_snapshot=False,
        )
    warnings = [r for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "c-unknown" in warnings[0].getMessage()
    assert "t1" in warnings[0].getMessage()
    assert run.model is not None and run.model.call_count == 1
    assert only(run.events, RunFinishedEvent).outcome.type == "success"  # type: ignore[union-attr]


@PROTOCOLS
async def test_a_matching_tool_message_is_not_logged(
    protocol_version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    run_input = request(*history("c1"), protocol_version=protocol_version)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        run = await run_agui(Agent(name="helper"), run_input, [Turn([Text("Blue.")])])
    assert [r for r in caplog.records if r.name == LOGGER] == []
    assert run.model is not None and run.model.call_count == 1
