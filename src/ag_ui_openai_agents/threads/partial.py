"""Internal: the thread to save for a turn cut short, as far as it got.

A turn is cut short when it ends without RUN_FINISHED: its client went away (the response
was closed mid-run), the server stopped it, or the run failed. :func:`partial_thread` turns
what the run's :class:`~.recorder.Recorder` saw into the thread to save, so that nothing the
client was shown and nothing a tool did is lost, and the next model request stays valid:

* the history, then the request's new messages (the user's message), then what the run
  streamed: assistant text so far, tool calls, and the results of tools that ran (a result of
  a call made before the run, an approved one, goes after that call);
* a call of the run left without a result (its tool was cut short, or never started, or it
  waited for an approval or for the client) is closed with a tool message
  :data:`~.merge.INTERRUPTED_RESULT`: the tool may or may not have run, and it is not run again;
* reasoning the run streamed is dropped (see :class:`~.recorder.StreamedTurn`); once the run
  sent its MESSAGES_SNAPSHOT, that snapshot is the run's messages, reasoning included;
* the state is the last state the client was sent.

A run that failed having streamed nothing of its own keeps nothing new (the request can be
sent again as it was), and one that ran nothing (approvals refused, over the resume limits)
leaves its claimed calls paused. Any request path that stops a turn (the client gone, a stop,
the server shutting down) saves the same thread through this one function.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from ag_ui.core import Message, ToolMessage

from ag_ui_openai_agents.approvals.history import HistoryCall, open_calls
from ag_ui_openai_agents.protocol import result_message_id
from ag_ui_openai_agents.threads.merge import INTERRUPTED_RESULT
from ag_ui_openai_agents.threads.record import StoredThread, insert_results
from ag_ui_openai_agents.threads.recorder import Recorder

T = TypeVar("T")


def partial_thread(
    recorder: Recorder, before: StoredThread, claimed: Sequence[str], *, failed: bool
) -> StoredThread | None:
    """The thread to save for a run that ended without RUN_FINISHED (None: keep the stored
    one as it is).

    ``recorder`` saw the run's events, ``before`` is the thread as stored when the run began
    (its claims recorded), ``claimed`` the paused calls the request answered, and ``failed``
    whether the run failed (rather than being stopped). A claimed call without a result stays
    claimed: it may have run, and is answered INTERRUPTED on the thread's next load.
    """
    answered = {c: recorder.results[c] for c in claimed if c in recorder.results}
    kept = [] if recorder.refused else [c for c in claimed if c not in answered]
    got_somewhere = recorder.streamed.anything or bool(recorder.results)
    if recorder.refused or (failed and not got_somewhere):
        if not claimed:
            return None
        messages = insert_results(list(before.messages), answered)
        state = before.state
    else:
        messages = _as_far_as_it_got(recorder)
        state = recorder.state
    waiting = {call.call_id for call in open_calls(messages)}
    return StoredThread(
        messages=messages,
        state=state,
        interrupts=[i for i in before.interrupts if (i.tool_call_id or i.id) not in answered],
        client_calls=[c for c in before.client_calls if c in waiting],
        claimed=kept,
    )


def _as_far_as_it_got(recorder: Recorder) -> list[Message]:
    """The request's messages, then the run's, its own calls left open closed INTERRUPTED."""
    history = list(recorder.run_input.messages)
    if recorder.messages is not None:
        messages = list(recorder.messages)
    else:
        open_before = {call.call_id for call in open_calls(history)}
        earlier = {c: r for c, r in recorder.results.items() if c in open_before}
        messages = [*insert_results(history, earlier), *recorder.streamed.messages()]
    known = {message.id for message in history}
    dangling = [c for c in open_calls(messages) if messages[c.message_index].id not in known]
    return _closed(messages, dangling)


def _closed(messages: list[Message], dangling: list[HistoryCall]) -> list[Message]:
    """``messages`` with an INTERRUPTED result for each dangling call, after the assistant
    message holding it, the results there already and the messages of its subagents."""
    if not dangling:
        return messages
    taken = {message.id for message in messages}
    results: dict[int, list[ToolMessage]] = {}
    for call in dangling:
        result = ToolMessage(
            id=result_message_id(call.call_id, taken),
            tool_call_id=call.call_id,
            content=INTERRUPTED_RESULT,
        )
        results.setdefault(call.message_index, []).append(result)
    out: list[Message] = []
    waiting: list[ToolMessage] = []
    for index, message in enumerate(messages):
        follows = isinstance(message, ToolMessage) or message.subagent_run_id is not None
        if waiting and not follows:
            out.extend(waiting)
            waiting = []
        out.append(message)
        waiting.extend(results.get(index, []))
    out.extend(waiting)
    return out


async def run_to_end(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` to its end even when the awaiting task is cancelled meanwhile (a
    client that goes away cancels the run that saves its turn); the cancellation is raised
    once it has ended."""
    task = asyncio.ensure_future(awaitable)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
