"""The stream checker accepts valid AG-UI runs and rejects each broken rule on its own."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    CustomEvent,
    FunctionCall,
    Interrupt,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessage,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.core.events import TextMessageRole
from ag_ui.encoder import EventEncoder
from agents.models.fake_id import FAKE_RESPONSES_ID
from hypothesis import given, settings
from hypothesis import strategies as st

from support import invariants
from support.budget import examples
from support.invariants import StreamViolation, check_stream, parse_sse

THREAD, RUN = "thread-1", "run-1"
LOOKUP = ToolCall(id="c0", function=FunctionCall(name="lookup", arguments='{"q": "x"}'))
HISTORY: list[Any] = [
    UserMessage(id="u0", content="earlier question"),
    AssistantMessage(id="a0", content="Let me look.", tool_calls=[LOOKUP]),
    ToolMessage(id="c0-result", tool_call_id="c0", content="found"),
    UserMessage(id="u1", content="hi"),
]


# --------------------------------------------------------------------------- builders


def request(*messages: Any, parent_run_id: str | None = None) -> RunAgentInput:
    """A request holding ``messages`` as its history."""
    return RunAgentInput(
        thread_id=THREAD,
        run_id=RUN,
        parent_run_id=parent_run_id,
        messages=list(messages),
        tools=[],
        context=[],
        state={},
        forwarded_props=None,
    )


REQUEST = request(*HISTORY)


def started(**changes: Any) -> RunStartedEvent:
    fields: dict[str, Any] = {"thread_id": THREAD, "run_id": RUN, "protocol_version": "1.0"}
    return RunStartedEvent(**{**fields, **changes})


def finished(**changes: Any) -> RunFinishedEvent:
    return RunFinishedEvent(**{"thread_id": THREAD, "run_id": RUN, **changes})


def text(ident: str, *deltas: str, role: TextMessageRole | None = None) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=ident, role=role),
        *(TextMessageContentEvent(message_id=ident, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=ident),
    ]


def tool(ident: str, name: str, *args: str, parent: str | None = None) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id=ident, tool_call_name=name, parent_message_id=parent),
        *(ToolCallArgsEvent(tool_call_id=ident, delta=a) for a in args),
        ToolCallEndEvent(tool_call_id=ident),
    ]


def reasoning(ident: str, *deltas: str) -> list[BaseEvent]:
    return [
        ReasoningStartEvent(message_id=ident),
        ReasoningMessageStartEvent(message_id=ident),
        *(ReasoningMessageContentEvent(message_id=ident, delta=d) for d in deltas),
        ReasoningMessageEndEvent(message_id=ident),
        ReasoningEndEvent(message_id=ident),
    ]


def result(call: str, content: str = "ok", ident: str | None = None) -> ToolCallResultEvent:
    return ToolCallResultEvent(
        message_id=ident or f"{call}-result", tool_call_id=call, content=content
    )


def call(ident: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(id=ident, function=FunctionCall(name=name, arguments=arguments))


def assistant(ident: str, content: str | None = None, *calls: ToolCall) -> AssistantMessage:
    return AssistantMessage(id=ident, content=content, tool_calls=list(calls) or None)


def answer(call_id: str, content: str = "ok", ident: str | None = None) -> ToolMessage:
    return ToolMessage(id=ident or f"{call_id}-result", tool_call_id=call_id, content=content)


def snapshot(*new: Any, history: Iterable[Any] = HISTORY) -> MessagesSnapshotEvent:
    return MessagesSnapshotEvent(messages=[*history, *new])


def run(*body: BaseEvent | list[BaseEvent], end: BaseEvent | None = None) -> list[BaseEvent]:
    """RUN_STARTED, the body (events or lists of events), then ``end`` or RUN_FINISHED."""
    events: list[BaseEvent] = [started()]
    for part in body:
        events.extend(part if isinstance(part, list) else [part])
    return [*events, end or finished()]


def full_run() -> list[BaseEvent]:
    """A valid run touching every rule family: steps, reasoning, text, tools, results."""
    return run(
        StepStartedEvent(step_name="assistant"),
        StateSnapshotEvent(snapshot={"item_id": 7, "items": []}),
        reasoning("rs1", "think", "ing"),
        ReasoningEncryptedValueEvent(subtype="message", entity_id="rs1", encrypted_value="enc"),
        text("m1", "Hel", "lo"),
        tool("c1", "weather", '{"city":', ' "Oslo"}', parent="m1"),
        result("c1", "sunny"),
        tool("c2", "confirm", "{}", parent="msg-2"),
        StepFinishedEvent(step_name="assistant"),
        snapshot(
            ReasoningMessage(id="rs1", content="thinking", encrypted_value="enc"),
            assistant("m1", "Hello", call("c1", "weather", '{"city": "Oslo"}')),
            answer("c1", "sunny"),
            assistant("msg-2", None, call("c2", "confirm", "{}")),
        ),
        end=finished(
            outcome=RunFinishedSuccessOutcome(pending_tool_call_ids=["c2"]),
            usage=[TokenUsage(model="gpt", input_tokens=10, output_tokens=5, total_tokens=15)],
        ),
    )


# --------------------------------------------------------------------------- valid runs


def test_full_run_passes_with_and_without_request() -> None:
    check_stream(full_run(), run_input=REQUEST)
    check_stream([*full_run()[:-2], full_run()[-1]])  # no snapshot, no request


def test_run_error_may_leave_windows_open() -> None:
    events = run(TextMessageStartEvent(message_id="m1"), tool("c1", "t", "{")[0])
    check_stream([*events[:-1], RunErrorEvent(message="boom")], run_input=REQUEST)


def test_interrupt_and_cancelled_outcomes_pass() -> None:
    paused = run(
        tool("c9", "refund", "{}", parent="msg-9"),
        snapshot(assistant("msg-9", None, call("c9", "refund", "{}"))),
        end=finished(
            outcome=RunFinishedInterruptOutcome(
                interrupts=[Interrupt(id="c9", reason="tool_approval", tool_call_id="c9")]
            )
        ),
    )
    check_stream(paused, run_input=REQUEST, pre_1_0=True)
    cancelled = run(text("m1", "part"), end=finished(outcome=RunFinishedCancelledOutcome()))
    check_stream(cancelled, run_input=REQUEST)


def test_chunk_form_passes() -> None:
    events = run(
        TextMessageChunkEvent(message_id="m1", delta="Hi"),
        TextMessageChunkEvent(delta=" there"),
        ToolCallChunkEvent(
            tool_call_id="c1", tool_call_name="t", parent_message_id="m1", delta="{"
        ),
        ToolCallChunkEvent(delta="}"),
        snapshot(assistant("m1", "Hi there", call("c1", "t", "{}"))),
    )
    check_stream(events, run_input=REQUEST)


def test_result_may_answer_an_open_call_of_the_history() -> None:
    history = [*HISTORY, assistant("a5", None, call("c5", "approve", "{}"))]
    events = run(result("c5", "done"), snapshot(answer("c5", "done"), history=history))
    check_stream(events, run_input=request(*history))


# --------------------------------------------------------------------------- one rule each


@dataclass
class Case:
    """A stream breaking exactly ``rule``."""

    rule: str
    build: Callable[[], list[BaseEvent]]
    run_input: RunAgentInput | None = field(default_factory=lambda: REQUEST)
    pre_1_0: bool = False


def _snap_text() -> MessagesSnapshotEvent:
    return snapshot(assistant("m1", "hi"))


def _interrupted(*interrupts: Interrupt) -> RunFinishedEvent:
    return finished(outcome=RunFinishedInterruptOutcome(interrupts=list(interrupts)))


def _pending(*ids: str) -> RunFinishedEvent:
    return finished(outcome=RunFinishedSuccessOutcome(pending_tool_call_ids=list(ids)))


def _usage(**counts: int) -> RunFinishedEvent:
    return finished(usage=[TokenUsage.model_validate({"model": "gpt", **counts})])


def _two_calls() -> list[BaseEvent]:
    return [*tool("c1", "a", "{}"), *tool("c2", "b", "{}")]


CASES: dict[str, Case] = {
    # lifecycle
    "empty": Case("empty-stream", lambda: []),
    "not-first": Case("first-event-not-run-started", lambda: [*text("m1", "x"), finished()]),
    "second-start": Case("run-started-repeated", lambda: [started(), started(), finished()]),
    "no-end": Case("missing-terminal", lambda: [started(), *text("m1", "x")]),
    "after-end": Case("event-after-terminal", lambda: [*run(), CustomEvent(name="n", value=1)]),
    "two-ends": Case("event-after-terminal", lambda: [*run(), RunErrorEvent(message="late")]),
    "no-version": Case(
        "run-started-protocol-version", lambda: [started(protocol_version=None), finished()]
    ),
    "old-version": Case(
        "run-started-protocol-version", lambda: [started(protocol_version="0.0.59"), finished()]
    ),
    "thread-id": Case("run-started-ids", lambda: [started(thread_id="other"), finished()]),
    "parent-run": Case("run-started-ids", run, request(*HISTORY, parent_run_id="p0")),
    "finish-ids": Case("run-finished-ids", lambda: run(end=finished(run_id="other"))),
    # windows
    "double-start": Case("window-already-open", lambda: run(text("m1", "x")[0], *text("m1", "y"))),
    "content-alone": Case(
        "window-not-open", lambda: run(TextMessageContentEvent(message_id="m1", delta="x"))
    ),
    "end-alone": Case("window-not-open", lambda: run(ToolCallEndEvent(tool_call_id="c1"))),
    "late-reasoning": Case(
        "window-not-open",
        lambda: run(reasoning("r1", "a"), ReasoningMessageContentEvent(message_id="r1", delta="b")),
    ),
    "span-end-alone": Case("window-not-open", lambda: run(ReasoningEndEvent(message_id="r1"))),
    "text-reused": Case("window-reopened", lambda: run(text("m1", "a"), text("m1", "b"))),
    "call-reused": Case(
        "window-reopened", lambda: run(tool("c1", "t", "{}"), tool("c1", "t", "{}"))
    ),
    "chunk-after-start": Case(
        "chunk-mixed",
        lambda: run(text("m1", "a")[0], TextMessageChunkEvent(message_id="m1", delta="b")),
    ),
    "end-after-chunk": Case(
        "chunk-mixed",
        lambda: run(
            TextMessageChunkEvent(message_id="m1", delta="a"), TextMessageEndEvent(message_id="m1")
        ),
    ),
    "chunk-no-id": Case("chunk-without-id", lambda: run(TextMessageChunkEvent(delta="a"))),
    "chunk-no-name": Case(
        "chunk-missing-name", lambda: run(ToolCallChunkEvent(tool_call_id="c1", delta="{}"))
    ),
    "empty-delta": Case("text-empty-delta", lambda: run(text("m1", "a", ""))),
    "step-twice": Case(
        "step-already-started",
        lambda: run(StepStartedEvent(step_name="s"), StepStartedEvent(step_name="s")),
    ),
    "step-unstarted": Case("step-not-started", lambda: run(StepFinishedEvent(step_name="s"))),
    "open-text": Case("run-finished-open-windows", lambda: run(text("m1", "a")[:2])),
    "open-span": Case("run-finished-open-windows", lambda: run(reasoning("r1", "a")[:-1])),
    "open-step": Case("run-finished-open-steps", lambda: run(StepStartedEvent(step_name="s"))),
    "open-subagent": Case(
        "run-finished-open-subagents",
        lambda: run(SubagentStartedEvent(subagent_run_id="s1", name="helper")),
    ),
    "subagent-unstarted": Case(
        "subagent-not-active", lambda: run(SubagentFinishedEvent(subagent_run_id="s1"))
    ),
    "subagent-twice": Case(
        "subagent-reused",
        lambda: run(
            SubagentStartedEvent(subagent_run_id="s1", name="helper"),
            SubagentFinishedEvent(subagent_run_id="s1"),
            SubagentStartedEvent(subagent_run_id="s1", name="helper"),
            SubagentFinishedEvent(subagent_run_id="s1"),
        ),
    ),
    # tool results and ids
    "result-unknown": Case("tool-result-unknown-call", lambda: run(result("c7"))),
    "result-early": Case(
        "tool-result-before-end", lambda: run(tool("c1", "t", "{}")[:2], result("c1"))
    ),
    "result-twice": Case(
        "tool-result-duplicate",
        lambda: run(tool("c1", "t", "{}"), result("c1"), result("c1", ident="r2")),
    ),
    "history-restated": Case("tool-result-duplicate", lambda: run(result("c0", "found"))),
    "history-answered": Case("tool-result-duplicate", lambda: run(result("c0", ident="again"))),
    "result-is-text": Case(
        "message-id-collision",
        lambda: run(text("m1", "a"), tool("c1", "t", "{}"), result("c1", ident="m1")),
    ),
    "text-is-input": Case("message-id-collision", lambda: run(text("u1", "a"))),
    "reasoning-is-text": Case(
        "message-id-collision", lambda: run(text("m1", "a"), reasoning("m1", "b"))
    ),
    "call-in-history": Case("tool-call-id-in-history", lambda: run(tool("c0", "lookup", "{}"))),
    "parent-user": Case(
        "parent-message-not-assistant", lambda: run(tool("c1", "t", "{}", parent="u1"))
    ),
    "parent-missing": Case(
        "parent-message-unknown",
        lambda: run(
            tool("c1", "t", "{}", parent="ghost"),
            snapshot(assistant("other", None, call("c1", "t", "{}"))),
        ),
    ),
    "encrypted-unknown": Case(
        "encrypted-value-unknown-entity",
        lambda: run(
            ReasoningEncryptedValueEvent(subtype="tool-call", entity_id="c7", encrypted_value="e")
        ),
    ),
    "encrypted-twice": Case(
        "encrypted-value-repeated",
        lambda: run(
            reasoning("r1", "a"),
            *[ReasoningEncryptedValueEvent(subtype="message", entity_id="r1", encrypted_value="e")]
            * 2,
        ),
    ),
    # snapshot
    "snapshot-twice": Case("snapshot-repeated", lambda: run(snapshot(), snapshot())),
    "snapshot-early": Case(
        "snapshot-windows-open", lambda: run(text("m1", "hi")[:2], snapshot(), text("m1", "hi")[2:])
    ),
    "input-dropped": Case("snapshot-input-lost", lambda: run(snapshot(history=HISTORY[:-1]))),
    "input-reordered": Case(
        "snapshot-input-lost", lambda: run(snapshot(history=[HISTORY[1], HISTORY[0], *HISTORY[2:]]))
    ),
    "input-edited": Case(
        "snapshot-input-changed",
        lambda: run(snapshot(history=[*HISTORY[:-1], UserMessage(id="u1", content="edited")])),
    ),
    "snapshot-dup-id": Case(
        "snapshot-duplicate-id",
        lambda: run(text("m1", "hi"), snapshot(assistant("m1", "hi"), assistant("m1", "hi"))),
    ),
    "text-missing": Case("snapshot-missing-message", lambda: run(text("m1", "hi"), snapshot())),
    "reasoning-missing": Case(
        "snapshot-missing-message", lambda: run(reasoning("r1", "a"), snapshot())
    ),
    "text-differs": Case(
        "snapshot-message-mismatch",
        lambda: run(text("m1", "h", "i"), snapshot(assistant("m1", "h"))),
    ),
    "role-differs": Case(
        "snapshot-message-mismatch",
        lambda: run(reasoning("r1", "a"), snapshot(assistant("r1", "a"))),
    ),
    "call-missing": Case(
        "snapshot-missing-tool-call",
        lambda: run(text("m1", "hi"), tool("c1", "t", "{}", parent="m1"), _snap_text()),
    ),
    "args-differ": Case(
        "snapshot-tool-call-mismatch",
        lambda: run(
            tool("c1", "t", "{", "}", parent="m1"),
            snapshot(assistant("m1", None, call("c1", "t", "{ }"))),
        ),
    ),
    "call-misplaced": Case(
        "snapshot-tool-call-misplaced",
        lambda: run(
            text("m1", "hi"),
            tool("c1", "t", "{}", parent="m1"),
            snapshot(assistant("m1", "hi"), assistant("m2", None, call("c1", "t", "{}"))),
        ),
    ),
    "result-missing": Case(
        "snapshot-missing-tool-result",
        lambda: run(
            tool("c1", "t", "{}", parent="m1"),
            result("c1"),
            snapshot(assistant("m1", None, call("c1", "t", "{}"))),
        ),
    ),
    "result-differs": Case(
        "snapshot-tool-result-mismatch",
        lambda: run(
            tool("c1", "t", "{}", parent="m1"),
            result("c1", "yes"),
            snapshot(assistant("m1", None, call("c1", "t", "{}")), answer("c1", "no")),
        ),
    ),
    "orphan-answer": Case("snapshot-orphan-tool-message", lambda: run(snapshot(answer("c8")))),
    "answer-first": Case(
        "snapshot-orphan-tool-message",
        lambda: run(snapshot(answer("c8"), assistant("a8", None, call("c8", "t", "{}")))),
    ),
    "call-twice": Case(
        "snapshot-duplicate-tool-call",
        lambda: run(snapshot(assistant("a8", None, call("c0", "t", "{}")))),
    ),
    "encrypted-lost": Case(
        "snapshot-encrypted-value-mismatch",
        lambda: run(
            reasoning("r1", "a"),
            ReasoningEncryptedValueEvent(subtype="message", entity_id="r1", encrypted_value="e"),
            snapshot(ReasoningMessage(id="r1", content="a")),
        ),
    ),
    # outcome and usage
    "interrupt-dup": Case(
        "interrupt-duplicate-id",
        lambda: run(end=_interrupted(Interrupt(id="i", reason="r"), Interrupt(id="i", reason="r"))),
    ),
    "interrupt-ghost": Case(
        "interrupt-unknown-call",
        lambda: run(end=_interrupted(Interrupt(id="i", reason="r", tool_call_id="c7"))),
    ),
    "interrupt-answered": Case(
        "interrupt-call-answered",
        lambda: run(end=_interrupted(Interrupt(id="i", reason="r", tool_call_id="c0"))),
    ),
    "pending-ghost": Case("pending-not-started", lambda: run(end=_pending("c0"))),
    "pending-answered": Case(
        "pending-answered", lambda: run(tool("c1", "t", "{}"), result("c1"), end=_pending("c1"))
    ),
    "pending-order": Case("pending-order", lambda: run(_two_calls(), end=_pending("c2", "c1"))),
    "pending-repeat": Case("pending-order", lambda: run(_two_calls(), end=_pending("c1", "c1"))),
    "pre-cancelled": Case(
        "pre-1.0-cancelled",
        lambda: run(end=finished(outcome=RunFinishedCancelledOutcome())),
        pre_1_0=True,
    ),
    "pre-pending": Case(
        "pre-1.0-pending-ids", lambda: run(_two_calls(), end=_pending("c1")), pre_1_0=True
    ),
    "usage-empty": Case("usage-invalid", lambda: run(end=_usage())),
    "usage-reasoning": Case(
        "usage-invalid", lambda: run(end=_usage(output_tokens=3, reasoning_tokens=4))
    ),
    "usage-cache": Case(
        "usage-invalid",
        lambda: run(end=_usage(input_tokens=3, cached_input_tokens=2, cache_write_input_tokens=2)),
    ),
    "usage-total": Case(
        "usage-invalid", lambda: run(end=_usage(input_tokens=1, output_tokens=1, total_tokens=3))
    ),
    "usage-twice": Case(
        "usage-duplicate-model",
        lambda: run(end=finished(usage=[TokenUsage(model="m", input_tokens=1)] * 2)),
    ),
    # wire
    "extra-field": Case(
        "wire-unknown-key",
        lambda: run(
            TextMessageStartEvent.model_validate({"message_id": "m1", "output_index": 0}),
            text("m1")[1:],
        ),
    ),
    "metadata-key": Case(
        "wire-internal-key", lambda: run(CustomEvent(name="n", value=1, metadata={"item_id": "x"}))
    ),
    "raw-key": Case(
        "wire-internal-key",
        lambda: run(
            TextMessageStartEvent(message_id="m1", raw_event={"a": [{"outputIndex": 0}]}),
            text("m1")[1:],
        ),
    ),
    "value-key": Case(
        "wire-internal-key", lambda: run(CustomEvent(name="n", value={"sequence_number": 3}))
    ),
    "fake-id": Case("wire-fake-id", lambda: run(text(FAKE_RESPONSES_ID, "x"))),
    "fake-parent": Case(
        "wire-fake-id", lambda: run(tool("c1", "t", "{}", parent=FAKE_RESPONSES_ID))
    ),
    "fake-in-state": Case(
        "wire-fake-id", lambda: run(StateSnapshotEvent(snapshot={"ids": [FAKE_RESPONSES_ID]}))
    ),
    "no-interrupts": Case(
        "wire-invalid",
        lambda: run(
            end=finished(outcome=RunFinishedInterruptOutcome.model_construct(interrupts=[]))
        ),
    ),
    "negative-usage": Case(
        "wire-invalid",
        lambda: run(end=finished(usage=[TokenUsage.model_construct(input_tokens=-1)])),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_fails_on_its_smallest_breaking_stream(name: str) -> None:
    case = CASES[name]
    events = case.build()
    with pytest.raises(StreamViolation) as caught:
        check_stream(events, run_input=case.run_input, pre_1_0=case.pre_1_0)
    assert caught.value.rule == case.rule, str(caught.value)
    assert f"[{case.rule}]" in str(caught.value)


def test_many_distinct_rules_are_proven_able_to_fail() -> None:
    assert len(CASES) >= 25
    assert len({case.rule for case in CASES.values()}) >= 25


def test_violation_points_at_the_offending_event() -> None:
    events = run(text("m1", "a"), text("m2", "b"), text("m1", "c"))
    with pytest.raises(StreamViolation) as caught:
        check_stream(events)
    assert caught.value.index == 7
    assert "event #7" in str(caught.value)


def test_parent_check_reports_the_tool_call_start() -> None:
    events = run(text("m1", "a"), tool("c1", "t", "{}", parent="u1"))
    with pytest.raises(StreamViolation) as caught:
        check_stream(events, run_input=REQUEST)
    assert caught.value.index == 4


def test_application_state_may_use_any_key_but_metadata_may_not() -> None:
    check_stream(run(StateSnapshotEvent(snapshot={"item_id": 1, "output_index": 2})))
    with pytest.raises(StreamViolation, match="wire-internal-key"):
        check_stream(run(StateSnapshotEvent(snapshot={}, metadata={"output_index": 2})))


def test_an_encoder_writing_anything_but_one_data_line_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class SplitEncoder:
        def encode(self, event: BaseEvent) -> str:
            return "data: {\n" + event.model_dump_json(by_alias=True)[1:] + "\n\n"

    monkeypatch.setattr(invariants, "_ENCODER", SplitEncoder())
    with pytest.raises(StreamViolation) as caught:
        check_stream(run())
    assert (caught.value.rule, caught.value.index) == ("wire-encoding", 0)


# --------------------------------------------------------------------------- SSE


def _encode(events: Iterable[BaseEvent]) -> str:
    encoder = EventEncoder()
    return "".join(encoder.encode(event) for event in events)


def test_parse_sse_round_trips_what_the_encoder_writes() -> None:
    events = full_run()
    parsed = parse_sse(_encode(events))
    assert [type(e) for e in parsed] == [type(e) for e in events]
    assert [e.model_dump() for e in parsed] == [e.model_dump() for e in events]
    check_stream(parsed, run_input=REQUEST)


def test_parse_sse_reads_bytes_crlf_comments_and_split_data_lines() -> None:
    body = ': keep-alive\r\n\r\nevent: message\r\ndata: {"type": "RUN_STARTED",\r\n'
    body += 'data: "threadId": "t", "runId": "r", "protocolVersion": "1.0"}\r\n\r\n'
    body += _encode([RunFinishedEvent(thread_id="t", run_id="r")]).replace("data: ", "data:")
    parsed = parse_sse(body.encode())
    assert [type(e) for e in parsed] == [RunStartedEvent, RunFinishedEvent]
    check_stream(parsed)


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        (_encode(run())[:-1], "sse-truncated"),
        ('data: {"type": "NOT_AN_EVENT"}\n\n', "sse-invalid-event"),
        ('data: {"type": "TEXT_MESSAGE_END"}\n\n', "sse-invalid-event"),
        ("data: {not json\n\n", "sse-invalid-event"),
    ],
)
def test_parse_sse_rejects_broken_bodies(body: str, rule: str) -> None:
    with pytest.raises(StreamViolation) as caught:
        parse_sse(body)
    assert caught.value.rule == rule


# --------------------------------------------------------------------------- generated


def _interleave(sequences: list[list[BaseEvent]], picks: list[int]) -> list[BaseEvent]:
    """Merge ``sequences`` keeping each one's order, choosing the next source from ``picks``."""
    queues = [list(reversed(seq)) for seq in sequences]
    merged: list[BaseEvent] = []
    for pick in picks:
        live = [q for q in queues if q]
        if not live:
            break
        merged.append(live[pick % len(live)].pop())
    for queue in queues:
        merged.extend(reversed(queue))
    return merged


@st.composite
def interleaved_runs(draw: st.DrawFn) -> tuple[list[BaseEvent], MessagesSnapshotEvent]:
    """Several text, tool and reasoning windows streamed interleaved, with their snapshot."""
    kinds = draw(st.lists(st.sampled_from(["text", "tool", "reasoning"]), min_size=1, max_size=6))
    deltas = st.lists(st.text(min_size=1, max_size=4), max_size=4)
    windows: list[list[BaseEvent]] = []
    messages: list[Any] = []
    for n, kind in enumerate(kinds):
        parts = draw(deltas)
        if kind == "text":
            windows.append(text(f"m{n}", *parts))
            messages.append(assistant(f"m{n}", "".join(parts)))
        elif kind == "tool":
            windows.append(tool(f"g{n}", "t", *parts, parent=f"p{n}"))
            messages.append(assistant(f"p{n}", None, call(f"g{n}", "t", "".join(parts))))
        else:
            windows.append(reasoning(f"r{n}", *parts))
            messages.append(ReasoningMessage(id=f"r{n}", content="".join(parts)))
    picks = draw(st.lists(st.integers(min_value=0, max_value=5), max_size=60))
    return _interleave(windows, picks), snapshot(*messages)


@settings(max_examples=examples(60), deadline=None)
@given(interleaved_runs(), st.integers(min_value=0))
def test_generated_runs_pass_and_fail_without_an_end(
    generated: tuple[list[BaseEvent], MessagesSnapshotEvent], seed: int
) -> None:
    body, snap = generated
    check_stream(run(body, snap), run_input=REQUEST)
    ends = [i for i, e in enumerate(body) if e.type.value.endswith("_END")]
    dropped = ends[seed % len(ends)]
    with pytest.raises(StreamViolation) as caught:
        check_stream(run(body[:dropped] + body[dropped + 1 :], snap), run_input=REQUEST)
    assert caught.value.rule == "snapshot-windows-open"


def _long_run(windows: int) -> list[BaseEvent]:
    body: list[BaseEvent] = []
    messages = []
    for n in range(windows):
        body.extend(text(f"m{n}", "a", "b", "c"))
        messages.append(assistant(f"m{n}", "abc"))
    return run(body, snapshot(*messages, history=[]))


def _calls(events: list[BaseEvent]) -> int:
    """How many Python function calls checking ``events`` makes: a count, not a timing."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        check_stream(events)
    finally:
        sys.setprofile(None)
    return count


def test_checking_work_grows_linearly() -> None:
    small, large = _calls(_long_run(250)), _calls(_long_run(1000))
    assert 4 * small * 0.9 < large < 4 * small * 1.1, (small, large)


# --------------------------------------------------------------------------- edited approvals


def test_a_snapshot_may_show_exactly_the_approved_edits_of_a_call() -> None:
    """A resume approving a call with ``editedArgs`` runs it with them: the snapshot restates
    the call with those arguments and nothing else changed, and with no other arguments."""
    paused = ToolCall(id="c9", function=FunctionCall(name="refund", arguments='{"amount": 30}'))
    history = [UserMessage(id="u0", content="refund"), assistant("a9", None, paused)]
    entry = ResumeEntry(
        interrupt_id="c9.agui1.key.1.mac",
        status="resolved",
        payload={"approved": True, "editedArgs": {"amount": 45}},
    )
    run_input = request(*history).model_copy(update={"resume": [entry]})
    result = ToolCallResultEvent(message_id="c9-result", tool_call_id="c9", content="done")

    def with_arguments(arguments: str) -> list[BaseEvent]:
        call = paused.model_copy(
            update={"function": paused.function.model_copy(update={"arguments": arguments})}
        )
        messages = [history[0], assistant("a9", None, call), answer("c9", "done")]
        return run(result, MessagesSnapshotEvent(messages=messages))

    check_stream(with_arguments('{"amount":45}'), run_input=run_input)
    check_stream(with_arguments('{"amount": 30}'), run_input=run_input)  # not run after all
    with pytest.raises(StreamViolation) as caught:
        check_stream(with_arguments('{"amount":46}'), run_input=run_input)
    assert caught.value.rule == "snapshot-input-changed"
