"""Internal: large media of tool results travel by reference, served from the thread store.

An image or file a tool returns inline (a data source) is shown to a 1.0 client as a content
part. Above the store's ``ThreadSettings.inline_media_bytes`` (:data:`DEFAULT_INLINE_MEDIA_BYTES`,
256 KiB of base64 text) the part does not carry its bytes: they are kept in the thread store,
and the part gets a URL source ``{path}/media/{id}`` that ``add_openai_agents_fastapi_endpoint``
serves behind the route's dependencies and the thread's key. Why: ``@ag-ui/client`` 1.0.0
rejects an SSE event over 10 MB, every MESSAGES_SNAPSHOT repeats every image of the
conversation, and a thread holds 4 MB by default; a chart or thumbnail (tens of KiB) stays
inline and shows without a second request.

Each medium is one store document under ``#media/<id>`` (no thread key starts with ``#``: the
wrapper's name is escaped), with the thread's store key and id, so that only whoever may open the
thread may read it. Its bytes count toward the thread's ``max_bytes`` with the thread's own
document. The part's ``metadata.openai`` names it (``{"media": id, "bytes": n}``), and the next
turn gives the model the bytes again, exactly as it first saw them.

A medium that cannot be served (no thread store, the thread's media would pass its limit, the
store failed) becomes a :class:`TextPart` saying so, in that result only; the rest of the run
streams on.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import re
import uuid
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    DataSource,
    DocumentPart,
    ImagePart,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    TextPart,
    ToolCallResultEvent,
    ToolMessage,
    UrlSource,
)
from pydantic import TypeAdapter

from ag_ui_openai_agents.inbound.content import parse_data_url
from ag_ui_openai_agents.protocol import METADATA_KEY
from ag_ui_openai_agents.threads.runs import ThreadRuns
from ag_ui_openai_agents.threads.store import DEFAULT_INLINE_MEDIA_BYTES

__all__ = [
    "DEFAULT_INLINE_MEDIA_BYTES",
    "MEDIA_NOT_SERVED",
    "MediaShelf",
    "ServedMedia",
    "load_media",
]

logger = logging.getLogger(__name__)


MEDIA_NOT_SERVED = "MEDIA_NOT_SERVED"
"""``metadata.openai.error`` of the text part that stands for a medium that could not be served
(a mark in a tool result, not a RUN_ERROR code: the run goes on)."""

_PREFIX = "#media/"
_ID = re.compile(r"[0-9a-f]{32}")
_SOURCE: TypeAdapter[DataSource | UrlSource] = TypeAdapter(DataSource | UrlSource)
_LAYOUT = 1

MediaPart = ImagePart | DocumentPart


@dataclass(frozen=True)
class ServedMedia:
    """A medium as the media route sends it."""

    body: bytes
    mime_type: str
    filename: str | None


def media_key(media_id: str) -> str:
    """The store key of a medium: never a thread's (a thread's starts with its escaped scope)."""
    return f"{_PREFIX}{media_id}"


def _inline(part: Any) -> str | None:
    """The inline data of a media part (a data source, or a data URL), else None."""
    if not isinstance(part, ImagePart | DocumentPart):
        return None
    source = part.source
    if isinstance(source, DataSource):
        return source.value
    if isinstance(source, UrlSource) and source.value.lstrip()[:5].lower() == "data:":
        return source.value
    return None


def _openai(part: Any) -> dict[str, Any]:
    metadata = part.metadata if isinstance(part.metadata, Mapping) else {}
    mark = metadata.get(METADATA_KEY)
    return dict(mark) if isinstance(mark, Mapping) else {}


def _reference(part: Any) -> tuple[str, int] | None:
    """``(id, bytes)`` of a part that refers to a medium kept in the store."""
    mark = _openai(part)
    media_id, size = mark.get("media"), mark.get("bytes")
    if not isinstance(part, ImagePart | DocumentPart) or not isinstance(part.source, UrlSource):
        return None
    if not isinstance(media_id, str) or not _ID.fullmatch(media_id):
        return None
    if not part.source.value.endswith(f"/media/{media_id}"):
        return None
    return media_id, size if isinstance(size, int) else 0


def _describe(part: Any) -> str:
    metadata = part.metadata if isinstance(part.metadata, Mapping) else {}
    name = metadata.get("filename")
    kind = "image" if isinstance(part, ImagePart) else "file"
    return f"{kind} {name!r}" if isinstance(name, str) else kind


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MiB"
    return f"{max(1, round(count / 1024))} KiB"


def _not_served(part: Any, why: str) -> TextPart:
    """The text part that stands for a medium that cannot be served."""
    mark: dict[str, Any] = {"error": MEDIA_NOT_SERVED}
    metadata: dict[str, Any] = {METADATA_KEY: mark}
    if isinstance(part.metadata, Mapping) and isinstance(part.metadata.get("filename"), str):
        metadata["filename"] = part.metadata["filename"]
    return TextPart(text=f"[{_describe(part)} not shown: {why}]", metadata=metadata)


def _referenced_bytes(node: Any) -> int:
    """The bytes of the media a stored thread document refers to."""
    if isinstance(node, list):
        return sum(_referenced_bytes(value) for value in node)
    if not isinstance(node, dict):
        return 0
    mark = node.get(METADATA_KEY)
    if isinstance(mark, dict) and isinstance(mark.get("media"), str):
        size = mark.get("bytes")
        return size if isinstance(size, int) else 0
    return sum(_referenced_bytes(value) for value in node.values())


def _media_url(request: Any, media_id: str) -> str:
    """``{path}/media/{id}``, ``path`` being the run route's (as the request reached it)."""
    path = getattr(getattr(request, "url", None), "path", None)
    base = path.rstrip("/") if isinstance(path, str) else ""
    return f"{base}/media/{media_id}"


@dataclass
class MediaShelf:
    """One run's large media: kept in the store and referred to, or refused, and restored."""

    limit: int
    """Inline data above this many characters travels by reference."""
    run_input: RunAgentInput
    request: Any = None
    threads: ThreadRuns | None = None
    thread_key: str | None = None
    """The thread's store key (None: a stateless run, nothing can be served)."""
    _done: dict[str, ImagePart | DocumentPart | TextPart] = field(default_factory=dict)
    _used: int | None = None

    # The next turn ------------------------------------------------------------------------------

    async def restore(self, run_input: RunAgentInput) -> RunAgentInput:
        """``run_input`` with the media its tool messages refer to inline again (what the model
        first saw); a medium no longer kept becomes a text part saying so."""
        if self.threads is None or self.thread_key is None:
            return run_input
        messages: list[Message] = []
        changed = False
        for message in run_input.messages:
            if isinstance(message, ToolMessage) and not isinstance(message.content, str):
                content = [await self._restored(part) for part in message.content]
                if any(new is not old for new, old in zip(content, message.content, strict=True)):
                    message = message.model_copy(update={"content": content})
                    changed = True
            messages.append(message)
        return run_input.model_copy(update={"messages": messages}) if changed else run_input

    async def _restored(self, part: Any) -> Any:
        reference = _reference(part)
        if reference is None or self.threads is None:
            return part
        document = await self.threads.store.load(media_key(reference[0]))
        entry = json.loads(document) if document is not None else None
        if not isinstance(entry, dict) or entry.get("key") != self.thread_key:
            return _not_served(part, "it is no longer kept")
        source = _SOURCE.validate_python(entry["source"])
        restored = part.model_copy(update={"source": source})
        self._done[hashlib.sha256(source.value.encode()).hexdigest()] = part
        return restored

    # This turn --------------------------------------------------------------------------------

    async def offload(
        self, events: AsyncGenerator[BaseEvent, None]
    ) -> AsyncGenerator[BaseEvent, None]:
        """``events`` with every inline medium above the limit referred to (or refused).
        Closing this generator closes ``events``."""
        async with aclosing(events):
            async for event in events:
                if isinstance(event, ToolCallResultEvent) and not isinstance(event.content, str):
                    content = await self._parts(event.content)
                    event = event.model_copy(update={"content": content})
                elif isinstance(event, MessagesSnapshotEvent):
                    messages = [await self._message(message) for message in event.messages]
                    event = event.model_copy(update={"messages": messages})
                yield event

    async def _message(self, message: Message) -> Message:
        if isinstance(message, ToolMessage) and not isinstance(message.content, str):
            return message.model_copy(update={"content": await self._parts(message.content)})
        return message

    async def _parts(self, parts: Sequence[Any]) -> list[Any]:
        return [await self._part(part) for part in parts]

    async def _part(self, part: Any) -> Any:
        data = _inline(part)
        if data is None or len(data) <= self.limit:
            return part
        digest = hashlib.sha256(data.encode()).hexdigest()
        if digest not in self._done:
            self._done[digest] = await self._kept(part, data)
        return self._done[digest]

    async def _kept(self, part: MediaPart, data: str) -> ImagePart | DocumentPart | TextPart:
        """The part referring to its medium, now kept in the store; or why it cannot be."""
        size = len(data)
        too_large = f"{_size(size)} is over this server's inline limit ({_size(self.limit)})"
        if self.threads is None or self.thread_key is None:
            return _not_served(part, f"{too_large} and it keeps no thread store to serve it")
        try:
            if await self._thread_bytes() + size > self.threads.store.settings.max_bytes:
                return _not_served(part, f"{too_large} and the thread has no room left for it")
            media_id = await self._save(part)
        except Exception:
            logger.exception("Could not keep a medium of thread %r", self.thread_key)
            return _not_served(part, f"{too_large} and the server could not keep it")
        self._used = (self._used or 0) + size
        mark = {**_openai(part), "media": media_id, "bytes": size}
        metadata = {**(part.metadata if isinstance(part.metadata, Mapping) else {})}
        metadata[METADATA_KEY] = mark
        mime_type = part.source.mime_type
        if mime_type is None and isinstance(part.source, UrlSource):
            mime_type = (parse_data_url(part.source.value) or (None, ""))[0]
        source = UrlSource(value=_media_url(self.request, media_id), mime_type=mime_type)
        return part.model_copy(update={"source": source, "metadata": metadata})

    async def _thread_bytes(self) -> int:
        """The thread's document and the media it refers to, with those kept this run."""
        if self._used is None:
            assert self.threads is not None and self.thread_key is not None
            document = await self.threads.store.load(self.thread_key)
            held = json.loads(document) if document is not None else None
            self._used = len((document or "").encode()) + _referenced_bytes(held)
        return self._used

    async def _save(self, part: MediaPart) -> str:
        assert self.threads is not None
        store = self.threads.store
        media_id = uuid.uuid4().hex
        metadata = part.metadata if isinstance(part.metadata, Mapping) else {}
        entry = {
            "v": _LAYOUT,
            "key": self.thread_key,
            "thread_id": self.run_input.thread_id,
            "source": part.source.model_dump(mode="json", by_alias=True, exclude_none=True),
            "filename": metadata.get("filename"),
        }
        key, token = media_key(media_id), uuid.uuid4().hex
        if not await store.acquire(key, token):
            raise RuntimeError("a new medium's key is taken")
        try:
            await store.save(key, json.dumps(entry, separators=(",", ":")), token)
        finally:
            await store.release(key, token)
        return media_id


def _decoded(source: Mapping[str, Any]) -> tuple[bytes, str] | None:
    """The bytes and MIME type of a kept source."""
    value, mime_type = source.get("value"), source.get("mimeType")
    if not isinstance(value, str):
        return None
    if source.get("type") == "url":
        parsed = parse_data_url(value)
        if parsed is None:
            return None
        mime_type, value = parsed
    try:
        body = base64.b64decode(value, validate=False)
    except (binascii.Error, ValueError):
        return None
    return body, mime_type if isinstance(mime_type, str) else "application/octet-stream"


async def load_media(threads: ThreadRuns, media_id: str, request: Any) -> ServedMedia | None:
    """The medium ``media_id`` if the request may open the thread that keeps it, else None
    (unknown, expired and forbidden alike, so that an id's existence is not revealed)."""
    if not _ID.fullmatch(media_id):
        return None
    document = await threads.store.load(media_key(media_id))
    entry = json.loads(document) if document is not None else None
    if not isinstance(entry, dict) or entry.get("v") != _LAYOUT:
        return None
    try:
        key = await threads.key(str(entry.get("thread_id")), request)
    except Exception:
        return None
    source = entry.get("source")
    decoded = _decoded(source) if key == entry.get("key") and isinstance(source, dict) else None
    if decoded is None:
        return None
    filename = entry.get("filename")
    return ServedMedia(decoded[0], decoded[1], filename if isinstance(filename, str) else None)
