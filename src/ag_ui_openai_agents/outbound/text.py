"""Internal: assistant text and refusals: one TEXT_MESSAGE window per SDK message item."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from agents.items import MessageOutputItem

from ag_ui_openai_agents.outbound.builders import model_builder
from ag_ui_openai_agents.outbound.windows import TextWindow, WindowBook, pack_tail

_content_event = model_builder(TextMessageContentEvent, "message_id", "delta")
_start_event = model_builder(TextMessageStartEvent, "message_id", "role")
_end_event = model_builder(TextMessageEndEvent, "message_id")


def message_item_text(item: Any) -> str:
    """The text of a Responses message item: its output_text and refusal parts, joined."""
    pieces: list[str] = []
    for part in getattr(item, "content", None) or []:
        kind = getattr(part, "type", None)
        if kind == "output_text":
            pieces.append(getattr(part, "text", "") or "")
        elif kind == "refusal":
            pieces.append(getattr(part, "refusal", "") or "")
    return "".join(pieces)


def chunks_join_to(chunks: list[str], text: str, packed: int = 0) -> bool:
    """Tell whether ``chunks`` concatenate to ``text``, without building the concatenation.

    The first ``packed`` chunks are joins of ``PACK_EVERY`` deltas each (``pack_tail``) and are
    compared one by one; the rest, fewer than ``PACK_EVERY`` short deltas, are joined once.
    """
    position = 0
    for chunk in chunks[:packed]:
        if not text.startswith(chunk, position):
            return False
        position += len(chunk)
    tail = "".join(chunks[packed:])
    return len(tail) == len(text) - position and text.startswith(tail, position)


class TextTranslation:
    """Text windows of the outbound engine (mixed into ``OpenAIToAGUITranslator``)."""

    book: WindowBook

    # Raw Responses events -------------------------------------------------------------------

    def translate_text_item_added(self, item: Any, output_index: int) -> list[BaseEvent]:
        """A message item starts: register its window; it opens on its first text."""
        window = TextWindow(self.book.resolve_id(getattr(item, "id", None), "msg"))
        self.book.add(window, "text", output_index, getattr(item, "id", None))
        window.replay.phase = getattr(item, "phase", None)
        return []

    def translate_text_delta(self, event: Any) -> list[BaseEvent]:
        """``response.output_text.delta`` / ``response.refusal.delta``: stream into the window."""
        delta: str = event.delta
        if not delta:
            return []
        window = self.book.by_index.get(event.output_index)
        if not isinstance(window, TextWindow):
            window = self._text_window_at(event.output_index, event.item_id)
        if window.closed:
            return []
        chunks = window.chunks
        chunks.append(delta)
        if len(chunks) >= window.pack_at:
            window.pack_at = pack_tail(chunks, window.pack_at)
        content = _content_event(window.message_id, delta)
        if window.opened:
            return [content]
        out = self._open_text(window)
        out.append(content)
        return out

    def translate_text_item_done(self, item: Any, output_index: int) -> list[BaseEvent]:
        """The item-level done closes the window (``output_text.done`` never does)."""
        window = self.book.at(output_index)
        if not isinstance(window, TextWindow):
            window = self._text_window_at(output_index, getattr(item, "id", None))
        window.replay.phase = getattr(item, "phase", None) or window.replay.phase
        return self._finish_text(window, message_item_text(item))

    # Committed run item ---------------------------------------------------------------------

    def translate_message_output_item(self, item: MessageOutputItem) -> list[BaseEvent]:
        """``message_output_created``: close the streamed window, or stream the whole item."""
        raw = item.raw_item
        window = self.book.match("text", getattr(raw, "id", None))
        if not isinstance(window, TextWindow) or window.committed:
            window = TextWindow(self.book.resolve_id(getattr(raw, "id", None), "msg"))
        window.replay.phase = window.replay.phase or getattr(raw, "phase", None)
        window.committed = True
        return self._finish_text(window, message_item_text(raw))

    # Helpers ----------------------------------------------------------------------------------

    def _text_window_at(self, output_index: int, item_id: object) -> TextWindow:
        window = self.book.at(output_index)
        if isinstance(window, TextWindow):
            return window
        window = TextWindow(self.book.resolve_id(item_id, "msg"))
        self.book.add(window, "text", output_index, item_id)
        return window

    def _open_text(self, window: TextWindow) -> list[BaseEvent]:
        if window.opened:
            return []
        window.opened = True
        self.book.start_text_group(window)
        return [_start_event(message_id=window.message_id, role="assistant")]

    def _finish_text(self, window: TextWindow, full_text: str) -> list[BaseEvent]:
        """Close a window; a window that streamed nothing sends the item's full text first."""
        if window.closed:
            return []
        out: list[BaseEvent] = []
        if not window.opened and full_text:
            out = self._open_text(window)
            window.chunks.append(full_text)
            out.append(_content_event(window.message_id, full_text))
        elif full_text and chunks_join_to(window.chunks, full_text, window.packed):
            # Keep the item's own text instead of every delta: one string the SDK holds anyway.
            window.chunks.clear()
            window.chunks.append(full_text)
        window.closed = True
        if window.opened:
            out.append(_end_event(message_id=window.message_id))
        return out

    def close_text(self, window: TextWindow) -> list[BaseEvent]:
        """Close a text window at finalization."""
        return self._finish_text(window, "")
