"""Internal: one run of a thread kept on the server, around the wrapper's stateless run.

:class:`ThreadRuns` takes the request, finds the thread under the application's key, and
either answers from the store (hydration: no model call) or runs the trusted request
(:mod:`.merge`) through the wrapper's stateless run while watching its events, then stores the
final messages, state and pending interrupts before letting ``RUN_FINISHED`` out. Every run
that changes a thread holds the thread's lock from its load to its save.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, TypeAlias, Union
from urllib.parse import quote

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
)

from ag_ui_openai_agents.edges import run_error, run_started
from ag_ui_openai_agents.errors import (
    THREAD_BUSY_CODE,
    THREAD_BUSY_MESSAGE,
    THREAD_ID_CODE,
    THREAD_ID_MESSAGE,
    THREAD_KEY_CODE,
    THREAD_KEY_MESSAGE,
    THREAD_LOST_CODE,
    THREAD_LOST_MESSAGE,
    THREAD_STORE_CODE,
    THREAD_STORE_MESSAGE,
)
from ag_ui_openai_agents.errors import THREAD_FULL_CODE as THREAD_FULL_CODE
from ag_ui_openai_agents.errors import THREAD_FULL_MESSAGE as THREAD_FULL_MESSAGE
from ag_ui_openai_agents.log_lines import MAX_ID_TEXT, MAX_LINE_TEXT, clipped
from ag_ui_openai_agents.safe_errors import ClientError, told_client
from ag_ui_openai_agents.threads.merge import Merged, merge
from ag_ui_openai_agents.threads.partial import partial_thread, run_to_end
from ag_ui_openai_agents.threads.quota import within_limits
from ag_ui_openai_agents.threads.record import StoredThread, read_thread, write_thread
from ag_ui_openai_agents.threads.recorder import Recorder
from ag_ui_openai_agents.threads.store import (
    Lease,
    ThreadBusyError,
    ThreadLockLostError,
    ThreadStore,
    hold_lock,
    wait_for_lock,
)

logger = logging.getLogger(__name__)

ThreadKey: TypeAlias = Callable[[str, Any], Union[str, Awaitable[str]]]  # noqa: UP007
"""``thread_key(thread_id, request) -> key``: whose thread this is, as the store keys it.

``thread_id`` is the client's thread id, ``request`` the HTTP request (None without one). Build
the key from the authenticated user and the thread id, so that one user cannot open another's
thread; :func:`single_user_threads` says a server has one user."""

MAX_THREAD_KEY_LENGTH = 512
"""The longest key ``thread_key`` may return (characters); a longer one refuses the request."""

MAX_THREAD_ID_LENGTH = 256
"""The longest ``threadId`` a request may carry (characters): room for any id a client makes
(a UUID is 36) within a key of :data:`MAX_THREAD_KEY_LENGTH` with the user's id. A longer one
is refused with a lone ``RUN_ERROR`` (``THREAD_ID_TOO_LONG``), before the key is asked for."""

Inner = Callable[[RunAgentInput, str, Sequence[Interrupt]], AsyncGenerator[BaseEvent, None]]
"""The wrapper's stateless run of a (trusted) request, with the thread's store key and the
approval interrupts the thread is paused on (asked again as they are, exempt from the resume
limits)."""

Busy = Callable[[], Awaitable[Union[list[BaseEvent], None]]]  # noqa: UP007
"""What answers a request while another run holds the thread's lock (None: wait for it)."""

turn_input_seen: contextvars.ContextVar[Callable[[RunAgentInput], None] | None] = (
    contextvars.ContextVar("turn_input_seen", default=None)
)
"""Called, in the run's context, with the trusted request a turn runs (the thread as stored
and the request's new messages) before it runs: a detached run's joiners catch up from it."""

_single_user_warning = {"given": False}


def single_user_threads(thread_id: str, request: Any) -> str:
    """A ``thread_key`` for a server with one user (a development server, a desktop app):
    the key is the client's thread id, so whoever holds the id holds the thread.

    Naming it is the opt-in: a wrapper given it logs a warning once per process.
    """
    return thread_id


def _warn_single_user() -> None:
    if not _single_user_warning["given"]:
        _single_user_warning["given"] = True
        logger.warning(
            "Threads are keyed by the client's thread id alone (single_user_threads): anyone "
            "who knows a thread id can read and continue that conversation. Pass a thread_key "
            "that scopes threads by the authenticated user. Warned once per process."
        )


def store_key(scope: str, key: str) -> str:
    """The key a thread is stored under: the wrapper's name (escaped, so no name can run into
    a key) then the application's key."""
    return f"{quote(scope, safe='')}/{key}"


class ThreadRuns:
    """Runs of the wrapper's threads: keys, loading, merging, locking, saving."""

    def __init__(self, store: ThreadStore, thread_key: ThreadKey | None, *, scope: str) -> None:
        if thread_key is None:
            raise ValueError(
                "threads= needs thread_key=: a function (thread_id, request) -> key that scopes "
                "each thread by its user (or thread_key=single_user_threads for a server with "
                "one user)"
            )
        if not callable(thread_key):
            raise TypeError("thread_key must be a function (thread_id, request) -> str")
        if thread_key is single_user_threads:
            _warn_single_user()
        self.store = store
        self.thread_key = thread_key
        self.scope = scope
        """The wrapper's name: every key is stored within it."""

    async def key(self, thread_id: str, request: Any) -> str:
        """The store key of a thread: the application's key, within the wrapper's name."""
        key = self.thread_key(thread_id, request)
        if inspect.isawaitable(key):
            key = await key
        if not isinstance(key, str) or not key:
            raise TypeError("thread_key must return a non-empty string")
        if len(key) > MAX_THREAD_KEY_LENGTH:
            raise ValueError(f"thread_key returned a key over {MAX_THREAD_KEY_LENGTH} characters")
        return store_key(self.scope, key)

    async def run(
        self, run_input: RunAgentInput, request: Any, inner: Inner
    ) -> AsyncGenerator[BaseEvent, None]:
        """The events of one request on its thread."""
        if len(run_input.thread_id) > MAX_THREAD_ID_LENGTH:
            # Not stored, not repeated back: no RUN_STARTED (which would carry the id).
            logger.warning("Refused a thread id of %d characters", len(run_input.thread_id))
            yield run_error(ClientError(THREAD_ID_MESSAGE, THREAD_ID_CODE))
            return
        try:
            key = await self.key(run_input.thread_id, request)
        except Exception as exc:  # re-raised: the edge logs it
            for event in _failed(run_input, THREAD_KEY_CODE, THREAD_KEY_MESSAGE, exc):
                yield event
            raise
        if run_input.messages or run_input.resume:
            # Most likely a turn: one load, under the lock (while another run holds it, a
            # request that brings nothing new is answered from the store at once).
            async with aclosing(
                self._locked(key, run_input, inner, busy=lambda: self._unlocked(key, run_input))
            ) as events:
                async for event in events:
                    yield event
            return
        try:
            stored = await read_thread(await self.store.load(key))
        except Exception as exc:  # re-raised: the edge logs it
            for event in _failed(run_input, THREAD_STORE_CODE, THREAD_STORE_MESSAGE, exc):
                yield event
            raise
        merged = merge(stored, run_input)
        busy: Busy | None = None
        if merged.hydrate:
            # Nothing to run: answered from the store, without the lock. A claimed call whose
            # run was cut short is answered under the lock, if no run holds it right now
            # (otherwise the call is shown as the running request left it).
            _log_ignored(key, merged)
            answer = hydration(merged.run_input, stored)
            if not merged.repaired:
                for event in answer:
                    yield event
                return
            busy = functools.partial(_ready, answer)
        async with aclosing(self._locked(key, run_input, inner, busy=busy)) as events:
            async for event in events:
                yield event

    async def _unlocked(self, key: str, run_input: RunAgentInput) -> list[BaseEvent] | None:
        """The answer from the store, without the lock, to a request with nothing to run
        (None when it has something to run)."""
        stored = await read_thread(await self.store.load(key))
        merged = merge(stored, run_input)
        if not merged.hydrate:
            return None
        _log_ignored(key, merged)
        return hydration(merged.run_input, stored)

    async def _take(self, key: str, token: str, busy: Busy | None) -> list[BaseEvent] | None:
        """Take the thread's lock (None), or, while another run holds it, the answer ``busy``
        gives, else wait for the lock (:class:`ThreadBusyError` when it stays taken)."""
        if await self.store.acquire(key, token):
            return None
        answer = await busy() if busy is not None else None
        if answer is None:
            await wait_for_lock(self.store, key, token)
        return answer

    async def _locked(
        self,
        key: str,
        run_input: RunAgentInput,
        inner: Inner,
        busy: Busy | None = None,
    ) -> AsyncGenerator[BaseEvent, None]:
        """A run that may change the thread: under its lock, from a fresh load.

        Its RUN_FINISHED is let out once the thread is saved and the lock freed, so the
        client's next request finds both. A failure of the store ends the run with RUN_ERROR
        (unless the run already ended) and is re-raised for the edge to log. While another run
        holds the lock, ``busy`` may answer instead of waiting.
        """
        token = uuid.uuid4().hex
        finished: BaseEvent | None = None
        shown = _Shown()
        turn = _Turn(self.store, key, token, run_input)
        try:
            answer = await self._take(key, token, busy)
            if answer is not None:
                for event in answer:
                    yield event
                return
            async with (
                hold_lock(self.store, key, token, taken=True) as lease,
                aclosing(turn.events(inner, lease)) as events,
            ):
                async for event in events:
                    if isinstance(event, RunFinishedEvent):
                        finished = event
                    else:
                        shown.see(event)
                        yield event
        except ThreadBusyError:
            for event in _failed(run_input, THREAD_BUSY_CODE, THREAD_BUSY_MESSAGE):
                yield event
            return
        except ThreadLockLostError as exc:
            told_client(exc, ClientError(THREAD_LOST_MESSAGE, THREAD_LOST_CODE))
            for event in shown.ending(run_input, THREAD_LOST_CODE, THREAD_LOST_MESSAGE):
                yield event
            raise
        except Exception as exc:
            if turn.run_failed:
                raise
            told_client(exc, ClientError(THREAD_STORE_MESSAGE, THREAD_STORE_CODE))
            for event in shown.ending(run_input, THREAD_STORE_CODE, THREAD_STORE_MESSAGE):
                yield event
            raise
        if finished is not None:
            yield finished


class _Shown:
    """Whether the client was sent RUN_STARTED, and an ending."""

    def __init__(self) -> None:
        self.started = False
        self.ended = False

    def see(self, event: BaseEvent) -> None:
        self.started = self.started or isinstance(event, RunStartedEvent)
        self.ended = self.ended or isinstance(event, RunErrorEvent)

    def ending(self, run_input: RunAgentInput, code: str, message: str) -> list[BaseEvent]:
        """What still ends the run for the client: nothing if it ended already."""
        if self.ended:
            return []
        error = run_error(ClientError(message, code))
        return [error] if self.started else [run_started(run_input), error]


class _Turn:
    """One locked run: reload, merge, check limits, claim answers, run, save."""

    def __init__(self, store: ThreadStore, key: str, token: str, run_input: RunAgentInput):
        self.store, self.key, self.token, self.run_input = store, key, token, run_input
        self.run_failed = False
        """Whether the wrapper's run raised (it already told the client as it was set to)."""

    async def events(self, inner: Inner, lease: Lease) -> AsyncGenerator[BaseEvent, None]:
        document = await self.store.load(self.key)
        stored = await read_thread(document)
        merged = merge(stored, self.run_input)
        _log_ignored(self.key, merged)
        trusted = merged.run_input
        thread = stored or StoredThread()
        if merged.hydrate:  # nothing (left) to run
            view = _hydrated(thread, trusted)
            if merged.repaired:
                await self._save(view)
            for event in hydration(trusted, view):
                yield event
            return
        settings = self.store.settings
        merged, refusal = await within_limits(merged, thread, document, settings, self.key)
        if refusal is not None:
            for event in _failed(self.run_input, *refusal):
                yield event
            return
        trusted = merged.run_input
        seen = turn_input_seen.get()
        if seen is not None:
            seen(trusted)
        if merged.claimed or merged.repaired:
            thread = _claiming(thread, merged)
            await self._save(thread)
        recorder = Recorder(trusted)
        finished = False
        try:
            async with aclosing(inner(trusted, self.key, thread.interrupts)) as stream:
                while True:
                    try:
                        event = await anext(stream)
                    except StopAsyncIteration:
                        break
                    except Exception:
                        self.run_failed = True  # the run's own error: it ended the stream
                        raise
                    recorder.see(event)
                    lease.check()  # a lost lock stops the run at its next event
                    if isinstance(event, RunFinishedEvent):
                        finished = True  # saved whole, or not at all if the store fails
                        await run_to_end(self._save(recorder.thread()))
                    yield event
        finally:
            if not finished:  # cut short: the client went away, or the run failed
                await run_to_end(self._save_cut_short(recorder, thread, merged.claimed))

    async def _save(self, thread: StoredThread) -> None:
        await self.store.save(self.key, await write_thread(thread), self.token)

    async def _save_cut_short(
        self, recorder: Recorder, before: StoredThread, claimed: list[str]
    ) -> None:
        """Save a turn that ended without RUN_FINISHED as far as it got (:mod:`.partial`).
        A store failure is logged, not raised: the turn's own ending stands."""
        failed = self.run_failed or recorder.failed
        try:
            thread = partial_thread(recorder, before, claimed, failed=failed)
            if thread is not None:
                await self._save(thread)
        except Exception:
            logger.exception("Could not save the cut-short turn of thread %r", self.key)


def _hydrated(thread: StoredThread, trusted: RunAgentInput) -> StoredThread:
    """The stored thread with its repairs: interrupted calls answered, no longer paused."""
    claimed = set(thread.claimed)
    return StoredThread(
        messages=list(trusted.messages),
        state=thread.state,
        interrupts=[i for i in thread.interrupts if (i.tool_call_id or i.id) not in claimed],
        client_calls=list(thread.client_calls),
    )


def _claiming(thread: StoredThread, merged: Merged) -> StoredThread:
    """The stored thread, repaired, with the calls the request answers recorded as claimed
    before any of them runs."""
    trusted = merged.run_input
    repaired = _hydrated(thread, trusted)
    repaired.messages = trusted.messages[: len(trusted.messages) - len(merged.new_messages)]
    repaired.claimed = list(merged.claimed)
    return repaired


def hydration(run_input: RunAgentInput, thread: StoredThread | None) -> list[BaseEvent]:
    """The answer to a request with nothing to run: the stored state, messages and outcome
    (a call being answered by a run in progress shows no interrupt). ``run_input`` is the
    trusted request, whose state is the stored one, or the client's when the store holds none
    (:func:`.merge.merge`): a page's first request leaves the state the page set as it was."""
    thread = thread or StoredThread()
    state = run_input.state
    claimed = set(thread.claimed)
    interrupts: list[Interrupt] = [
        i for i in thread.interrupts if (i.tool_call_id or i.id) not in claimed
    ]
    outcome: Any = (
        RunFinishedInterruptOutcome(interrupts=interrupts)
        if interrupts
        else RunFinishedSuccessOutcome()
    )
    return [
        run_started(run_input),
        StateSnapshotEvent(snapshot=state if state is not None else {}),
        MessagesSnapshotEvent(messages=list(thread.messages)),
        RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id, outcome=outcome),
    ]


async def _ready(answer: list[BaseEvent]) -> list[BaseEvent]:
    return answer


def _failed(
    run_input: RunAgentInput, code: str, message: str, exc: BaseException | None = None
) -> list[BaseEvent]:
    """RUN_STARTED then the RUN_ERROR ``code``: a run refused before anything ran (because
    of ``exc``, re-raised after: it carries the same code to the edge)."""
    error = ClientError(message, code)
    if exc is not None:
        told_client(exc, error)
    return [run_started(run_input), run_error(error)]


_IGNORED_SHOWN = 20
"""The most ignored messages and resume entries one log line names; the rest are counted."""


def _log_ignored(key: str, merged: Merged) -> None:
    """One warning line of bounded length: the first things ignored (at most
    :data:`_IGNORED_SHOWN`, their ids cut to ``MAX_ID_TEXT`` characters, as many as fit in
    ``MAX_LINE_TEXT``), and how many more there were."""
    ignored = merged.ignored
    if ignored:
        shown: list[str] = []
        room = MAX_LINE_TEXT - 3 * MAX_ID_TEXT
        for i in ignored[:_IGNORED_SHOWN]:
            named = f"{i.kind} {clipped(str(i.ident), MAX_ID_TEXT)!r} ({i.reason})"
            room -= len(named) + 2
            if shown and room < 0:
                break
            shown.append(clipped(named, MAX_LINE_TEXT - 3 * MAX_ID_TEXT))
        more = len(ignored) - len(shown)
        logger.warning(
            "Thread %r: ignored what the server does not hold: %s%s",
            clipped(key, MAX_ID_TEXT),
            "; ".join(shown),
            f"; and {more} more" if more else "",
        )
