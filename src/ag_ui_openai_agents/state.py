"""Shared state: the client's ``RunAgentInput.state``, readable and changeable during a run.

A run owns one :class:`SharedState`, which is also the run's scope: it carries the sink that
agents used as tools stream their subagent events into (``subagent_events``). Tools and dynamic
instructions reach the state through :func:`shared_state`; every change is recorded and wakes
whoever reads the run (``AGUITranslator.to_agui(..., shared_state=state)``), which streams it as
a ``STATE_SNAPSHOT`` at once, even while the tool that made it is still working. The object lives
in a :class:`~contextvars.ContextVar`: ``Runner.run_streamed`` starts its task with a copy of the
caller's context, so a state set with :func:`use_shared_state` around that call is the one its
tools see.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json, to_json

from ag_ui_openai_agents.errors import STATE_TOO_LARGE_CODE
from ag_ui_openai_agents.subagents import SubagentSink, use_subagent_sink

__all__ = [
    "DEFAULT_MAX_STATE_BYTES",
    "STATE_TOO_LARGE_CODE",
    "PredictState",
    "SharedState",
    "StateTooLargeError",
    "shared_state",
    "use_shared_state",
]

DEFAULT_MAX_STATE_BYTES = 1024 * 1024
"""The default cap on a run's shared state, as JSON: 1 MiB (``StateUpdates(max_bytes=...)``).

Each change of the state is written as JSON and copied on the event loop, so its size bounds
how long one change holds the loop (docs/deployment.md gives the figures)."""


class StateTooLargeError(ValueError):
    """The shared state is larger, as JSON, than ``StateUpdates(max_bytes=...)`` allows.

    Raised for a request's state before anything runs, and for a change that makes the state
    larger during the run (the run stops there). Its message is safe for the client (it names
    the size and the limit, nothing of the state); the run ends with ``RUN_ERROR`` whose code is
    :data:`~ag_ui_openai_agents.errors.STATE_TOO_LARGE_CODE`.
    """

    code = STATE_TOO_LARGE_CODE

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        """The state's size as JSON, in bytes."""
        self.limit = limit
        """The cap it went over."""
        super().__init__(
            f"The shared state is {size} bytes as JSON, over this agent's limit of {limit} "
            "bytes: send a smaller state."
        )


_current: ContextVar[SharedState | None] = ContextVar(
    "ag_ui_openai_agents_shared_state", default=None
)


class SharedState:
    """The state of one run, seeded from the request and changed by tools.

    The request's own object is deep-copied, so it is never mutated.
    """

    __slots__ = ("_dirty", "_value", "_version", "subagents")

    def __init__(self, initial: Any = None) -> None:
        self._value: Any = copy.deepcopy(initial) if initial is not None else {}
        self._version = 0
        self._dirty = False
        self.subagents = SubagentSink()
        """Internal: where the run's agents used as tools drop their stream events; it also
        wakes the run's reader on every state change."""

    @property
    def value(self) -> Any:
        """The current state: read it here, change it with :meth:`update` or :meth:`set`."""
        return self._value

    @property
    def version(self) -> int:
        """How many changes have been made; grows by one on each :meth:`update` or :meth:`set`."""
        return self._version

    def update(self, **changes: Any) -> None:
        """Merge top-level keys into a dict state (a non-dict state is replaced by a dict)."""
        base = self._value if isinstance(self._value, dict) else {}
        self._value = {**base, **changes}
        self._changed()

    def set(self, value: Any) -> None:
        """Replace the whole state."""
        self._value = value
        self._changed()

    @classmethod
    def from_request(cls, state: Any, *, max_bytes: int | None = None) -> SharedState:
        """The state of a request, whose ``state`` is JSON data (as ``RunAgentInput`` holds
        it): copied by writing and reading it as JSON once, several times cheaper than a deep
        copy, and refused over ``max_bytes`` (None: no cap).

        Raises:
            StateTooLargeError: the state is larger than ``max_bytes`` as JSON.
        """
        shared = cls()
        if state is None:
            return shared
        text = to_json(state, inf_nan_mode="null")
        if max_bytes is not None and len(text) > max_bytes:
            raise StateTooLargeError(len(text), max_bytes)
        shared._value = from_json(text)
        return shared

    def take_change(self) -> bool:
        """Report whether the state changed since the last call, and clear that mark."""
        dirty, self._dirty = self._dirty, False
        return dirty

    def _changed(self) -> None:
        self._version += 1
        self._dirty = True
        self.subagents.notify()

    def __repr__(self) -> str:
        return f"SharedState({self._value!r})"


def shared_state() -> SharedState:
    """Return the state of the run this code executes in.

    Raises:
        LookupError: outside a run set up with :func:`use_shared_state` (``OpenAIAgentsAgent``
            sets one up for every request).
    """
    state = _current.get()
    if state is None:
        raise LookupError(
            "No shared state in this context: start the run inside use_shared_state(...) "
            "or run it through OpenAIAgentsAgent."
        )
    return state


@contextmanager
def use_shared_state(state: SharedState) -> Iterator[SharedState]:
    """Set up a run's scope inside the ``with`` block: ``state`` is what :func:`shared_state`
    returns, and its sink is what ``subagent_events`` fills.

    Start ``Runner.run_streamed`` inside the block (the run's task copies the context there) and
    pass the same object to ``to_agui(..., shared_state=state)``, which streams both.
    """
    token = _current.set(state)
    try:
        with use_subagent_sink(state.subagents):
            yield state
    finally:
        _current.reset(token)


@dataclass(frozen=True)
class PredictState:
    """Declare that an argument of a tool streams into a key of the shared state.

    Before each call of ``tool`` starts, the run sends CopilotKit's ``PredictState`` CUSTOM
    event (value ``[{"state_key", "tool", "tool_argument"}]``), so the client writes the
    argument into ``state[state_key]`` while the model is still writing it. When the call's
    arguments are complete, the run's :class:`SharedState` (when there is one) takes the value
    too, and the change streams before ``TOOL_CALL_END``: the client's predicted value is then
    the state the server holds. ``tool_argument=None`` predicts the whole arguments object.

    Pass a list of them as ``state=StateUpdates(predictive=[...])`` to ``AGUITranslator.to_agui`` or
    ``OpenAIAgentsAgent``. The tool may be a backend tool or a
    client (frontend) tool.
    """

    state_key: str
    tool: str
    tool_argument: str | None = None

    def payload(self) -> dict[str, str]:
        """The entry of the ``PredictState`` event's value (``tool_argument`` left out when
        None, which CopilotKit reads as the whole arguments object)."""
        entry = {"state_key": self.state_key, "tool": self.tool}
        if self.tool_argument is not None:
            entry["tool_argument"] = self.tool_argument
        return entry
