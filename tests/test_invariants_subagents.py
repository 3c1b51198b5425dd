"""The stream checker's subagent rules: a valid subagent run passes, each broken rule fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from support.invariants import StreamViolation, check_stream

SUB, INNER = "sub-1", "sub-2"
INPUT = RunAgentInput(
    thread_id="t",
    run_id="r",
    messages=[UserMessage(id="u1", role="user", content="hi")],
    tools=[],
    context=[],
    state=None,
    forwarded_props=None,
    protocol_version="1.0",
)


def call(ident: str, name: str, parent: str, owner: str | None = None) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(
            tool_call_id=ident, tool_call_name=name, parent_message_id=parent, subagent_run_id=owner
        ),
        ToolCallEndEvent(tool_call_id=ident, subagent_run_id=owner),
    ]


def text(ident: str, owner: str | None, delta: str = "hi") -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=ident, role="assistant", subagent_run_id=owner),
        TextMessageContentEvent(message_id=ident, delta=delta, subagent_run_id=owner),
        TextMessageEndEvent(message_id=ident, subagent_run_id=owner),
    ]


def start(ident: str = SUB, call_id: str = "c1", **kw: Any) -> SubagentStartedEvent:
    kw.setdefault("parent_message_id", "m1")
    return SubagentStartedEvent(
        subagent_run_id=ident, name="Spec", parent_tool_call_id=call_id, **kw
    )


def done(ident: str = SUB) -> SubagentFinishedEvent:
    return SubagentFinishedEvent(subagent_run_id=ident)


def result(call_id: str = "c1", owner: str | None = None) -> ToolCallResultEvent:
    return ToolCallResultEvent(
        message_id=f"{call_id}-result", tool_call_id=call_id, content="ok", subagent_run_id=owner
    )


def snapshot(*extra: Any, order: str = "inside") -> MessagesSnapshotEvent:
    holder = AssistantMessage(
        id="m1",
        role="assistant",
        tool_calls=[ToolCall(id="c1", function=FunctionCall(name="spec", arguments=""))],
    )
    sub_text = AssistantMessage(id="s1", role="assistant", content="hi", subagent_run_id=SUB)
    answer = ToolMessage(id="c1-result", role="tool", tool_call_id="c1", content="ok")
    middle = [sub_text, *extra]
    messages = [holder, *middle, answer] if order == "inside" else [holder, answer, *middle]
    return MessagesSnapshotEvent(messages=[*INPUT.messages, *messages])


def lifecycle(*body: BaseEvent, end: BaseEvent | None = None) -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="t", run_id="r", protocol_version="1.0"),
        *body,
        end or RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def valid_body() -> list[BaseEvent]:
    return [*call("c1", "spec", "m1"), start(), *text("s1", SUB), done(), result(), snapshot()]


def test_a_subagent_run_passes() -> None:
    check_stream(lifecycle(*valid_body()), run_input=INPUT)


def test_nested_subagent_and_errors_pass() -> None:
    body = [
        *call("c1", "spec", "m1"),
        start(),
        *call("c2", "inner", "s-m", owner=SUB),
        start(INNER, "c2", parent_subagent_run_id=SUB, parent_message_id="s-m"),
        *text("i1", INNER),
        SubagentErrorEvent(subagent_run_id=INNER, message="failed"),
        result("c2", owner=SUB),
        done(),
        result(),
    ]
    check_stream(lifecycle(*body), run_input=INPUT)


def _swap(body: list[BaseEvent], a: int, b: int) -> list[BaseEvent]:
    body[a], body[b] = body[b], body[a]
    return body


BROKEN: dict[str, Callable[[], list[BaseEvent]]] = {
    "subagent-unknown": lambda: [*call("c1", "spec", "m1"), *text("s1", SUB)],
    "subagent-closed": lambda: [*call("c1", "spec", "m1"), start(), done(), *text("s1", SUB)],
    "subagent-parent-call-unknown": lambda: [start()],
    "subagent-parent-call-open": lambda: [call("c1", "spec", "m1")[0], start()],
    "subagent-parent-call-answered": lambda: [*call("c1", "spec", "m1"), result(), start()],
    "subagent-parent-message-mismatch": lambda: [
        *call("c1", "spec", "m1"),
        start(parent_message_id="other"),
    ],
    "subagent-parent-not-active": lambda: [
        *call("c1", "spec", "m1"),
        start(parent_subagent_run_id="nobody"),
    ],
    "subagent-attribution-mismatch": lambda: [
        *call("c1", "spec", "m1"),
        start(),
        TextMessageStartEvent(message_id="s1", role="assistant", subagent_run_id=SUB),
        TextMessageEndEvent(message_id="s1"),
    ],
    "subagent-closed-open-windows": lambda: [
        *call("c1", "spec", "m1"),
        start(),
        text("s1", SUB)[0],
        done(),
    ],
    "subagent-closed-before-children": lambda: [
        *call("c1", "spec", "m1"),
        start(),
        *call("c2", "inner", "s-m", owner=SUB),
        start(INNER, "c2", parent_subagent_run_id=SUB, parent_message_id="s-m"),
        done(),
    ],
    "subagent-open-at-result": lambda: [*call("c1", "spec", "m1"), start(), result()],
    "run-finished-open-subagents": lambda: [*call("c1", "spec", "m1"), start()],
    "snapshot-subagent-misplaced": lambda: [
        *valid_body()[:-1],
        snapshot(order="after"),
    ],
    "snapshot-subagent-attribution": lambda: [
        *valid_body()[:-1],
        MessagesSnapshotEvent(
            messages=[
                *snapshot().messages[:2],
                AssistantMessage(id="s1", role="assistant", content="hi"),
                *snapshot().messages[3:],
            ]
        ),
    ],
}


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_each_broken_rule_is_reported(rule: str) -> None:
    with pytest.raises(StreamViolation) as caught:
        check_stream(lifecycle(*BROKEN[rule]()), run_input=INPUT)
    assert caught.value.rule == rule


def test_run_error_must_close_subagents_unless_the_stream_was_cut() -> None:
    body = [*call("c1", "spec", "m1"), start()]
    with pytest.raises(StreamViolation) as caught:
        check_stream(lifecycle(*body, end=RunErrorEvent(message="x")), run_input=INPUT)
    assert caught.value.rule == "run-error-open-subagents"
    check_stream(lifecycle(*body, end=RunErrorEvent(message="x")), run_input=INPUT, cut=True)
