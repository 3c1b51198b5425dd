"""Event ids, log keys and request fingerprints."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ag_ui_openai_agents.runs import event_id, log_key, parse_event_id, request_fingerprint


def test_an_id_is_the_run_id_and_the_seq() -> None:
    assert event_id("run-1", 7) == "run-1.7"
    assert parse_event_id("run-1.7") == ("run-1", 7)


def test_a_run_id_with_dots_splits_on_the_last_one() -> None:
    assert parse_event_id(event_id("a.b.c", 12)) == ("a.b.c", 12)
    assert parse_event_id(" r.3 ") == ("r", 3)


@pytest.mark.parametrize(
    "text",
    ["", "run", "run.", ".3", "run.0", "run.-1", "run.+1", "run.1e3", "run.٣", "r." + "9" * 19],
)
def test_what_the_log_never_gave_is_not_an_id(text: str) -> None:
    assert parse_event_id(text) is None


@given(st.text(min_size=1), st.integers(min_value=1, max_value=10**18 - 1))
def test_every_id_parses_back(run_id: str, seq: int) -> None:
    stripped = run_id.strip()
    if stripped == run_id:
        assert parse_event_id(event_id(run_id, seq)) == (run_id, seq)


def test_ids_increase_with_the_seq_within_a_run() -> None:
    ids = [event_id("r", seq) for seq in range(1, 30)]
    parsed = [parse_event_id(text) for text in ids]
    assert [seq for _, seq in filter(None, parsed)] == list(range(1, 30))


def test_a_run_id_under_another_key_is_another_run() -> None:
    assert log_key("user-1:t", "r") != log_key("user-2:t", "r")
    assert log_key("a", "b:c") != log_key("a:b", "c")


def test_the_fingerprint_ignores_key_order_only() -> None:
    one = {"threadId": "t", "runId": "r", "messages": [{"id": "m", "content": "hi"}]}
    reordered = {"messages": [{"content": "hi", "id": "m"}], "runId": "r", "threadId": "t"}
    other = {**one, "messages": [{"id": "m", "content": "hello"}]}
    assert request_fingerprint(one) == request_fingerprint(reordered)
    assert request_fingerprint(one) != request_fingerprint(other)
