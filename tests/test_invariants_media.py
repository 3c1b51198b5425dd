"""The stream checker's rules for content parts and activities, each proven able to fail."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    ActivityDeltaEvent,
    ActivityMessage,
    ActivitySnapshotEvent,
    AssistantMessage,
    BaseEvent,
    DataSource,
    FunctionCall,
    ImagePart,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from support.invariants import StreamViolation, check_stream
from support.runs import request

USER = UserMessage(id="user-1", content="Hello")
IMAGE = ImagePart(source=DataSource(value="AAAA", mime_type="image/png"))


def _run(*middle: BaseEvent, messages: list[Any] | None = None) -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="thread-1", run_id="run-1", protocol_version="1.0"),
        *middle,
        MessagesSnapshotEvent(messages=[USER, *(messages or [])]),
        RunFinishedEvent(thread_id="thread-1", run_id="run-1"),
    ]


def _snapshot(content: dict[str, Any]) -> ActivitySnapshotEvent:
    return ActivitySnapshotEvent(message_id="a1", activity_type="web_search", content=content)


def _delta(patch: list[dict[str, Any]], kind: str = "web_search") -> ActivityDeltaEvent:
    return ActivityDeltaEvent.model_validate(
        {"message_id": "a1", "activity_type": kind, "patch": patch}
    )


def _stored(content: dict[str, Any]) -> ActivityMessage:
    return ActivityMessage(id="a1", activity_type="web_search", content=content)


REPLACE = [{"op": "replace", "path": "/status", "value": "completed"}]
CASES: dict[str, tuple[str, list[BaseEvent], bool]] = {
    "activity before 1.0": (
        "pre-1.0-activity",
        _run(_snapshot({"status": "in_progress"}), messages=[_stored({"status": "in_progress"})]),
        True,
    ),
    "delta before its snapshot": ("activity-delta-first", _run(_delta(REPLACE)), False),
    "delta of another type": (
        "activity-type-changed",
        _run(_snapshot({"status": "a"}), _delta(REPLACE, "file_search")),
        False,
    ),
    "patch that does not apply": (
        "activity-delta-invalid",
        _run(_snapshot({}), _delta([{"op": "remove", "path": "/missing"}])),
        False,
    ),
    "snapshot without the activity": (
        "snapshot-activity-mismatch",
        _run(_snapshot({"status": "in_progress"}), _delta(REPLACE)),
        False,
    ),
    "snapshot with stale content": (
        "snapshot-activity-mismatch",
        _run(
            _snapshot({"status": "in_progress"}),
            _delta(REPLACE),
            messages=[_stored({"status": "in_progress"})],
        ),
        False,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_fails_on_its_smallest_breaking_stream(name: str) -> None:
    rule, events, pre_1_0 = CASES[name]
    run_input = request(USER, protocol_version=None if pre_1_0 else "1.0")
    with pytest.raises(StreamViolation) as caught:
        check_stream(events, run_input=run_input, pre_1_0=pre_1_0)
    assert caught.value.rule == rule, str(caught.value)


def test_content_parts_before_1_0_fail_and_pass_for_1_0() -> None:
    call = [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="draw", parent_message_id="m1"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(message_id="c1-result", tool_call_id="c1", content=[IMAGE]),
    ]
    held = [
        AssistantMessage(
            id="m1",
            tool_calls=[ToolCall(id="c1", function=FunctionCall(name="draw", arguments=""))],
        ),
        ToolMessage(id="c1-result", tool_call_id="c1", content=[IMAGE]),
    ]
    check_stream(_run(*call, messages=held), run_input=request(USER), pre_1_0=False)
    with pytest.raises(StreamViolation) as caught:
        check_stream(
            _run(*call, messages=held), run_input=request(USER, protocol_version=None), pre_1_0=True
        )
    assert caught.value.rule == "pre-1.0-parts"


def test_an_activity_streamed_and_restated_passes() -> None:
    events = _run(
        _snapshot({"status": "in_progress"}),
        _delta(REPLACE),
        messages=[_stored({"status": "completed"})],
    )
    check_stream(events, run_input=request(USER), pre_1_0=False)
