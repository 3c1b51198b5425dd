"""Internal: assistant text and refusals: one TEXT_MESSAGE window per SDK message item."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from agents import MessageOutputItem

from ag_ui_openai_agents.outbound.windows import TextWindow, WindowBook


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
        window.chunks.append(delta)
        content = TextMessageContentEvent(message_id=window.message_id, delta=delta)
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
        return [TextMessageStartEvent(message_id=window.message_id, role="assistant")]

    def _finish_text(self, window: TextWindow, full_text: str) -> list[BaseEvent]:
        """Close a window; a window that streamed nothing sends the item's full text first.

        The streamed deltas are joined once, into the window's one piece: the item's own text
        when they spell it (a string the SDK holds anyway), else their join.
        """
        if window.closed:
            return []
        out: list[BaseEvent] = []
        if not window.opened and full_text:
            out = self._open_text(window)
            window.chunks.append(full_text)
            out.append(TextMessageContentEvent(message_id=window.message_id, delta=full_text))
        elif len(window.chunks) > 1:
            text = "".join(window.chunks)
            window.chunks[:] = [full_text if text == full_text else text]
        window.closed = True
        if window.opened:
            out.append(TextMessageEndEvent(message_id=window.message_id))
        return out

    def close_text(self, window: TextWindow) -> list[BaseEvent]:
        """Close a text window at finalization."""
        return self._finish_text(window, "")
