"""Internal: what a thread store keeps for one thread, and its JSON document.

One thread is one JSON document (``"v": 2``)::

    {"v": 2,
     "messages": [...],        AG-UI messages, camelCase, with the ids the client saw
     "state": {...},           the state the client last saw (any JSON value)
     "interrupts": [...],      the approval interrupts the thread is paused on
     "client_calls": [...],    ids of the client tool calls whose results the server waits for
     "claimed": [...]}         ids of paused calls whose answer was taken but not yet stored

A store keeps the document as text; nothing but this module reads it. Documents are read and
written in a worker thread of this module's own (:func:`off_loop`), not on the event loop and
not in asyncio's default executor, which the SDK's sync function tools share: a thread of a
few megabytes takes tens of milliseconds to parse or dump.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ag_ui.core import AssistantMessage, Interrupt, Message, ToolMessage
from pydantic import TypeAdapter

LAYOUT_VERSION = 2
"""The ``"v"`` of the documents this module writes. Version 2 (0.2.0) came with store keys
scoped by the wrapper's name and the application's ``thread_key``; a version-1 document is not
read (its key is no longer asked for), and a thread holding one is a store error."""

CODEC_WORKERS = 2
"""Worker threads that read and write thread documents (shared by every store)."""

T = TypeVar("T")

_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
_INTERRUPTS: TypeAdapter[list[Interrupt]] = TypeAdapter(list[Interrupt])


class ThreadDocumentError(ValueError):
    """A stored document this version cannot read."""


@dataclass
class StoredThread:
    """One thread as the server keeps it."""

    messages: list[Message] = field(default_factory=list)
    """The conversation, as the last MESSAGES_SNAPSHOT of the thread gave it."""
    state: Any = field(default_factory=dict)
    """The state the client last saw."""
    interrupts: list[Interrupt] = field(default_factory=list)
    """The approvals the last run paused on (its RUN_FINISHED interrupts), undecided."""
    client_calls: list[str] = field(default_factory=list)
    """Client tool calls the last run handed to the client and whose results are awaited."""
    claimed: list[str] = field(default_factory=list)
    """Paused calls a request is answering right now: recorded before any of them runs, so that
    a call whose run was cut short (the server stopped) is never run a second time."""

    def to_json(self) -> str:
        """The thread as its stored JSON document."""
        document = {
            "v": LAYOUT_VERSION,
            "messages": _MESSAGES.dump_python(
                self.messages, mode="json", by_alias=True, exclude_none=True
            ),
            "state": self.state,
            "interrupts": _INTERRUPTS.dump_python(
                self.interrupts, mode="json", by_alias=True, exclude_none=True
            ),
            "client_calls": list(self.client_calls),
            "claimed": list(self.claimed),
        }
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> StoredThread:
        """Read a stored JSON document back."""
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("v") != LAYOUT_VERSION:
            version = document.get("v") if isinstance(document, dict) else None
            raise ThreadDocumentError(f"unknown thread document version {version!r}")
        return cls(
            messages=_MESSAGES.validate_python(document.get("messages") or []),
            state=document.get("state"),
            interrupts=_INTERRUPTS.validate_python(document.get("interrupts") or []),
            client_calls=[str(c) for c in document.get("client_calls") or []],
            claimed=[str(c) for c in document.get("claimed") or []],
        )


def insert_results(messages: list[Message], results: dict[str, ToolMessage]) -> list[Message]:
    """``messages`` with each result placed after the assistant message holding its call (and
    the results already there)."""
    out: list[Message] = []
    waiting: list[ToolMessage] = []
    for message in messages:
        if waiting and not isinstance(message, ToolMessage):
            out.extend(waiting)
            waiting = []
        out.append(message)
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls or []
            waiting.extend(results[call.id] for call in calls if call.id in results)
    out.extend(waiting)
    return out


_codec: list[ThreadPoolExecutor] = []
_codec_setup = threading.Lock()


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in one of the document workers."""
    if not _codec:
        with _codec_setup:
            if not _codec:
                _codec.append(ThreadPoolExecutor(CODEC_WORKERS, thread_name_prefix="agui-thread"))
    return await asyncio.get_running_loop().run_in_executor(_codec[0], work, *args)


async def read_thread(document: str | None) -> StoredThread | None:
    """The stored thread of ``document`` (None for None), parsed off the event loop."""
    return None if document is None else await off_loop(StoredThread.from_json, document)


async def write_thread(thread: StoredThread) -> str:
    """The document of ``thread``, dumped off the event loop."""
    return await off_loop(thread.to_json)
