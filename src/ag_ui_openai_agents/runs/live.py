"""Internal: runs that belong to the server, not to the request that started them.

With a thread store whose settings keep ``detached_runs`` on, the run route hands each run to
:class:`LiveRuns`: the run is an asyncio task of the server's, which writes the run's events
(each already encoded as the JSON text of one AG-UI event) to the store's event log, and any
number of responses read them back from the log (:mod:`.log`). A client that goes away takes
its response with it, not the run: the run completes and its turn is saved in the thread.

- Each event is appended as it comes; the log batches its own I/O (the Redis log sends
  every run's waiting events in one round trip per flush, never one per event). The run's
  end is logged once its terminal event is.
- Caps (``ThreadSettings``): ``max_live_runs_per_key`` live runs per thread (store key) and
  ``max_live_runs`` per server process, past which a run is refused with RUN_ERROR
  ``LIVE_RUNS_LIMIT`` (logged like any run, so the same request sent again gets the same
  answer); ``max_run_seconds``, past which a run is stopped (RUN_ERROR ``RUN_TIME_LIMIT``) and
  its turn saved as far as it got.
- A run is stopped (:meth:`LiveRun.halt`) by the stop route, by a new turn that supersedes it
  while nobody watches it, or by its lifetime cap: the run is cancelled where it is and its
  turn saved as far as it got (:mod:`~ag_ui_openai_agents.threads.partial`); it then ends, for
  a client that said ``protocolVersion`` "1.0", with RUN_FINISHED and the ``cancelled``
  outcome, else with RUN_ERROR ``RUN_STOPPED``.

Stopping and watching are known to the process that runs the run; other replicas reach them
through :mod:`.replicas` (Redis). When the server stops, :meth:`LiveRuns.drain` lets the runs
finish within ``shutdown_grace_seconds``, then stops the rest (RUN_ERROR
``SERVER_SHUTTING_DOWN``, turns saved).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import aclosing, contextmanager

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
)

from ag_ui_openai_agents.edges import run_error, run_started
from ag_ui_openai_agents.errors import (
    LIVE_RUNS_LIMIT_CODE,
    LIVE_RUNS_LIMIT_MESSAGE,
    RUN_STOPPED_CODE,
    RUN_STOPPED_MESSAGE,
    RUN_TIME_LIMIT_CODE,
    RUN_TIME_LIMIT_MESSAGE,
    SHUTDOWN_ERROR_CODE,
    SHUTDOWN_MESSAGE,
)
from ag_ui_openai_agents.runs.ids import log_key
from ag_ui_openai_agents.runs.log import EventLog
from ag_ui_openai_agents.safe_errors import ClientError
from ag_ui_openai_agents.threads.partial import run_to_end
from ag_ui_openai_agents.threads.runs import turn_input_seen
from ag_ui_openai_agents.threads.store import ThreadSettings

__all__ = ["LEAVING_SECONDS", "LiveRun", "LiveRuns", "Stopping", "live_runs_in_process", "until"]

logger = logging.getLogger(__name__)


LEAVING_SECONDS = 1.0
"""How long a new turn waits for the watchers of a live run of its thread to leave before it
takes the run as watched (and waits for the thread's lock instead of superseding it)."""
LEAVING_POLL = 0.05
"""How often a wait for leaving watchers checks again."""


async def until(condition: Callable[[], Awaitable[bool]], seconds: float) -> bool:
    """Whether ``condition`` holds within ``seconds`` (checked every :data:`LEAVING_POLL`)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        if asyncio.get_running_loop().time() >= deadline:
            return False
        await asyncio.sleep(LEAVING_POLL)
    return True


def _watched(runs: list[LiveRun]) -> bool:
    """Whether a response reads one of ``runs`` that has not ended yet."""
    return any(run.watched and not run.done.is_set() for run in runs)


class Stopping(enum.Enum):
    """Why a live run was stopped."""

    STOP = "stop"
    """The stop route."""
    SUPERSEDED = "superseded"
    """A new turn on the thread while nobody watched the run."""
    LIFETIME = "lifetime"
    """The run reached ``max_run_seconds``."""
    SHUTDOWN = "shutdown"
    """The server is stopping and the run outlived ``shutdown_grace_seconds``."""


class _Process:
    """The live runs of this process, across every :class:`LiveRuns`."""

    count = 0


def live_runs_in_process() -> int:
    """How many detached runs are live in this process."""
    return _Process.count


def _encoded(event: BaseEvent) -> str:
    return event.model_dump_json(by_alias=True, exclude_none=True)


class LiveRun:
    """One run the server owns: its request, its log key, who watches it, how it stops."""

    def __init__(self, key: str, run_input: RunAgentInput) -> None:
        self.key = key
        """The thread's store key."""
        self.run_input = run_input
        """The request as the client sent it."""
        self.log_key = log_key(key, run_input.run_id)
        self.requested = asyncio.Event()
        """Set to stop the run (:meth:`halt`)."""
        self.reason: Stopping | None = None
        self.watchers = 0
        """Responses reading the run right now."""
        self.turn_input: RunAgentInput | None = None
        """The trusted request of the run's turn, once it is known (None for a run that
        answers from the store or is refused)."""
        self.input_known = asyncio.Event()
        """Set once :attr:`turn_input` is known, or the run ended."""
        self.done = asyncio.Event()
        """Set once the run ended and its end is logged."""

    @property
    def run_id(self) -> str:
        return self.run_input.run_id

    @property
    def watched(self) -> bool:
        return self.watchers > 0

    def halt(self, reason: Stopping) -> None:
        """Stop the run (the first reason given stands)."""
        if self.reason is None and not self.done.is_set():
            self.reason = reason
            self.requested.set()

    def ending(self) -> BaseEvent:
        """The terminal event of the stopped run."""
        if self.reason is Stopping.LIFETIME:
            return run_error(ClientError(RUN_TIME_LIMIT_MESSAGE, RUN_TIME_LIMIT_CODE))
        if self.reason is Stopping.SHUTDOWN:
            return run_error(ClientError(SHUTDOWN_MESSAGE, SHUTDOWN_ERROR_CODE))
        if self.run_input.protocol_version is None:  # no cancelled outcome before 1.0
            return run_error(ClientError(RUN_STOPPED_MESSAGE, RUN_STOPPED_CODE))
        return RunFinishedEvent(
            thread_id=self.run_input.thread_id,
            run_id=self.run_input.run_id,
            outcome=RunFinishedCancelledOutcome(),
        )

    def saw_turn_input(self, trusted: RunAgentInput) -> None:
        self.turn_input = trusted
        self.input_known.set()

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Count a response reading the run while the block runs."""
        self.watchers += 1
        try:
            yield
        finally:
            self.watchers -= 1


Events = Callable[[LiveRun], AsyncGenerator[str, None]]
"""The run's events as JSON texts, given the run (its halt and ending): a terminal event
last, always."""


class LiveRuns:
    """The live runs of one route, writing to ``log``, within ``settings``' caps."""

    def __init__(self, log: EventLog, settings: ThreadSettings) -> None:
        self.log = log
        self.settings = settings
        self._by_key: dict[str, list[LiveRun]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"LiveRuns(threads={len(self._by_key)}, log={self.log!r})"

    def on_thread(self, key: str) -> list[LiveRun]:
        """The live runs of the thread, oldest first."""
        return list(self._by_key.get(key, ()))

    def find(self, key: str, run_id: str) -> LiveRun | None:
        """The live run ``run_id`` of the thread, if this process runs it."""
        for run in self._by_key.get(key, ()):
            if run.run_id == run_id:
                return run
        return None

    def start(self, key: str, run_input: RunAgentInput, events: Events) -> LiveRun:
        """Start the run in a task of its own (or, past a cap, log its refusal)."""
        run = LiveRun(key, run_input)
        if self._full(key):
            logger.warning("Refused a run of thread %r: too many live runs", key)
            source = _refusal(run_input)
        else:
            source = events(run)
            self._by_key.setdefault(key, []).append(run)
            _Process.count += 1
        task = asyncio.get_running_loop().create_task(self._drive(run, source))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run

    def _full(self, key: str) -> bool:
        per_key = len(self._by_key.get(key, ()))
        settings = self.settings
        return per_key >= settings.max_live_runs_per_key or (
            _Process.count >= settings.max_live_runs
        )

    async def stop(self, key: str, run_id: str, reason: Stopping = Stopping.STOP) -> bool:
        """Stop the live run ``run_id`` of the thread; False when this process runs no such
        run. Returns at once: the run ends, and saves its turn, on its own."""
        run = self.find(key, run_id)
        if run is None:
            return False
        run.halt(reason)
        return True

    async def supersede(self, key: str) -> bool:
        """Stop every live run of the thread and wait for their ends (turns saved), unless
        one of them is watched: then nothing is stopped and False is returned. A watcher
        that is leaving (a client that aborted its request a moment ago, which the server
        notices a little later) is waited for, up to :data:`LEAVING_SECONDS`."""
        runs = self.on_thread(key)

        async def unwatched() -> bool:
            return not _watched(runs)

        if not await until(unwatched, LEAVING_SECONDS):
            return False
        for run in runs:
            run.halt(Stopping.SUPERSEDED)
        for run in runs:
            await run.done.wait()
        return True

    async def _drive(self, run: LiveRun, source: AsyncGenerator[str, None]) -> None:
        """Write the run's events to the log, in batches, then its end."""
        turn_input_seen.set(run.saw_turn_input)  # this task's own context
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.settings.max_run_seconds, run.halt, Stopping.LIFETIME)
        writer = _Writer(self.log, run.log_key)
        ended = False
        try:
            async with aclosing(source):
                async for text in source:
                    await writer.put(text)
            ended = True
        finally:
            timer.cancel()
            last = None  # cancelled from outside (the loop is closing): RUN_ERROR ends it
            if not ended:
                last = _encoded(run_error(ClientError(SHUTDOWN_MESSAGE, SHUTDOWN_ERROR_CODE)))
            await run_to_end(self._end(run, writer, last))

    async def _end(self, run: LiveRun, writer: _Writer, last: str | None) -> None:
        try:
            if last is not None:
                await writer.put(last)
            await writer.close()
        finally:
            runs = self._by_key.get(run.key, [])
            if run in runs:
                runs.remove(run)
                _Process.count -= 1
                if not runs:
                    del self._by_key[run.key]
            run.input_known.set()
            run.done.set()

    async def drain(self, grace: float) -> None:
        """The server is stopping: let the live runs finish for up to ``grace`` seconds, then
        stop the rest (RUN_ERROR ``SERVER_SHUTTING_DOWN``) and wait for their ends (turns
        saved, ends logged)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=grace)
        for runs in list(self._by_key.values()):
            for run in runs:
                run.halt(Stopping.SHUTDOWN)
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    async def aclose(self) -> None:
        """Stop every live run and wait for their ends (for tests and embedders)."""
        for runs in list(self._by_key.values()):
            for run in runs:
                run.halt(Stopping.STOP)
        if self._tasks:
            await asyncio.wait(set(self._tasks))


async def _refusal(run_input: RunAgentInput) -> AsyncGenerator[str, None]:
    yield _encoded(run_started(run_input))
    yield _encoded(run_error(ClientError(LIVE_RUNS_LIMIT_MESSAGE, LIVE_RUNS_LIMIT_CODE)))


class _Writer:
    """A run's appends, each as its event comes: the log batches its own I/O (the Redis log
    sends every run's waiting events in one round trip), and a failed append is logged, not
    raised (the run goes on for the clients reading it here)."""

    def __init__(self, log: EventLog, run: str) -> None:
        self.log, self.run = log, run

    async def put(self, text: str) -> None:
        try:
            await self.log.append(self.run, (text,))
        except Exception:
            logger.exception("Could not log an event of run %r", self.run)

    async def close(self) -> None:
        """Log the run's end (after its events)."""
        try:
            await self.log.end(self.run)
        except Exception:
            logger.exception("Could not log the end of run %r", self.run)
