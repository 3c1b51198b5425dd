"""Every example the server can keep a thread for keeps it: after a turn, a request with no
message (what a reloaded page sends) gets the conversation and the state back, and the model
is not called. The A2UI examples are the exception, said by ``/health``: the A2UI middleware
reports a click on a surface as an assistant tool call written into the history, which a thread
kept on the server never takes from a client, so they stay stateless (the page keeps their
conversation in the browser).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, Tool
from ag_ui_openai_agents import SQLiteThreadStore
from support.invariants import check_stream

from agents_examples import EXAMPLES, ExampleSettings
from dojo_pages import (
    CHANGE_BACKGROUND,
    CONFIRM_CHANGES,
    DOCUMENT_STATE,
    RECIPE_STATE,
    TRAVEL_STATE,
    WRITE_DOCUMENT,
)
from example_client import HAIKU, TASK_STEPS, Chat
from server import create_app

STATELESS = {"ag_ui_docs_copilot", "custom_lifecycle_events", *(n for n in EXAMPLES if "a2ui" in n)}
"""The examples that keep no thread on the server: the two written around the translator
(which is stateless by design) and the A2UI ones (see the module's docstring)."""

TURNS: dict[str, tuple[str, list[Tool], Any]] = {
    "agentic_chat": ("Say hello in one sentence.", [], None),
    "backend_tool_rendering": ("What's the weather in Paris?", [], None),
    "media_results": ("Draw a chart of monthly sales", [], None),
    "human_in_the_loop": ("Plan the steps to bake a cake", [TASK_STEPS], None),
    "human_in_the_loop_approval": ("Please refund 30 dollars on order A-17", [], None),
    "tool_based_generative_ui": ("Write a haiku about autumn leaves", [HAIKU], None),
    "subagents": ("Write a short article about the history of AI", [], None),
    "dynamic_system_prompt": ("Who am I?", [], None),
    "agentic_chat_reasoning": ("What is the best car to buy?", [CHANGE_BACKGROUND], None),
    "agentic_chat_multimodal": ("Hello there", [CHANGE_BACKGROUND], None),
    "agentic_generative_ui": ("Please build a plan to go to mars in 5 steps.", [], None),
    "shared_state": ("Create a delicious Italian pasta recipe.", [], RECIPE_STATE),
    "subgraphs": ("Plan a trip to San Francisco", [], TRAVEL_STATE),
    "predictive_state_updates": (
        "Please write a story about a pirate named Candy Beard.",
        [WRITE_DOCUMENT, CONFIRM_CHANGES],
        DOCUMENT_STATE,
    ),
}
"""A turn for each example that keeps its thread, with the tools and state its page sends."""


@pytest.fixture
async def kept_client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    app = create_app(ExampleSettings.offline_demo(threads=store))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


async def test_health_lists_every_example_but_the_stateless_ones_as_keeping_threads(
    kept_client: httpx.AsyncClient,
) -> None:
    demos = (await kept_client.get("/health")).json()["demos"]
    kept = {demo["name"] for demo in demos if demo["keeps_threads"]}
    assert kept == set(EXAMPLES) - STATELESS == set(TURNS)


@pytest.mark.parametrize("name", sorted(TURNS))
async def test_a_request_without_messages_gets_the_thread_back(
    kept_client: httpx.AsyncClient, name: str, protocol_version: str | None
) -> None:
    prompt, tools, state = TURNS[name]
    chat = Chat(
        kept_client,
        f"/{name}",
        tools=tools,
        state=state,
        thread_id=f"reload-{name}",
        protocol_version=protocol_version,
    )
    await chat.say(prompt)
    kept = [m.model_dump(mode="json") for m in chat.history]
    state_after = chat.state

    reloaded = Chat(
        kept_client,
        f"/{name}",
        tools=tools,
        thread_id=chat.thread_id,
        protocol_version=protocol_version,
    )
    run = await reloaded.send(check=False)
    # The stream is checked against the history the page held, which the reload restores.
    held = run.input.model_copy(update={"messages": chat.history})
    check_stream(run.events, run_input=held, pre_1_0=protocol_version is None)

    assert [m.model_dump(mode="json") for m in run.snapshot.messages] == kept
    assert run.state_snapshots == [state_after or {}]
    assert EventType.TEXT_MESSAGE_START not in run.types  # no model call
