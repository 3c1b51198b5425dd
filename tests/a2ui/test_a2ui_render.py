"""A2UI render calls: their arguments reach the client while the model writes them, and a
cancelled generation leaves no model call running.

The render model is a :class:`~support.a2ui.HeldRenderModel`: it holds a ``render_a2ui`` call
after each arguments delta until the test lets it go on, so what the client has seen at that
point is what was streamed before the model finished. Every wait is bounded (``WAIT``): a
regression fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput
from agents import Agent, FunctionTool, set_tracing_disabled

from ag_ui_openai_agents import AGUITranslator, SharedState, Subagents, use_shared_state
from ag_ui_openai_agents.a2ui import A2UI
from support.a2ui import (
    GOOD,
    WAIT,
    HeldRenderModel,
    generation_turns,
    marked,
    render_args_deltas,
)
from support.http import wrapper_for
from support.invariants import check_stream
from support.runs import check_prefix
from support.scripted import ScriptedResponsesModel, run_streamed
from support.state_runs import KINDS

set_tracing_disabled(True)


def is_render_delta(event: BaseEvent) -> bool:
    return (
        event.type.value == "TOOL_CALL_ARGS" and getattr(event, "subagent_run_id", None) is not None
    )


# --------------------------------------------------------------------------- streaming


@pytest.mark.parametrize("version", KINDS)
async def test_the_render_arguments_reach_the_client_while_the_model_writes_them(
    version: str | None,
) -> None:
    """Each arguments delta reaches the client while the model waits before the next one."""
    model = HeldRenderModel(generation_turns(GOOD))
    # The opt-in shows the render call to a pre-1.0 request too.
    wrapper = wrapper_for(
        Agent(name="designer"), model, a2ui=A2UI(), subagents=Subagents(pre_1_0_clients=True)
    )
    run_input = marked(version)

    async def read() -> list[BaseEvent]:
        events: list[BaseEvent] = []
        async for event in wrapper.run_streamed(run_input):
            events.append(event)
            if is_render_delta(event):
                assert model.held.is_set()  # the model has not written the next delta yet
                model.release()
        return events

    events = await asyncio.wait_for(read(), timeout=WAIT)

    check_stream(events, run_input=run_input, pre_1_0=version is None)
    deltas = render_args_deltas(events)
    assert len(deltas) == 4
    assert json.loads("".join(deltas)) == GOOD
    assert model.ends == ["completed"] * 3


# --------------------------------------------------------------------------- cancellation


@dataclasses.dataclass
class Watched:
    """The generate_a2ui tool of one request, watched: how many model streams were still open
    when its invocation ended."""

    tool: FunctionTool
    model: HeldRenderModel
    open_at_end: list[int] = dataclasses.field(default_factory=list)
    ended: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    def wrapped(self) -> FunctionTool:
        async def invoke(ctx: Any, arguments: str) -> Any:
            try:
                return await self.tool.on_invoke_tool(ctx, arguments)
            finally:
                self.open_at_end.append(self.model.open_streams)
                self.ended.set()

        return dataclasses.replace(self.tool, on_invoke_tool=invoke)


def start_run(
    run_input: RunAgentInput, model: HeldRenderModel
) -> tuple[AsyncIterator[BaseEvent], Watched, RunAgentInput]:
    """Start an A2UI run through the translator, its generate_a2ui tool watched."""
    prepared = A2UI().prepare(run_input)
    assert prepared is not None
    watched = Watched(prepared.tool, model)
    agent = Agent(name="designer", tools=[watched.wrapped()])
    translator = AGUITranslator()
    state = SharedState(prepared.run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(
            agent, translator.to_openai(prepared.run_input).messages, model=model
        )
    stream = translator.to_agui(
        result, prepared.run_input, shared_state=state, subagents=Subagents(pre_1_0_clients=True)
    )
    return stream, watched, prepared.run_input


async def leave_at_first_render_delta(stream: AsyncIterator[BaseEvent]) -> list[BaseEvent]:
    """Read until the first render arguments delta, then close the stream (the client left)."""
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if is_render_delta(event):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    return events


async def cancel_while_held(
    stream: AsyncIterator[BaseEvent], model: HeldRenderModel
) -> list[BaseEvent]:
    """Read in a task, and cancel the task once the render call is held."""
    events: list[BaseEvent] = []

    async def read() -> None:
        async for event in stream:
            events.append(event)

    reader = asyncio.ensure_future(read())
    await model.held.wait()
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    return events


@pytest.mark.parametrize("how", ["client_leaves", "task_cancelled"])
@pytest.mark.parametrize("version", KINDS)
async def test_a_generation_cancelled_mid_attempt_leaves_no_model_call_running(
    version: str | None, how: str
) -> None:
    """When the generate_a2ui call ends cancelled, its render call's model stream has ended:
    cancelled and awaited, not left to finish in the background."""
    model = HeldRenderModel(generation_turns(GOOD, GOOD))
    stream, watched, run_input = start_run(marked(version), model)

    if how == "client_leaves":
        events = await asyncio.wait_for(leave_at_first_render_delta(stream), timeout=WAIT)
    else:
        events = await asyncio.wait_for(cancel_while_held(stream, model), timeout=WAIT)
    await asyncio.wait_for(watched.ended.wait(), timeout=WAIT)

    check_prefix(events, run_input)
    assert watched.open_at_end == [0]
    assert model.open_streams == 0
    assert model.ends == ["completed", "cancelled"]
    assert len(model.calls) == 2  # no further attempt, no further agent turn


@pytest.mark.parametrize("version", KINDS)
async def test_a_client_leaving_mid_generation_stops_it(version: str | None) -> None:
    """The consumer of the served run stops reading while the render call streams: the attempt
    is cancelled and no further attempt or agent turn is started."""
    model = ScriptedResponsesModel(generation_turns(GOOD, GOOD), delay=0.01)
    # The opt-in shows the render call to a pre-1.0 request too, so both can stop inside it.
    wrapper = wrapper_for(
        Agent(name="designer"), model, a2ui=A2UI(), subagents=Subagents(pre_1_0_clients=True)
    )
    run_input = marked(version)

    events = await leave_at_first_render_delta(wrapper.run_streamed(run_input))

    check_prefix(events, run_input)
    assert len(model.calls) == 2
