"""Agents used as tools, streamed as AG-UI subagents: the callback and the run's event sink.

``specialist.as_tool(..., on_stream=subagent_events)`` makes the SDK run the specialist in
streaming mode and hand each of its stream events to :func:`subagent_events`. The callback runs
in the tool's task, while the outer stream is read elsewhere (``AGUITranslator.to_agui``), so
it only drops the event into the :class:`SubagentSink` of the run it belongs to (the one its
:class:`~ag_ui_openai_agents.SharedState` carries, set up by ``use_shared_state``). The sink lives
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

from agents import AgentToolStreamEvent, StreamEvent

from ag_ui_openai_agents import _sdk

# The sink and its helpers are the package's own (state, translator, capabilities, engine).
__all__ = ["subagent_events"]

logger = logging.getLogger(__name__)

_current: ContextVar[SubagentSink | None] = ContextVar(
    "ag_ui_openai_agents_subagent_sink", default=None
)
_warned_without_sink = False


class SubagentSink:
    """Internal: the nested stream events of one run, in arrival order, until the engine takes
    them; also what wakes the run's reader (nested events, or a change of the run's state).

    :meth:`notify` may be called from any thread (sync function tools run in a worker thread).
    """

    __slots__ = ("_inbox", "_loop", "_waiter", "_woken")

    def __init__(self) -> None:
        self._inbox: deque[AgentToolStreamEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._woken = False

    def __len__(self) -> int:
        return len(self._inbox)

    def put(self, payload: AgentToolStreamEvent) -> None:
        """Keep one nested event and wake whoever waits for one."""
        self._inbox.append(payload)
        self.notify()

    def notify(self) -> None:
        """Wake whoever waits on :meth:`waiter` (something else is ready to be read)."""
        self._woken = True
        loop = self._loop
        if loop is None:
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            self._woken = False
            waiter.set_result(None)

    def take(self) -> list[AgentToolStreamEvent]:
        """Every event kept so far, oldest first; the sink is empty afterwards."""
        taken = list(self._inbox)
        self._inbox.clear()
        return taken

    def waiter(self) -> asyncio.Future[None]:
        """A future that completes once the sink holds an event or :meth:`notify` was called
        (at once if either happened since the last waiter completed)."""
        self._loop = loop = asyncio.get_running_loop()
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = loop.create_future()
        if self._inbox or self._woken:
            self._woken = False
            waiter.set_result(None)
        return waiter


def subagent_events(event: AgentToolStreamEvent) -> None:
    """The ``on_stream`` callback of an agent used as a tool: stream it as an AG-UI subagent.

    Pass it as ``specialist.as_tool(tool_name=..., tool_description=..., on_stream=
    subagent_events)``. Outside a run started in a run's scope (``OpenAIAgentsAgent`` sets one
    up for every request; see :func:`ag_ui_openai_agents.use_shared_state`) it does nothing and
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
            "streamed. Start Runner.run_streamed inside use_shared_state(...)."
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


async def run_events(
    stream: AsyncIterator[StreamEvent], sink: SubagentSink
) -> AsyncGenerator[list[StreamEvent], None]:
    """The outer stream's events in batches, and an empty batch whenever ``sink`` woke the
    reader (nested events arrived, or the run's state changed) while the stream is silent.

    A task reads the outer stream ahead into a buffer, so that what the sink signals reaches the
    reader while the outer stream is silent (a tool is still running); each batch is what the
    buffer held. A failure of the outer stream is raised after the events read before it.
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
        while buffer or not reader.done():
            if not buffer:
                await sink.waiter()
            batch = buffer[:]
            buffer.clear()
            yield batch
        reader.result()
    finally:
        if not reader.done():
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
