"""The JSON Patch of a state change: right when applied, small for small changes, and given up
once it reaches the snapshot's size, having written no more than that."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest
from ag_ui.core import StateSnapshotEvent

from ag_ui_openai_agents.outbound import state_diff
from ag_ui_openai_agents.outbound.state_diff import dump, json_patch, load
from ag_ui_openai_agents.outbound.state_events import StateStream

ROWS = [{"id": i, "done": False} for i in range(30)]

CASES: list[tuple[Any, Any]] = [
    ({"a": 1, "b": [1, 2, 3]}, {"a": 2, "b": [1, 2, 3], "c": None}),
    ({"a": 1, "b": 2}, {"b": 2}),
    ({"rows": ROWS}, {"rows": [{"id": -1, "done": True}, *ROWS]}),
    ({"rows": ROWS}, {"rows": [*ROWS[:10], *ROWS[11:]]}),
    ({"rows": ROWS}, {"rows": [*ROWS[:10], {"id": 10, "done": True}, *ROWS[11:], {"id": 99}]}),
    ({"rows": ROWS}, {"rows": [{"id": 0, "done": True}, *ROWS[2:]]}),
    ({"rows": ROWS}, {"rows": ROWS[5:25]}),
    ({"rows": ROWS}, {"rows": [*ROWS, *ROWS]}),
    ({"a/b": {"c~d": 1}}, {"a/b": {"c~d": 2}}),
    ({"a": {"b": 1}}, {"a": [1]}),
    ({"a": 1, "b": 0}, {"a": True, "b": 1}),
    ([1, 2, 3], [0, 1, 2, 3]),
    ("text", {"now": "an object"}),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_the_patch_turns_the_old_state_into_the_new(old: Any, new: Any) -> None:
    old, new = load(dump(old)), load(dump(new))

    patch = json_patch(old, new, 10**6)

    assert patch is not None
    assert dump(jsonpatch.apply_patch(old, patch)) == dump(new)


def test_a_change_equality_cannot_see_leaves_the_patch_empty_and_the_stream_sends_a_snapshot() -> (
    None
):
    # ``1 == True`` in Python: the patch cannot show this change, so the stream, seeing the
    # JSON changed and the patch empty, sends the snapshot.
    assert json_patch({"a": 1}, {"a": True}, 10**6) == []
    stream = StateStream(deltas=True)
    stream.events({"flags": [1, 0], "n": 1})

    assert stream.events({"flags": [True, 0], "n": 1}) == [
        StateSnapshotEvent(snapshot={"flags": [True, 0], "n": 1})
    ]


def test_one_change_and_one_insertion_in_a_long_list_are_two_operations() -> None:
    rows = [{"id": i, "done": False} for i in range(5_000)]
    new = [{"id": -1, "done": False}, *rows]
    new[4_000] = {**new[4_000], "done": True}

    patch = json_patch(rows, new, len(dump(new)))

    assert patch == [
        {"op": "add", "path": "/0", "value": {"id": -1, "done": False}},
        {"op": "replace", "path": "/4000/done", "value": True},
    ]


def test_a_patch_larger_than_the_limit_is_given_up_having_written_about_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: list[int] = []

    def counting_dump(value: Any) -> bytes:
        text = dump(value)
        written.append(len(text))
        return text

    monkeypatch.setattr(state_diff, "dump", counting_dump)
    old = {f"key {i}": i for i in range(10_000)}
    new = {f"key {i}": -i - 1 for i in range(10_000)}
    limit = len(dump(new))

    assert json_patch(old, new, limit) is None
    # Each operation's value is written once, and the work stops at the snapshot's size.
    assert sum(written) < limit // 4
    assert json_patch(old, {**old, "key 5": 0}, limit) == [
        {"op": "replace", "path": "/key 5", "value": 0}
    ]
