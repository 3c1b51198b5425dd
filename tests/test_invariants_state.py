"""The stream checker's state rules: deltas follow a snapshot, change something and apply."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
)

from support.invariants import StreamViolation, check_stream, client_states


def run(*body: BaseEvent) -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="t", run_id="r", protocol_version="1.0"),
        *body,
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def delta(*operations: dict[str, Any]) -> StateDeltaEvent:
    return StateDeltaEvent.model_validate({"delta": list(operations)})


def test_deltas_after_a_snapshot_pass_and_are_applied_in_order() -> None:
    events = run(
        StateSnapshotEvent(snapshot={"steps": [{"done": False}], "title": "t"}),
        delta({"op": "replace", "path": "/steps/0/done", "value": True}),
        delta({"op": "add", "path": "/steps/-", "value": {"done": False}}),
        delta({"op": "move", "from": "/title", "path": "/name"}),
        delta({"op": "add", "path": "/note", "value": None}),
        StateSnapshotEvent(snapshot={"reset": True}),
        delta({"op": "remove", "path": "/reset"}),
    )

    check_stream(events)
    assert client_states(events) == [
        {"steps": [{"done": False}], "title": "t"},
        {"steps": [{"done": True}], "title": "t"},
        {"steps": [{"done": True}, {"done": False}], "title": "t"},
        {"steps": [{"done": True}, {"done": False}], "name": "t"},
        {"steps": [{"done": True}, {"done": False}], "name": "t", "note": None},
        {"reset": True},
        {},
    ]


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ((delta({"op": "add", "path": "/a", "value": 1}),), "state-delta-first"),
        ((StateSnapshotEvent(snapshot={}), delta()), "state-delta-empty"),
        (
            (StateSnapshotEvent(snapshot={}), delta({"op": "remove", "path": "/missing"})),
            "state-delta-invalid",
        ),
        (
            (
                StateSnapshotEvent(snapshot={"a": 1}),
                delta({"op": "test", "path": "/a", "value": 2}),
            ),
            "state-delta-invalid",
        ),
    ],
    ids=["delta-first", "empty", "missing-path", "failed-test"],
)
def test_each_state_rule_fails_on_its_smallest_breaking_stream(
    body: tuple[BaseEvent, ...], rule: str
) -> None:
    with pytest.raises(StreamViolation) as caught:
        check_stream(run(*body))
    assert caught.value.rule == rule, str(caught.value)
