"""Reasoning: summary and text parts as REASONING_* windows, encrypted content for replay."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ReasoningMessage, ReasoningMessageStartEvent
from agents import Agent, set_tracing_disabled
from agents.items import ReasoningItem
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.stream_events import RawResponsesStreamEvent
from openai.types.responses import ResponseReasoningItem

from support.runs import (
    AguiRun,
    engine_steps,
    item_event,
    record,
    request,
    run_agui,
    sdk_kind,
    translate_events,
)
from support.scripted import Reasoning, Text, Turn, split_text

set_tracing_disabled(True)


def reasoning_events(run: AguiRun) -> list[tuple[Any, ...]]:
    """The REASONING_* tuples of a run, in order."""
    return [event for event in run.brief if event[0].startswith("REASONING")]


def reasoning_messages(run: AguiRun) -> list[tuple[str, str, str | None]]:
    """(id, content, encrypted_value) of every reasoning message in the snapshot."""
    return [
        (m.id, m.content, m.encrypted_value)
        for m in run.snapshot
        if isinstance(m, ReasoningMessage)
    ]


def part(message_id: str, text: str, chunks: int | None = None) -> list[tuple[Any, ...]]:
    """The events of one streamed reasoning part."""
    return [
        ("REASONING_MESSAGE_START", message_id),
        *[("REASONING_MESSAGE_CONTENT", message_id, p) for p in split_text(text, chunks)],
        ("REASONING_MESSAGE_END", message_id),
    ]


async def test_summary_parts_stream_as_numbered_messages_inside_one_span() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(summary=["Look up facts", "Compare them", "Decide"], id="rs_a")])],
    )

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_a"),
        *part("rs_a", "Look up facts"),
        *part("rs_a-1", "Compare them"),
        *part("rs_a-2", "Decide"),
        ("REASONING_END", "rs_a"),
    ]
    starts = run.of(ReasoningMessageStartEvent)
    assert {start.role for start in starts} == {"reasoning"}
    assert reasoning_messages(run) == [
        ("rs_a", "Look up facts", None),
        ("rs_a-1", "Compare them", None),
        ("rs_a-2", "Decide", None),
    ]


async def test_raw_reasoning_text_parts_follow_the_summary_parts() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(summary=["Short"], text=["step one", "step two"], id="rs_t")])],
    )

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_t"),
        *part("rs_t", "Short"),
        *part("rs_t-1", "step one"),
        *part("rs_t-2", "step two"),
        ("REASONING_END", "rs_t"),
    ]


async def test_encrypted_content_is_sent_exactly_once_for_the_first_part() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(summary=["one", "two"], encrypted="gAAAA-secret", id="rs_e")])],
    )

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_e"),
        *part("rs_e", "one"),
        *part("rs_e-1", "two"),
        ("REASONING_ENCRYPTED_VALUE", "message", "rs_e", "gAAAA-secret"),
        ("REASONING_END", "rs_e"),
    ]
    assert reasoning_messages(run) == [("rs_e", "one", "gAAAA-secret"), ("rs_e-1", "two", None)]


async def test_encrypted_content_without_summary_streams_an_empty_message() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(encrypted="gAAAA-only", id="rs_empty"), Text("Answer")])],
    )

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_empty"),
        ("REASONING_MESSAGE_START", "rs_empty"),
        ("REASONING_MESSAGE_END", "rs_empty"),
        ("REASONING_ENCRYPTED_VALUE", "message", "rs_empty", "gAAAA-only"),
        ("REASONING_END", "rs_empty"),
    ]
    assert reasoning_messages(run) == [("rs_empty", "", "gAAAA-only")]


def _drop_encrypted_on_item_done(events: list[Any]) -> list[Any]:
    """The finished item of the stream lacks the encrypted value; only the committed item has it."""
    out: list[Any] = []
    for event in events:
        if sdk_kind(event) == "response.output_item.done" and event.data.item.type == "reasoning":
            item = event.data.item.model_copy(update={"encrypted_content": None})
            event = RawResponsesStreamEvent(data=event.data.model_copy(update={"item": item}))
        out.append(event)
    return out


async def test_late_encrypted_value_reaches_only_the_snapshot() -> None:
    sdk_events, _ = await record(
        Agent(name="thinker"),
        [Turn([Reasoning(summary=["first", "second"], encrypted="gAAAA-late", id="rs_l")])],
    )

    run = await translate_events(_drop_encrypted_on_item_done(sdk_events))

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_l"),
        *part("rs_l", "first"),
        *part("rs_l-1", "second"),
        ("REASONING_END", "rs_l"),
    ]
    assert reasoning_messages(run) == [("rs_l", "first", "gAAAA-late"), ("rs_l-1", "second", None)]


async def test_late_encrypted_value_without_summary_gets_an_empty_snapshot_message() -> None:
    sdk_events, _ = await record(
        Agent(name="thinker"), [Turn([Reasoning(encrypted="gAAAA-late", id="rs_l")])]
    )

    run = await translate_events(_drop_encrypted_on_item_done(sdk_events))

    assert reasoning_events(run) == []
    assert reasoning_messages(run) == [("rs_l", "", "gAAAA-late")]


async def test_committed_item_adds_no_second_encrypted_value() -> None:
    sdk_events, _ = await record(
        Agent(name="thinker"), [Turn([Reasoning(summary=["s"], encrypted="gAAAA-x", id="rs_c")])]
    )

    steps, _ = engine_steps(sdk_events)

    producers = [
        sdk_kind(event)
        for event, out in steps
        for e in out
        if e.type.value == "REASONING_ENCRYPTED_VALUE"
    ]
    assert producers == ["response.output_item.done"]
    committed = [out for event, out in steps if sdk_kind(event) == "reasoning_item_created"]
    assert committed == [[]]


async def test_placeholder_ids_give_a_generated_phase_id_reused_by_parts_and_snapshot() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(summary=["a", "b"], encrypted="gAAAA-f")], fake_ids=True)],
    )

    (start, *_) = reasoning_events(run)
    phase = start[1]
    assert phase.startswith("rs_") and phase != FAKE_RESPONSES_ID
    assert reasoning_events(run) == [
        ("REASONING_START", phase),
        *part(phase, "a"),
        *part(f"{phase}-1", "b"),
        ("REASONING_ENCRYPTED_VALUE", "message", phase, "gAAAA-f"),
        ("REASONING_END", phase),
    ]
    assert reasoning_messages(run) == [(phase, "a", "gAAAA-f"), (f"{phase}-1", "b", None)]


async def test_reasoning_committed_without_raw_events_streams_whole() -> None:
    raw = ResponseReasoningItem.model_validate(
        {
            "id": "rs_whole",
            "type": "reasoning",
            "summary": [
                {"type": "summary_text", "text": "Plan it"},
                {"type": "summary_text", "text": "Do it"},
            ],
            "encrypted_content": "gAAAA-w",
        }
    )
    item = ReasoningItem(agent=Agent(name="thinker"), raw_item=raw)

    run = await translate_events([item_event("reasoning_item_created", item)])

    assert reasoning_events(run) == [
        ("REASONING_START", "rs_whole"),
        ("REASONING_MESSAGE_START", "rs_whole"),
        ("REASONING_MESSAGE_CONTENT", "rs_whole", "Plan it"),
        ("REASONING_MESSAGE_END", "rs_whole"),
        ("REASONING_MESSAGE_START", "rs_whole-1"),
        ("REASONING_MESSAGE_CONTENT", "rs_whole-1", "Do it"),
        ("REASONING_MESSAGE_END", "rs_whole-1"),
        ("REASONING_ENCRYPTED_VALUE", "message", "rs_whole", "gAAAA-w"),
        ("REASONING_END", "rs_whole"),
    ]


async def test_reasoning_with_nothing_to_show_emits_nothing() -> None:
    run = await run_agui(
        Agent(name="thinker"), request(), [Turn([Reasoning(id="rs_blank"), Text("Hi")])]
    )

    assert reasoning_events(run) == []
    assert reasoning_messages(run) == []


async def test_a_span_left_open_is_closed_at_finalization() -> None:
    sdk_events, _ = await record(
        Agent(name="thinker"), [Turn([Reasoning(summary=["unfinished thought"], id="rs_o")])]
    )
    cut = sdk_events[
        : next(
            i
            for i, e in enumerate(sdk_events)
            if sdk_kind(e) == "response.reasoning_summary_text.done"
        )
    ]

    steps, tail = engine_steps(cut)

    assert not any(e.type.value == "REASONING_END" for _, out in steps for e in out)
    assert [e.type.value for e in tail] == [
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "STEP_FINISHED",
    ]
    run = await translate_events(cut)
    assert reasoning_messages(run) == [("rs_o", "unfinished thought", None)]


async def test_summary_sent_without_deltas_still_reaches_the_client() -> None:
    run = await run_agui(
        Agent(name="thinker"),
        request(),
        [Turn([Reasoning(summary=["whole part", "another"], chunks=0, id="rs_nd")])],
    )

    assert reasoning_messages(run) == [("rs_nd", "whole part", None), ("rs_nd-1", "another", None)]
    contents = [e for e in reasoning_events(run) if e[0] == "REASONING_MESSAGE_CONTENT"]
    assert contents == [
        ("REASONING_MESSAGE_CONTENT", "rs_nd", "whole part"),
        ("REASONING_MESSAGE_CONTENT", "rs_nd-1", "another"),
    ]
