"""Long streams: every delta is streamed, and the snapshot holds the deltas joined."""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    ReasoningMessage,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from ag_ui_openai_agents.outbound.windows import ReasoningWindow, TextWindow, ToolCallWindow
from support.runs import of_type, record, request
from support.scripted import Call, Reasoning, Text, Turn, split_text

set_tracing_disabled(True)

DELTAS = 1_000
WORDS = " ".join(f"w{n}" for n in range(DELTAS))


@function_tool
def store(note: str) -> str:
    """Store a note."""
    return "stored"


def engine_after(events: list[Any]) -> tuple[OpenAIToAGUITranslator, list[Any]]:
    """The engine that translated ``events`` (left open), and every AG-UI event it gave."""
    engine = OpenAIToAGUITranslator(request())
    out = [produced for event in events for produced in engine.translate(event)]
    return engine, out


def windows_of(engine: OpenAIToAGUITranslator, kind: type[Any]) -> list[Any]:
    return [w for w in engine.book.by_item_id.values() if isinstance(w, kind)]


async def test_a_long_text_streams_every_delta_and_keeps_the_item_text() -> None:
    deltas = split_text(WORDS)
    assert len(deltas) == DELTAS
    turn = Turn([Text(WORDS, id="msg_long")])
    events, _ = await record(Agent(name="writer"), [turn])
    # Stop before the item is done: the open window holds every delta.
    before_done = [
        e
        for e in events
        if getattr(getattr(e, "data", None), "type", "")
        not in (
            "response.output_item.done",
            "response.output_text.done",
            "response.content_part.done",
            "response.completed",
        )
        and e.type == "raw_response_event"
    ]
    engine, out = engine_after(before_done)
    assert [e.delta for e in of_type(out, TextMessageContentEvent)] == deltas
    (window,) = windows_of(engine, TextWindow)
    assert window.chunks == deltas

    engine, out = engine_after(events)
    (window,) = windows_of(engine, TextWindow)
    assert window.closed and window.chunks == [WORDS]  # joined once, when the item is done
    (message,) = of_type(engine.messages_snapshot().messages, AssistantMessage)
    assert message.content == WORDS


async def test_a_long_reasoning_part_streams_every_delta_and_snapshots_whole() -> None:
    turn = Turn([Reasoning(summary=[WORDS], id="rs_long"), Text("Done.")])
    events, _ = await record(Agent(name="thinker"), [turn])
    engine, out = engine_after(events)
    assert "".join(e.delta for e in of_type(out, ReasoningMessageContentEvent)) == WORDS
    assert len(of_type(out, ReasoningMessageContentEvent)) == DELTAS
    (window,) = windows_of(engine, ReasoningWindow)
    (part,) = window.parts
    assert "".join(part.chunks) == WORDS
    (reasoning,) = of_type(engine.messages_snapshot().messages, ReasoningMessage)
    assert reasoning.content == WORDS


async def test_long_arguments_stream_every_chunk_and_snapshot_whole() -> None:
    arguments = json.dumps({"note": WORDS})
    turn = Turn([Call("store", arguments, call_id="call_long", chunks=DELTAS)])
    events, _ = await record(Agent(name="keeper", tools=[store]), [turn, Turn([Text("ok")])])
    engine, out = engine_after(events)
    streamed = [e.delta for e in of_type(out, ToolCallArgsEvent)]
    assert len(streamed) == DELTAS and "".join(streamed) == arguments
    window = engine.book.calls["call_long"]
    assert isinstance(window, ToolCallWindow)
    assert "".join(window.args) == arguments
    messages = of_type(engine.messages_snapshot().messages, AssistantMessage)
    calls = [call for message in messages for call in message.tool_calls or []]
    assert [call.function.arguments for call in calls] == [arguments]
