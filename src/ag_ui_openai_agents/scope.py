"""Internal: one scope for everything a run's tools reach through the context: state and subagents.

``Runner.run_streamed`` starts its task with a copy of the caller's context, so whatever is set
around that call is what the run's tools see. :func:`use_run_scope` sets both the run's
:class:`~ag_ui_openai_agents.SharedState` (read with ``shared_state()``) and its
:class:`~ag_ui_openai_agents.subagents.SubagentSink` (filled by ``subagent_events``); pass the
scope to ``AGUITranslator.to_agui(..., scope=scope)`` so the translator streams both.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ag_ui_openai_agents.state import SharedState, use_shared_state
from ag_ui_openai_agents.subagents import SubagentSink, use_subagent_sink


@dataclass(frozen=True)
class RunScope:
    """What one run's tools reach through the context."""

    state: SharedState = field(default_factory=SharedState)
    """The run's shared state, seeded from the request's ``state``."""
    subagents: SubagentSink = field(default_factory=SubagentSink)
    """Where agents used as tools drop their stream events for the translator."""


@contextmanager
def use_run_scope(state: SharedState | Any = None) -> Iterator[RunScope]:
    """Set up a run's scope: start ``Runner.run_streamed`` inside the ``with`` block.

    ``state`` is a :class:`SharedState`, or a plain value (the request's ``state``) to seed a
    new one.
    """
    shared = state if isinstance(state, SharedState) else SharedState(state)
    scope = RunScope(state=shared)
    with use_shared_state(scope.state), use_subagent_sink(scope.subagents):
        yield scope
