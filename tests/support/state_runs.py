"""Runs with a shared state, through the translator and through the served wrapper.

Both request kinds are covered by :data:`KINDS`: ``"1.0"`` (a 1.0 client) and ``None`` (what
CopilotKit's runtime and ``@ag-ui/client`` 0.0.59 send). Every stream is checked, the pre-1.0
rules included for the second kind.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from agents import Agent

from ag_ui_openai_agents import AGUITranslator, OpenAIAgentsAgent, SharedState, use_shared_state
from support.http import app_with, asgi_client
from support.invariants import check_stream, parse_sse
from support.scripted import TurnSource, run_streamed

__all__ = ["KINDS", "post_run", "run_with_state"]

KINDS = ["1.0", None]
"""The two request kinds: a 1.0 client, and one older than 1.0 (no ``protocolVersion``)."""


async def run_with_state(
    agent: Agent[Any], run_input: RunAgentInput, turns: TurnSource, **to_agui: Any
) -> tuple[list[BaseEvent], SharedState]:
    """Run ``agent`` with the real Runner inside ``use_shared_state`` and translate it with the
    same state and the given ``to_agui`` options; return the checked events and the state."""
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, turns=turns)
    events = [
        event
        async for event in translator.to_agui(result, run_input, shared_state=state, **to_agui)
    ]
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events, state


async def post_run(wrapper: OpenAIAgentsAgent, run_input: RunAgentInput) -> list[BaseEvent]:
    """POST ``run_input`` to the FastAPI app serving ``wrapper``; return the checked events."""
    body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    async with asgi_client(app_with(wrapper)) as client:
        response = await client.post("/agent", json=body)
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events
