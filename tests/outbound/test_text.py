"""Assistant text and refusals: one TEXT_MESSAGE window per SDK message item."""

from __future__ import annotations

from typing import Any

from ag_ui.core import AssistantMessage, TextMessageEndEvent
from agents import Agent, set_tracing_disabled
from agents.items import MessageOutputItem
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.stream_events import RawResponsesStreamEvent, RunItemStreamEvent
from openai.types.responses import ResponseOutputMessage

from ag_ui_openai_agents.outbound.text import message_item_text
from support.runs import (
    brief,
    engine_steps,
    item_event,
    record,
    request,
    run_agui,
    sdk_kind,
    translate_events,
)
from support.scripted import Refusal, Text, Turn, split_text

set_tracing_disabled(True)


def text_events(events: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Only the TEXT_MESSAGE_* tuples of a brief sequence."""
    return [event for event in events if event[0].startswith("TEXT_MESSAGE")]


def message(item_id: str, *texts: str, refusal: str | None = None) -> ResponseOutputMessage:
    """A finished assistant message item as the Responses API returns it."""
    content: list[dict[str, Any]] = [
        {"type": "output_text", "text": text, "annotations": []} for text in texts
    ]
    if refusal is not None:
        content.append({"type": "refusal", "refusal": refusal})
    return ResponseOutputMessage.model_validate(
        {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": content,
        }
    )


async def test_each_message_item_streams_its_own_window_with_its_deltas() -> None:
    run = await run_agui(
        Agent(name="writer"),
        request(),
        [Turn([Text("Hello there, world", chunks=3, id="msg_a"), Text("Bye now", id="msg_b")])],
    )

    first = split_text("Hello there, world", 3)
    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "msg_a"),
        *[("TEXT_MESSAGE_CONTENT", "msg_a", piece) for piece in first],
        ("TEXT_MESSAGE_END", "msg_a"),
        ("TEXT_MESSAGE_START", "msg_b"),
        ("TEXT_MESSAGE_CONTENT", "msg_b", "Bye"),
        ("TEXT_MESSAGE_CONTENT", "msg_b", " now"),
        ("TEXT_MESSAGE_END", "msg_b"),
    ]
    assert run.types == [
        "RUN_STARTED",
        "STEP_STARTED",
        *["TEXT_MESSAGE_START", *["TEXT_MESSAGE_CONTENT"] * 3, "TEXT_MESSAGE_END"],
        *["TEXT_MESSAGE_START", *["TEXT_MESSAGE_CONTENT"] * 2, "TEXT_MESSAGE_END"],
        "STEP_FINISHED",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]


async def test_text_window_starts_with_assistant_role() -> None:
    run = await run_agui(Agent(name="writer"), request(), [Turn([Text("Hi")])])

    (start,) = [e for e in run.events if e.type.value == "TEXT_MESSAGE_START"]
    assert start.model_dump()["role"] == "assistant"


async def test_multi_part_message_streams_under_one_id() -> None:
    run = await run_agui(
        Agent(name="writer"),
        request(),
        [Turn([Text(parts=["First part. ", "Second part."], id="msg_parts", chunks=2)])],
    )

    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "msg_parts"),
        ("TEXT_MESSAGE_CONTENT", "msg_parts", "First "),
        ("TEXT_MESSAGE_CONTENT", "msg_parts", "part. "),
        ("TEXT_MESSAGE_CONTENT", "msg_parts", "Second"),
        ("TEXT_MESSAGE_CONTENT", "msg_parts", " part."),
        ("TEXT_MESSAGE_END", "msg_parts"),
    ]
    (assistant,) = [m for m in run.snapshot if isinstance(m, AssistantMessage)]
    assert (assistant.id, assistant.content) == ("msg_parts", "First part. Second part.")


async def test_output_text_done_never_closes_the_window_but_item_done_does() -> None:
    sdk_events, _ = await record(
        Agent(name="writer"), [Turn([Text(parts=["One. ", "Two."], id="msg_x")])]
    )

    steps, _ = engine_steps(sdk_events)

    closers = [sdk_kind(event) for event, out in steps if _ends_text(out)]
    assert closers == ["response.output_item.done"]
    text_done = [out for event, out in steps if sdk_kind(event) == "response.output_text.done"]
    assert len(text_done) == 2
    assert all(out == [] for out in text_done)


def _ends_text(events: list[Any]) -> bool:
    return any(isinstance(event, TextMessageEndEvent) for event in events)


async def test_committed_item_closes_the_window_when_item_done_is_missing() -> None:
    sdk_events, _ = await record(Agent(name="writer"), [Turn([Text("Streaming text", id="m1")])])
    without_done = [e for e in sdk_events if sdk_kind(e) != "response.output_item.done"]

    steps, tail = engine_steps(without_done)

    closers = [sdk_kind(event) for event, out in steps if _ends_text(out)]
    assert closers == ["message_output_created"]
    assert brief(tail) == [("STEP_FINISHED", "writer")]
    run = await translate_events(without_done)
    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "m1"),
        ("TEXT_MESSAGE_CONTENT", "m1", "Streaming"),
        ("TEXT_MESSAGE_CONTENT", "m1", " text"),
        ("TEXT_MESSAGE_END", "m1"),
    ]


async def test_finalization_closes_a_window_the_stream_left_open() -> None:
    sdk_events, _ = await record(Agent(name="writer"), [Turn([Text("cut short here", id="m1")])])
    first_done = next(
        i for i, e in enumerate(sdk_events) if sdk_kind(e) == "response.output_text.done"
    )
    cut = sdk_events[:first_done]

    steps, tail = engine_steps(cut)
    run = await translate_events(cut)

    assert not any(_ends_text(out) for _, out in steps)
    assert brief(tail) == [("TEXT_MESSAGE_END", "m1"), ("STEP_FINISHED", "writer")]
    assert run.types[-4:] == [
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    (assistant,) = [m for m in run.snapshot if isinstance(m, AssistantMessage)]
    assert assistant.content == "cut short here"


async def test_refusal_deltas_stream_as_a_text_window() -> None:
    run = await run_agui(
        Agent(name="writer"),
        request(),
        [Turn([Refusal("I can't help with that.", chunks=3, id="msg_no")])],
        expect_error=True,
    )

    pieces = split_text("I can't help with that.", 3)
    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "msg_no"),
        *[("TEXT_MESSAGE_CONTENT", "msg_no", piece) for piece in pieces],
        ("TEXT_MESSAGE_END", "msg_no"),
    ]


async def test_message_committed_without_raw_events_streams_whole() -> None:
    agent = Agent(name="writer")
    committed = MessageOutputItem(agent=agent, raw_item=message("msg_whole", "Hello ", "again"))

    run = await translate_events([item_event("message_output_created", committed)])

    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "msg_whole"),
        ("TEXT_MESSAGE_CONTENT", "msg_whole", "Hello again"),
        ("TEXT_MESSAGE_END", "msg_whole"),
    ]
    assert [(m.id, m.content) for m in run.snapshot[1:]] == [("msg_whole", "Hello again")]


async def test_recorded_run_without_raw_events_still_streams_every_message() -> None:
    sdk_events, _ = await record(
        Agent(name="writer"), [Turn([Text("one", id="m1"), Text("two", id="m2")])]
    )
    items_only = [e for e in sdk_events if not isinstance(e, RawResponsesStreamEvent)]

    run = await translate_events(items_only)

    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "m1"),
        ("TEXT_MESSAGE_CONTENT", "m1", "one"),
        ("TEXT_MESSAGE_END", "m1"),
        ("TEXT_MESSAGE_START", "m2"),
        ("TEXT_MESSAGE_CONTENT", "m2", "two"),
        ("TEXT_MESSAGE_END", "m2"),
    ]


async def test_item_done_without_deltas_sends_the_full_text_once() -> None:
    run = await run_agui(
        Agent(name="writer"), request(), [Turn([Text("No deltas at all", chunks=0, id="m1")])]
    )

    assert text_events(run.brief) == [
        ("TEXT_MESSAGE_START", "m1"),
        ("TEXT_MESSAGE_CONTENT", "m1", "No deltas at all"),
        ("TEXT_MESSAGE_END", "m1"),
    ]


async def test_empty_message_opens_no_window_and_adds_no_message() -> None:
    run = await run_agui(Agent(name="writer"), request(), [Turn([Text("", id="m_empty")])])

    assert text_events(run.brief) == []
    assert [m.id for m in run.snapshot] == ["user-1"]


async def test_placeholder_ids_become_generated_ids_kept_for_each_window() -> None:
    run = await run_agui(
        Agent(name="writer"),
        request(),
        [Turn([Text("first one"), Text("second one")], fake_ids=True)],
    )

    texts = text_events(run.brief)
    ids = list(dict.fromkeys(event[1] for event in texts))
    assert len(ids) == 2
    assert all(i.startswith("msg_") and i != FAKE_RESPONSES_ID for i in ids)
    assert texts == [
        ("TEXT_MESSAGE_START", ids[0]),
        ("TEXT_MESSAGE_CONTENT", ids[0], "first"),
        ("TEXT_MESSAGE_CONTENT", ids[0], " one"),
        ("TEXT_MESSAGE_END", ids[0]),
        ("TEXT_MESSAGE_START", ids[1]),
        ("TEXT_MESSAGE_CONTENT", ids[1], "second"),
        ("TEXT_MESSAGE_CONTENT", ids[1], " one"),
        ("TEXT_MESSAGE_END", ids[1]),
    ]
    assert [(m.id, m.content) for m in run.snapshot[1:]] == [
        (ids[0], "first one"),
        (ids[1], "second one"),
    ]


async def test_placeholder_ids_match_committed_items_in_order() -> None:
    sdk_events, _ = await record(
        Agent(name="writer"), [Turn([Text("alpha"), Text("beta")], fake_ids=True)]
    )
    without_done = [e for e in sdk_events if sdk_kind(e) != "response.output_item.done"]

    steps, tail = engine_steps(without_done)

    commits = [out for event, out in steps if isinstance(event, RunItemStreamEvent)]
    streamed = {e[1]: e[2] for _, out in steps for e in brief(out) if len(e) == 3}
    assert [[(e[0], streamed[e[1]]) for e in brief(out)] for out in commits] == [
        [("TEXT_MESSAGE_END", "alpha")],
        [("TEXT_MESSAGE_END", "beta")],
    ]
    assert brief(tail) == [("STEP_FINISHED", "writer")]


def test_message_item_text_joins_text_and_refusal_parts() -> None:
    assert message_item_text(message("m", "a", "b", refusal="no")) == "abno"
    assert message_item_text(message("m")) == ""
