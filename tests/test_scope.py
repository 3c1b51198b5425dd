"""``use_run_scope``: one scope for the run's shared state and its subagent sink."""

from __future__ import annotations

import pytest

from ag_ui_openai_agents import SharedState, shared_state
from ag_ui_openai_agents.scope import use_run_scope
from ag_ui_openai_agents.subagents import _current


def test_scope_sets_state_and_sink_inside_and_resets_them_after() -> None:
    with use_run_scope({"count": 1}) as scope:
        assert shared_state() is scope.state
        assert shared_state().value == {"count": 1}
        assert _current.get() is scope.subagents
    assert _current.get() is None
    with pytest.raises(LookupError):
        shared_state()


def test_scope_keeps_a_given_shared_state_and_never_changes_the_request_state() -> None:
    state = SharedState({"a": 1})
    with use_run_scope(state) as scope:
        assert scope.state is state
    request_state = {"items": []}
    with use_run_scope(request_state) as scope:
        scope.state.update(items=["x"])
    assert request_state == {"items": []}
