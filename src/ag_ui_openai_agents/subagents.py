"""Agents used as tools, streamed as AG-UI subagents: the callback and the run's event sink.

``specialist.as_tool(..., on_stream=subagent_events)`` makes the SDK run the specialist in
streaming mode and hand each of its stream events to :func:`subagent_events`. The callback runs
in the tool's task, while the outer stream is read elsewhere (``AGUITranslator.to_agui``), so
it only drops the event into the :class:`SubagentSink` of the run it belongs to (the one its
:class:`~ag_ui_openai_agents.SharedState` carries, set up by ``use_shared_state``), which puts it
in the run's one bounded queue; when that queue is full, the callback returns a future the SDK
awaits, so a nested run cannot outpace a slow client without bound. The sink lives
in a :class:`~contextvars.ContextVar`: ``Runner.run_streamed`` starts its task with a copy of
the caller's context, so a sink set around that call is the one every tool of the run (and of
the agents it runs as tools, at any depth) sees. The outbound engine takes the events from the
sink and translates them (see :mod:`ag_ui_openai_agents.outbound.subagent_book`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agents import AgentToolStreamEvent

from ag_ui_openai_agents import _sdk
from ag_ui_openai_agents.run_queue import RunQueue

# The sink and its helpers are the package's own (state, translator, capabilities, engine).
__all__ = ["subagent_events"]

logger = logging.getLogger(__name__)

_current: ContextVar[SubagentSink | None] = ContextVar(
    "ag_ui_openai_agents_subagent_sink", default=None
)
_warned_without_sink = False


class SubagentSink:
    """Internal: the nested stream events of one run on their way to the engine.

    While ``to_agui``'s loop runs, the sink is attached to the run's
    :class:`~ag_ui_openai_agents.run_queue.RunQueue`: :meth:`put` offers each event to that
    queue (in order with the SDK's own events, bounded with them) and :meth:`notify` marks it;
    the loop hands each event back with :meth:`keep` when its turn comes, and the engine takes
    what was kept with :meth:`take`. Unattached (before the loop starts, while resumed tools
    run), :meth:`put` keeps the event at once.

    :meth:`put` and :meth:`notify` may be called from any thread (sync function tools run in a
    worker thread).
    """

    __slots__ = ("_inbox", "_queue")

    def __init__(self) -> None:
        self._inbox: deque[AgentToolStreamEvent] = deque()
        self._queue: RunQueue | None = None

    def __len__(self) -> int:
        return len(self._inbox)

    def attach(self, queue: RunQueue | None) -> None:
        """Send what is put from now on through ``queue`` (None: keep it here)."""
        self._queue = queue

    def put(self, payload: AgentToolStreamEvent) -> asyncio.Future[None] | None:
        """Offer one nested event to the run's queue (or keep it, unattached); a future to
        await when the queue is full (it completes once the event is in)."""
        queue = self._queue
        if queue is not None:
            return queue.offer(payload)
        self._inbox.append(payload)
        return None

    def keep(self, payload: AgentToolStreamEvent) -> None:
        """Keep one nested event for the engine (the loop, when the event's turn comes)."""
        self._inbox.append(payload)

    def notify(self) -> None:
        """Tell the run's loop that something besides nested events is ready (a state change)."""
        queue = self._queue
        if queue is not None:
            queue.mark()

    def take(self) -> list[AgentToolStreamEvent]:
        """Every event kept so far, oldest first; the sink is empty afterwards."""
        taken = list(self._inbox)
        self._inbox.clear()
        return taken


def subagent_events(event: AgentToolStreamEvent) -> asyncio.Future[None] | None:
    """The ``on_stream`` callback of an agent used as a tool: stream it as an AG-UI subagent.

    Pass it as ``specialist.as_tool(tool_name=..., tool_description=..., on_stream=
    subagent_events)``. Outside a run started in a run's scope (``OpenAIAgentsAgent`` sets one
    up for every request; see :func:`ag_ui_openai_agents.use_shared_state`) it does nothing and
    logs a warning once. It returns None, or, while the run's queue is full, a future that
    completes once the event is in it: the SDK awaits it (code calling this directly should
    await it too, to wait for the client as the SDK does).
    """
    sink = _current.get()
    if sink is not None:
        return sink.put(event)
    global _warned_without_sink
    if not _warned_without_sink:
        _warned_without_sink = True
        logger.warning(
            "subagent_events was called outside a run scope: the specialist's events are not "
            "streamed. Start Runner.run_streamed inside use_shared_state(...)."
        )
    return None


@contextmanager
def use_subagent_sink(sink: SubagentSink) -> Iterator[SubagentSink]:
    """Make ``sink`` the one :func:`subagent_events` fills inside the ``with`` block."""
    token = _current.set(sink)
    try:
        yield sink
    finally:
        _current.reset(token)


def streams_as_subagent(tool: Any) -> bool:
    """Whether ``tool`` is an agent used as a tool that streams through :func:`subagent_events`."""
    return _sdk.agent_tool_stream_callback(tool) is subagent_events
