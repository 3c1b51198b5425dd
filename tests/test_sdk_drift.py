"""The SDK's private names read in ``ag_ui_openai_agents._sdk`` still exist and mean the same."""

from __future__ import annotations

from agents import Agent

from ag_ui_openai_agents._sdk import cancel_mode
from support.scripted import run_streamed
from support.scripted_specs import Text, Turn


async def test_cancel_mode_follows_cancel() -> None:
    result, _ = run_streamed(Agent(name="a"), "hello", turns=[Turn([Text("hi")])])
    assert cancel_mode(result) == "none"
    result.cancel(mode="after_turn")
    assert cancel_mode(result) == "after_turn"
    result.cancel()
    assert cancel_mode(result) == "immediate"
    async for _ in result.stream_events():
        pass
