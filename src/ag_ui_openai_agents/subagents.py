"""Agents used as tools, streamed as AG-UI subagents: the callback and the run's event sink.

``specialist.as_tool(..., on_stream=subagent_events)`` makes the SDK run the specialist in
streaming mode and hand each of its stream events to :func:`subagent_events`. The callback runs
in the tool's task, while the outer stream is read elsewhere (``AGUITranslator.to_agui``), so
it only drops the event into the :class:`SubagentSink` of the run it belongs to. The sink lives
in a :class:`~contextvars.ContextVar`: ``Runner.run_streamed`` starts its task with a copy of
the caller's context, so a sink set around that call is the one every tool of the run (and of
the agents it runs as tools, at any depth) sees. The outbound engine takes the events from the
sink and translates them (see :mod:`ag_ui_openai_agents.outbound.subagent_book`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agents import AgentToolStreamEvent
from agents.stream_events import StreamEvent

from ag_ui_openai_agents import _sdk

__all__ = [
    "SubagentSink",
    "streams_as_subagent",
    "subagent_events",
    "use_subagent_sink",
    "with_subagent_events",
]

logger = logging.getLogger(__name__)

_current: ContextVar[SubagentSink | None] = ContextVar(
    "ag_ui_openai_agents_subagent_sink", default=None
)
_warned_without_sink = False


class SubagentSink:
    """The nested stream events of one run, in arrival order, until the engine takes them."""

    __slots__ = ("_inbox", "_waiter")

    def __init__(self) -> None:
        self._inbox: deque[AgentToolStreamEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self._inbox)

    def put(self, payload: AgentToolStreamEvent) -> None:
        """Keep one nested event and wake whoever waits for one."""
        self._inbox.append(payload)
        self.notify()

    def notify(self) -> None:
        """Wake whoever waits on :meth:`waiter` (something else is ready to be read)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def take(self) -> list[AgentToolStreamEvent]:
        """Every event kept so far, oldest first; the sink is empty afterwards."""
        taken = list(self._inbox)
        self._inbox.clear()
        return taken

    def waiter(self) -> asyncio.Future[None]:
        """A future that completes once the sink holds an event (at once if it does) or
        :meth:`notify` is called."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
        if self._inbox:
            waiter.set_result(None)
        return waiter


def subagent_events(event: AgentToolStreamEvent) -> None:
    """The ``on_stream`` callback of an agent used as a tool: stream it as an AG-UI subagent.

    Pass it as ``specialist.as_tool(tool_name=..., tool_description=..., on_stream=
    subagent_events)``. Outside a run started in a sink's scope (``OpenAIAgentsAgent`` sets one
    up for every request; see :func:`ag_ui_openai_agents.use_run_scope`) it does nothing and
    logs a warning once.
    """
    sink = _current.get()
    if sink is not None:
        sink.put(event)
        return
    global _warned_without_sink
    if not _warned_without_sink:
        _warned_without_sink = True
        logger.warning(
            "subagent_events was called outside a run scope: the specialist's events are not "
            "streamed. Start Runner.run_streamed inside use_run_scope(...)."
        )


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


async def with_subagent_events(
    stream: AsyncIterator[StreamEvent], sink: SubagentSink
) -> AsyncGenerator[list[StreamEvent], None]:
    """The outer stream's events in batches, and an empty batch whenever ``sink`` holds nested
    events while the outer stream is silent.

    A task reads the outer stream ahead into a buffer, so that nested events reach the reader
    while the outer stream is silent (a specialist runs inside a tool call); each batch is what
    the buffer held. A failure of the outer stream is raised after the events read before it.
    Closing this generator cancels the reading task (cancel the SDK run first).
    """
    buffer: list[StreamEvent] = []

    async def read_ahead() -> None:
        try:
            async for event in stream:
                buffer.append(event)
                sink.notify()
        finally:
            sink.notify()

    reader = asyncio.ensure_future(read_ahead())
    try:
        while True:
            if buffer:
                batch = buffer[:]
                buffer.clear()
                yield batch
            elif len(sink):
                yield []
            elif reader.done():
                break
            else:
                await sink.waiter()
        reader.result()
    finally:
        if not reader.done():
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
