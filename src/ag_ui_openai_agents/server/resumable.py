"""Internal: the run route when runs belong to the server (``ThreadSettings.detached_runs``).

Every event of a run goes to the thread store's event log and is sent with the SSE id
``<runId>.<seq>`` (:mod:`~ag_ui_openai_agents.runs.ids`). A request is answered by what its
(store key, run id) claim says:

- ``NEW``: a new run starts (:class:`~ag_ui_openai_agents.runs.live.LiveRuns`) and the
  response reads it from the log. While another run of the thread is live, a request with
  nothing new *joins* it (:meth:`Resumable.join`), and a new turn supersedes it when nobody
  watches it (else it waits for the thread's lock as before, or gets THREAD_BUSY).
- ``SAME`` (the same request again): the run's events from its start; once they are gone,
  the thread as stored (or a join of the thread's live run). Never a second run.
- ``CONFLICT``: RUN_ERROR ``RUN_ID_REUSED``.

A request with ``Last-Event-ID`` (or the ``x-last-event-id`` header) gets exactly the events
of the run it names after that id, or RUN_ERROR ``EVENT_LOG_EXPIRED`` when the log no longer
holds them. See docs/runs.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import nullcontext
from typing import Any

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    StateSnapshotEvent,
)
from fastapi import Request, Response

from ag_ui_openai_agents.agent import OpenAIAgentsAgent
from ag_ui_openai_agents.edges import run_error, run_started
from ag_ui_openai_agents.errors import (
    EVENT_LOG_EXPIRED_CODE,
    EVENT_LOG_EXPIRED_MESSAGE,
    RUN_ID_REUSED_CODE,
    RUN_ID_REUSED_MESSAGE,
)
from ag_ui_openai_agents.runs.ids import event_id, log_key, parse_event_id, request_fingerprint
from ag_ui_openai_agents.runs.live import LiveRun, LiveRuns, Stopping
from ag_ui_openai_agents.runs.log import Claim, EventLog, LogExpiredError
from ag_ui_openai_agents.runs.replicas import RemoteWatch, board_for
from ag_ui_openai_agents.safe_errors import ClientError
from ag_ui_openai_agents.server.shutdown import server_shutdown
from ag_ui_openai_agents.server.streaming import (
    KEEPALIVE_COMMENT,
    SSE_CONTENT_TYPE,
    event_json,
    event_texts,
    make_encoder,
    sse_response,
    sse_text_response,
)
from ag_ui_openai_agents.threads.merge import merge
from ag_ui_openai_agents.threads.record import read_thread
from ag_ui_openai_agents.threads.runs import MAX_THREAD_ID_LENGTH, ThreadRuns, hydration

__all__ = ["LAST_EVENT_ID_HEADERS", "MAX_STOP_BODY_BYTES", "Resumable", "resumable_for"]

logger = logging.getLogger(__name__)

LAST_EVENT_ID_HEADERS = ("last-event-id", "x-last-event-id")
"""Where a reattaching client puts the id of the last event it got: the SSE standard's
header, or an ``x-`` header (CopilotKit's runtime forwards only ``authorization`` and ``x-*``)."""
MAX_STOP_BODY_BYTES = 4096
"""A stop request's body is two ids: a longer one is ignored (still 202)."""
_RUN_STARTED_PREFIX = '{"type":"RUN_STARTED"'


def resumable_for(
    agent: OpenAIAgentsAgent, *, keepalive_seconds: float | None, label: str
) -> Resumable | None:
    """The detached runs of ``agent``'s route, or None when its runs stay attached (no
    store, ``detached_runs=False``, or a store without an event log)."""
    threads = agent.threads
    if threads is None or not threads.store.settings.detached_runs:
        return None
    event_log = getattr(threads.store, "event_log", None)
    if not callable(event_log):
        return None
    return Resumable(agent, threads, event_log(), keepalive_seconds=keepalive_seconds, label=label)


def _sse(seq_id: str | None, text: str) -> str:
    return f"id: {seq_id}\ndata: {text}\n\n" if seq_id is not None else f"data: {text}\n\n"


def _last_event_id(request: Request) -> tuple[str, int] | None:
    for name in LAST_EVENT_ID_HEADERS:
        value = request.headers.get(name)
        if value:
            return parse_event_id(value)
    return None


async def _listed(events: Sequence[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for event in events:
        yield event


class Resumable:
    """The run and stop routes of one agent whose runs belong to the server."""

    def __init__(
        self,
        agent: OpenAIAgentsAgent,
        threads: ThreadRuns,
        log: EventLog,
        *,
        keepalive_seconds: float | None,
        label: str,
    ) -> None:
        self.agent, self.threads, self.log = agent, threads, log
        self.live = LiveRuns(log, threads.store.settings)
        self.board = board_for(log, self.live)
        """The live runs of every replica, on a shared log (None: one process)."""
        self.keepalive_seconds = keepalive_seconds
        self.label = label

    async def run(self, request: Request, run_input: RunAgentInput) -> Response | None:
        """The response to a run request, or None when the attached route answers it (a
        request the thread refuses before any run, or one that asks for another encoding)."""
        accept = request.headers.get("accept", "")
        if make_encoder(accept).get_content_type() != SSE_CONTENT_TYPE:
            return None
        if len(run_input.thread_id) > MAX_THREAD_ID_LENGTH:
            return None
        try:
            key = await self.threads.key(run_input.thread_id, request)
        except Exception:
            return None  # the attached route asks again, and refuses it with its code
        server_shutdown.watch_signals_once()
        cursor = _last_event_id(request)
        if cursor is not None:
            return self._stream(self._resumed(key, *cursor))
        body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
        own = log_key(key, run_input.run_id)
        claim = await self.log.claim(own, request_fingerprint(body))
        if claim is Claim.CONFLICT:
            error = run_error(ClientError(RUN_ID_REUSED_MESSAGE, RUN_ID_REUSED_CODE))
            return self._refused(request, run_input, [run_started(run_input), error])
        if claim is Claim.SAME:
            return await self._again(request, key, run_input, own)
        joined = await self._join_or_supersede(key, run_input)
        if joined is not None:
            await self.log.end(own)  # the same request again finds no run of its own
            return joined
        server_shutdown.drain(self, self._drain)
        run = self.live.start(key, run_input, lambda live: self._events(request, live))
        await self._publish(run)
        return self._stream(self._read(own, run_input.run_id, 0, watch=run))

    async def stop(self, request: Request) -> Response:
        """``POST path/stop`` ``{"threadId", "runId"}``: stop the run; 202 whatever happened,
        so a stop under another key learns nothing and does nothing."""
        try:
            raw = await request.body()
            ids: Any = json.loads(raw) if len(raw) <= MAX_STOP_BODY_BYTES else {}
            thread_id, run_id = ids["threadId"], ids["runId"]
            ok = isinstance(thread_id, str) and isinstance(run_id, str)
            if ok and len(thread_id) <= MAX_THREAD_ID_LENGTH:
                key = await self.threads.key(thread_id, request)
                stopped = await self.live.stop(key, run_id, Stopping.STOP)
                if not stopped and self.board is not None:  # another replica may run it
                    await self.board.stop(key, run_id)
        except Exception:
            logger.debug("A stop request stopped nothing", exc_info=True)
        return Response(status_code=202)

    def _events(self, request: Request, run: LiveRun) -> AsyncGenerator[str, None]:
        events = self.agent.run_streamed(run.run_input, request=request)
        return event_texts(
            events,
            run.run_input,
            expose_error_details=self.agent.expose_error_details,
            label=self.label,
            halt=run,
        )

    def _stream(self, chunks: AsyncGenerator[str, None]) -> Response:
        return sse_text_response(chunks)

    def _refused(
        self, request: Request, run_input: RunAgentInput, events: Sequence[BaseEvent]
    ) -> Response:
        return sse_response(
            request,
            run_input,
            _listed(events),
            keepalive_seconds=None,
            expose_error_details=False,
            label=self.label,
        )

    async def _read(
        self,
        run: str,
        run_id: str,
        after: int,
        *,
        watch: LiveRun | RemoteWatch | None,
        head: Sequence[BaseEvent] = (),
    ) -> AsyncGenerator[str, None]:
        """The logged events of ``run`` after ``after``, each with its id, then its live
        tail; ``head`` first (without ids). With ``head`` (a join), the run's own RUN_STARTED
        is left out. RUN_ERROR ``EVENT_LOG_EXPIRED`` when the log no longer holds them. A
        ``: keepalive`` comment after each ``keepalive_seconds`` the log was silent."""
        with watch.watching() if watch is not None else nullcontext():
            for event in head:
                yield _sse(None, event_json(event))
            try:
                async for seq, text in self.log.read(run, after, idle=self.keepalive_seconds):
                    if text is None:
                        yield KEEPALIVE_COMMENT
                    elif not (head and text.startswith(_RUN_STARTED_PREFIX)):
                        yield _sse(event_id(run_id, seq), text)
            except LogExpiredError:
                expired = run_error(ClientError(EVENT_LOG_EXPIRED_MESSAGE, EVENT_LOG_EXPIRED_CODE))
                yield _sse(None, event_json(expired))

    def _resumed(self, key: str, run_id: str, after: int) -> AsyncGenerator[str, None]:
        """A reattach with ``Last-Event-ID``: the events of ``run_id`` after ``after``."""
        return self._read(log_key(key, run_id), run_id, after, watch=self._watch(key, run_id))

    def _watch(self, key: str, run_id: str) -> LiveRun | RemoteWatch | None:
        """What a response reading ``run_id`` counts itself with: the run when it is live
        here, else (replicas) the live-run board's count."""
        live = self.live.find(key, run_id)
        if live is not None or self.board is None:
            return live
        return self.board.watch(key, run_id)

    async def _drain(self) -> None:
        """The server is stopping: its live runs finish within the grace period, or stop."""
        await self.live.drain(self.threads.store.settings.shutdown_grace_seconds)

    async def _publish(self, run: LiveRun) -> None:
        """Tell the other replicas of the run (a failure is logged; the run goes on)."""
        if self.board is not None:
            try:
                await self.board.started(run)
            except Exception:
                logger.warning("Could not publish the live run %r", run.run_id, exc_info=True)

    async def _again(
        self, request: Request, key: str, run_input: RunAgentInput, own: str
    ) -> Response:
        """The same request again, without ``Last-Event-ID``: its run from the start, or,
        once that is gone, a join of the thread's live run or the thread as stored."""
        meta = await self.log.meta(own)
        local = self.live.find(key, run_input.run_id)
        whole = meta is not None and meta.first == 1 and (meta.last >= 1 or not meta.ended)
        if local is not None or whole:
            watch = self._watch(key, run_input.run_id)
            return self._stream(self._read(own, run_input.run_id, 0, watch=watch))
        joined = await self._join(key, run_input)
        if joined is None and not self.live.on_thread(key):
            joined = await self._join_elsewhere(key, run_input)
        if joined is not None:
            return joined
        return self._refused(request, run_input, await self._stored(key, run_input))

    async def _stored(self, key: str, run_input: RunAgentInput) -> list[BaseEvent]:
        """The thread as stored, as the answer to ``run_input`` (nothing runs)."""
        stored = await read_thread(await self.threads.store.load(key))
        asked = run_input.model_copy(update={"messages": [], "resume": None})
        return hydration(merge(stored, asked).run_input, stored)

    async def _join_or_supersede(self, key: str, run_input: RunAgentInput) -> Response | None:
        """While a run of the thread is live: a join for a request with nothing new; for a
        new turn, the live runs stopped first when nobody watches them (None: go on)."""
        if not self.live.on_thread(key):
            return await self._join_or_supersede_elsewhere(key, run_input)
        if await self._nothing_new(key, run_input):
            return await self._join(key, run_input)
        await self.live.supersede(key)
        return None

    async def _join_or_supersede_elsewhere(
        self, key: str, run_input: RunAgentInput
    ) -> Response | None:
        """The same, for a run of the thread live on another replica (through the board)."""
        if self.board is None or not await self.board.on_thread(key):
            return None
        if await self._nothing_new(key, run_input):
            return await self._join_elsewhere(key, run_input)
        await self.board.supersede(key)
        return None

    async def _join_elsewhere(self, key: str, run_input: RunAgentInput) -> Response | None:
        """:meth:`_join` of a run live on another replica: its request and its turn's from
        the board, its events from the shared log."""
        if self.board is None:
            return None
        for listed in reversed(await self.board.on_thread(key)):
            if listed.run_id == run_input.run_id:
                continue
            head = _join_head(listed.run_input, listed.turn_input)
            watch = self.board.watch(key, listed.run_id)
            chunks = self._read(
                log_key(key, listed.run_id), listed.run_id, 0, watch=watch, head=head
            )
            return self._stream(chunks)
        return None

    async def _nothing_new(self, key: str, run_input: RunAgentInput) -> bool:
        if not run_input.messages and not run_input.resume:
            return True
        stored = await read_thread(await self.threads.store.load(key))
        return merge(stored, run_input).hydrate

    async def _join(self, key: str, run_input: RunAgentInput) -> Response | None:
        """The thread's live turn as one run for this request: RUN_STARTED with the live
        run's id, the state and messages its turn started from, then its events from its
        start (without its RUN_STARTED) and its tail (None: no live turn to join)."""
        for live in reversed(self.live.on_thread(key)):
            if live.run_id == run_input.run_id:
                continue
            await _first(live.input_known.wait(), live.done.wait())
            trusted = live.turn_input
            if trusted is None or live.done.is_set():
                continue
            head = _join_head(live.run_input, trusted)
            chunks = self._read(live.log_key, live.run_id, 0, watch=live, head=head)
            return self._stream(chunks)
        return None


def _join_head(run_input: RunAgentInput, trusted: RunAgentInput) -> list[BaseEvent]:
    """What a joined stream starts with: RUN_STARTED of the live run, then the state and
    messages its turn started from."""
    return [
        run_started(run_input),
        StateSnapshotEvent(snapshot=trusted.state if trusted.state is not None else {}),
        MessagesSnapshotEvent(messages=list(trusted.messages)),
    ]


async def _first(*waits: Any) -> None:
    """Wait until the first of ``waits`` (coroutines) returns; cancel the others."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
