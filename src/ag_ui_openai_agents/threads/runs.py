"""Internal: one run of a thread kept on the server, around the wrapper's stateless run.

:class:`ThreadRuns` takes the request, finds the thread under the application's key, and
either answers from the store (hydration: no model call) or runs the trusted request
(:mod:`.merge`) through the wrapper's stateless run while watching its events, then stores the
final messages, state and pending interrupts before letting ``RUN_FINISHED`` out. Every run
that changes a thread holds the thread's lock from its load to its save.
"""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
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
    THREAD_FULL_CODE,
    THREAD_FULL_MESSAGE,
    THREAD_KEY_CODE,
    THREAD_KEY_MESSAGE,
    THREAD_LOST_CODE,
    THREAD_LOST_MESSAGE,
    THREAD_STORE_CODE,
    THREAD_STORE_MESSAGE,
)
from ag_ui_openai_agents.safe_errors import ClientError
from ag_ui_openai_agents.threads.merge import Merged, merge
from ag_ui_openai_agents.threads.partial import partial_thread, run_to_end
from ag_ui_openai_agents.threads.record import StoredThread
from ag_ui_openai_agents.threads.recorder import Recorder
from ag_ui_openai_agents.threads.store import (
    ThreadBusyError,
    ThreadLockLostError,
    ThreadStore,
    hold_lock,
)

logger = logging.getLogger(__name__)

ThreadKey: TypeAlias = Callable[[str, Any], Union[str, Awaitable[str]]]  # noqa: UP007
"""``thread_key(thread_id, request) -> key``: whose thread this is, as the store keys it.

``thread_id`` is the client's thread id, ``request`` the HTTP request (None without one). Build
the key from the authenticated user and the thread id, so that one user cannot open another's
thread; :func:`single_user_threads` says a server has one user."""

MAX_THREAD_KEY_LENGTH = 512
"""The longest key ``thread_key`` may return (characters); a longer one refuses the request."""

Inner = Callable[[RunAgentInput, str], AsyncGenerator[BaseEvent, None]]
"""The wrapper's stateless run of a (trusted) request, with the thread's store key."""

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
        try:
            key = await self.key(run_input.thread_id, request)
        except Exception:  # re-raised: the edge logs it
            for event in _failed(run_input, THREAD_KEY_CODE, THREAD_KEY_MESSAGE):
                yield event
            raise
        try:
            document = await self.store.load(key)
            stored = StoredThread.from_json(document) if document is not None else None
        except Exception:  # re-raised: the edge logs it
            for event in _failed(run_input, THREAD_STORE_CODE, THREAD_STORE_MESSAGE):
                yield event
            raise
        merged = merge(stored, run_input)
        busy: list[BaseEvent] | None = None
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
            busy = answer
        async with aclosing(self._locked(key, run_input, inner, busy=busy)) as events:
            async for event in events:
                yield event

    async def _locked(
        self,
        key: str,
        run_input: RunAgentInput,
        inner: Inner,
        busy: list[BaseEvent] | None = None,
    ) -> AsyncGenerator[BaseEvent, None]:
        """A run that may change the thread: under its lock, from a fresh load.

        Its RUN_FINISHED is let out once the thread is saved and the lock freed, so the
        client's next request finds both. A failure of the store ends the run with RUN_ERROR
        (unless the run already ended) and is re-raised for the edge to log. With ``busy``,
        a lock held by another run is not waited for: ``busy`` is the answer then.
        """
        token = uuid.uuid4().hex
        finished: BaseEvent | None = None
        shown = _Shown()
        turn = _Turn(self.store, key, token, run_input)
        try:
            wait = 0.0 if busy is not None else None
            async with (
                hold_lock(self.store, key, token, wait=wait),
                aclosing(turn.events(inner)) as events,
            ):
                async for event in events:
                    if isinstance(event, RunFinishedEvent):
                        finished = event
                    else:
                        shown.see(event)
                        yield event
        except ThreadBusyError:
            if busy is not None:
                for event in busy:
                    yield event
                return
            for event in _failed(run_input, THREAD_BUSY_CODE, THREAD_BUSY_MESSAGE):
                yield event
            return
        except ThreadLockLostError:
            for event in shown.ending(run_input, THREAD_LOST_CODE, THREAD_LOST_MESSAGE):
                yield event
            raise
        except Exception:
            if turn.run_failed:
                raise
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

    async def events(self, inner: Inner) -> AsyncGenerator[BaseEvent, None]:
        document = await self.store.load(self.key)
        stored = StoredThread.from_json(document) if document is not None else None
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
        if _too_large(thread, document, merged, self.store):
            for event in _failed(self.run_input, THREAD_FULL_CODE, THREAD_FULL_MESSAGE):
                yield event
            return
        if merged.claimed or merged.repaired:
            thread = _claiming(thread, merged)
            await self._save(thread)
        recorder = Recorder(trusted)
        finished = False
        try:
            async with aclosing(inner(trusted, self.key)) as stream:
                while True:
                    try:
                        event = await anext(stream)
                    except StopAsyncIteration:
                        break
                    except Exception:
                        self.run_failed = True  # the run's own error: it ended the stream
                        raise
                    recorder.see(event)
                    if isinstance(event, RunFinishedEvent):
                        finished = True  # saved whole, or not at all if the store fails
                        await run_to_end(self._save(recorder.thread()))
                    yield event
        finally:
            if not finished:  # cut short: the client went away, or the run failed
                await run_to_end(self._save_cut_short(recorder, thread, merged.claimed))

    async def _save(self, thread: StoredThread) -> None:
        await self.store.save(self.key, thread.to_json(), self.token)

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


def _too_large(
    thread: StoredThread, document: str | None, merged: Merged, store: ThreadStore
) -> bool:
    """Whether the request's new messages would take the thread past its limits. A resume
    adds no message: a paused thread can always be decided."""
    if not merged.new_messages:
        return False
    settings = store.settings
    messages = merged.run_input.messages
    if len(messages) > settings.max_messages:
        return True
    new = set(merged.new_messages)
    added = sum(len(m.model_dump_json(by_alias=True)) for m in messages if m.id in new)
    return len((document or "").encode("utf-8")) + added > settings.max_bytes


def hydration(run_input: RunAgentInput, thread: StoredThread | None) -> list[BaseEvent]:
    """The answer to a request with nothing to run: the stored state, messages and outcome
    (a call being answered by a run in progress shows no interrupt)."""
    thread = thread or StoredThread()
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
        StateSnapshotEvent(snapshot=thread.state if thread.state is not None else {}),
        MessagesSnapshotEvent(messages=list(thread.messages)),
        RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id, outcome=outcome),
    ]


def _failed(run_input: RunAgentInput, code: str, message: str) -> list[BaseEvent]:
    """RUN_STARTED then the RUN_ERROR ``code``: a run refused before anything ran."""
    return [run_started(run_input), run_error(ClientError(message, code))]


def _log_ignored(key: str, merged: Merged) -> None:
    if merged.ignored:
        logger.warning(
            "Thread %r: ignored what the server does not hold: %s",
            key,
            "; ".join(f"{i.kind} {i.ident!r} ({i.reason})" for i in merged.ignored),
        )
