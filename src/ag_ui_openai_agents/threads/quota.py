"""Internal: whether a request would take its thread past the store's size limits.

Everything a run stores counts: the document as stored (messages with their media, tool results
and edited arguments, the state, the interrupts), then what the request brings. A new turn that
would pass ``max_messages`` or ``max_bytes`` is refused (``THREAD_FULL``). A resume adds no
message and is refused only for what it adds itself: an answer whose edits (or reason) would
pass ``max_bytes`` is refused (``THREAD_ANSWER_TOO_LARGE``) and the call stays open, so it can
still be decided without them, and a state that would pass it is not taken (the stored state is
kept, and logged). A run may still take its thread one
turn past the limit with what it produces (tool results, the model's answer).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from typing import Any

from ag_ui.core import ResumeEntry, ToolMessage

from ag_ui_openai_agents.approvals.decisions import EDITED_ARGS_KEY, REASON_KEY
from ag_ui_openai_agents.errors import (
    THREAD_ANSWER_CODE,
    THREAD_ANSWER_MESSAGE,
    THREAD_FULL_CODE,
    THREAD_FULL_MESSAGE,
)
from ag_ui_openai_agents.protocol import METADATA_KEY
from ag_ui_openai_agents.threads.merge import Merged
from ag_ui_openai_agents.threads.record import StoredThread, off_loop
from ag_ui_openai_agents.threads.store import ThreadSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sizes:
    """Bytes (UTF-8 JSON, as stored) of a thread and of what a request brings to it."""

    stored: int
    """The document as stored."""
    new_messages: int
    """The request's new messages."""
    state_change: int
    """The request's state less the stored one (0 when the request's state is not taken)."""
    answers: int
    """The edits and reasons of the request's answers to approvals."""


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _answer_bytes(entry: ResumeEntry) -> int:
    payload = entry.payload
    if not isinstance(payload, dict):
        return 0
    return sum(_json_bytes(payload[k]) for k in (EDITED_ARGS_KEY, REASON_KEY) if k in payload)


def kept_media_bytes(thread: StoredThread) -> int:
    """The bytes of the media the thread's tool results refer to (kept beside the thread's
    document, served from ``{path}/media/{id}``: they count toward its ``max_bytes``)."""
    total = 0
    for message in thread.messages:
        if isinstance(message, ToolMessage) and not isinstance(message.content, str):
            for part in message.content:
                metadata = getattr(part, "metadata", None)
                mark = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
                size = mark.get("bytes") if isinstance(mark, dict) and "media" in mark else None
                total += size if isinstance(size, int) else 0
    return total


def measure(document: str | None, thread: StoredThread, merged: Merged) -> Sizes:
    """The sizes of a request's additions to its thread (CPU work: run it off the loop)."""
    trusted = merged.run_input
    new = set(merged.new_messages)
    added = sum(
        len(m.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))
        for m in trusted.messages
        if m.id in new
    )
    state_change = 0
    if trusted.state is not thread.state:  # the request's state is taken
        state_change = _json_bytes(trusted.state) - _json_bytes(thread.state)
    return Sizes(
        stored=(len(document.encode("utf-8")) if document is not None else 0)
        + kept_media_bytes(thread),
        new_messages=added,
        state_change=state_change,
        answers=sum(_answer_bytes(entry) for entry in merged.resume),
    )


async def within_limits(
    merged: Merged, thread: StoredThread, document: str | None, settings: ThreadSettings, key: str
) -> tuple[Merged, tuple[str, str] | None]:
    """The request to run (a resume's state may be left out), and the (code, message) of its
    refusal, if it is refused."""
    sizes = await off_loop(measure, document, thread, merged)
    limit = settings.max_bytes
    if merged.new_messages:
        total = sizes.stored + sizes.new_messages + sizes.state_change + sizes.answers
        if len(merged.run_input.messages) > settings.max_messages or total > limit:
            return merged, (THREAD_FULL_CODE, THREAD_FULL_MESSAGE)
        return merged, None
    if sizes.state_change > 0 and sizes.stored + sizes.answers + sizes.state_change > limit:
        logger.warning(
            "Thread %r: the request's state (%d bytes more than stored) would take the thread "
            "past its max_bytes (%d); the stored state is kept",
            key,
            sizes.state_change,
            limit,
        )
        kept = merged.run_input.model_copy(update={"state": thread.state})
        merged = dataclasses.replace(merged, run_input=kept)
    if sizes.answers and sizes.stored + sizes.answers > limit:
        return merged, (THREAD_ANSWER_CODE, THREAD_ANSWER_MESSAGE)
    return merged, None
