"""Internal: reasoning summary and text parts as REASONING_* windows, encrypted content kept."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
)
from agents import ReasoningItem

from ag_ui_openai_agents.outbound.windows import ReasoningPart, ReasoningWindow, WindowBook


def _content_event(message_id: str, delta: str) -> ReasoningMessageContentEvent:
    """REASONING_MESSAGE_CONTENT: one streamed fragment of a reasoning part."""
    return ReasoningMessageContentEvent(message_id=message_id, delta=delta)


def _item_parts(item: Any) -> list[tuple[tuple[str, int], str]]:
    """The summary and text parts of a finished reasoning item, keyed like stream parts."""
    parts: list[tuple[tuple[str, int], str]] = []
    for index, summary in enumerate(getattr(item, "summary", None) or []):
        parts.append((("summary", index), getattr(summary, "text", "") or ""))
    for index, content in enumerate(getattr(item, "content", None) or []):
        parts.append((("text", index), getattr(content, "text", "") or ""))
    return parts


class ReasoningTranslation:
    """Reasoning windows of the outbound engine (mixed into ``OpenAIToAGUITranslator``)."""

    book: WindowBook

    # Raw Responses events -------------------------------------------------------------------

    def translate_reasoning_item_added(self, item: Any, output_index: int) -> list[BaseEvent]:
        """A reasoning item starts; REASONING_START waits for its first part or encrypted value."""
        self._new_reasoning(getattr(item, "id", None), output_index)
        return []

    def translate_reasoning_part_added(self, event: Any) -> list[BaseEvent]:
        """``reasoning_summary_part.added``: a new REASONING_MESSAGE window."""
        window = self._reasoning_at(event.output_index, event.item_id)
        return self._switch_part(window, ("summary", event.summary_index))

    def translate_reasoning_summary_delta(self, event: Any) -> list[BaseEvent]:
        """``reasoning_summary_text.delta``: stream into the part it names."""
        return self._delta(event, "summary", event.summary_index)

    def translate_reasoning_text_delta(self, event: Any) -> list[BaseEvent]:
        """``reasoning_text.delta``: raw reasoning text streams the same way."""
        return self._delta(event, "text", event.content_index)

    def translate_reasoning_part_done(self, event: Any) -> list[BaseEvent]:
        """``reasoning_summary_part.done`` / ``reasoning_text.done``: close the part.

        A part whose text came without deltas sends that text first.
        """
        window = self.book.by_index.get(event.output_index)
        if not isinstance(window, ReasoningWindow):
            return []
        part = window.open_part
        if part is None:
            return []
        out = self._part_text(part, event) if not part.chunks else []
        return out + self._close_part(part)

    def translate_reasoning_text_done(self, event: Any) -> list[BaseEvent]:
        """``reasoning_summary_text.done``: the part's full text, sent only if nothing streamed."""
        window = self.book.at(event.output_index)
        if not isinstance(window, ReasoningWindow):
            return []
        part = window.open_part
        if part is None or part.chunks:
            return []
        return self._part_text(part, event)

    @staticmethod
    def _part_text(part: ReasoningPart, event: Any) -> list[BaseEvent]:
        """The text of a ``*.done`` event for a part that streamed no delta, if it has one."""
        text = getattr(event, "text", None) or getattr(getattr(event, "part", None), "text", None)
        if not text:
            return []
        part.chunks.append(text)
        return [_content_event(part.message_id, text)]

    def translate_reasoning_item_done(self, item: Any, output_index: int) -> list[BaseEvent]:
        """The item is done: stream any unseen parts, its encrypted value, then REASONING_END."""
        window = self.book.at(output_index)
        if not isinstance(window, ReasoningWindow):
            window = self._reasoning_at(output_index, getattr(item, "id", None))
        return self._finish_reasoning(window, item)

    # Committed run item ---------------------------------------------------------------------

    def translate_reasoning_item(self, item: ReasoningItem) -> list[BaseEvent]:
        """``reasoning_item_created``: close the window, or stream the whole item if unseen.

        An encrypted value that shows up only now, after the window closed, is kept for the
        snapshot alone: the client has already closed that reasoning.
        """
        raw = item.raw_item
        found = self.book.match("reasoning", getattr(raw, "id", None))
        if isinstance(found, ReasoningWindow) and not found.committed:
            found.committed = True
            if found.closed:
                if found.encrypted_value is None:
                    found.encrypted_value = getattr(raw, "encrypted_content", None) or None
                return []
            return self._finish_reasoning(found, raw)
        window = self._new_reasoning(getattr(raw, "id", None), None)
        self.book.forget("reasoning", window)
        window.committed = True
        return self._finish_reasoning(window, raw)

    # Helpers ------------------------------------------------------------------------------------

    def _new_reasoning(self, item_id: object, output_index: int | None) -> ReasoningWindow:
        window = ReasoningWindow(self.book.resolve_id(item_id, "rs"))
        self.book.add(window, "reasoning", output_index, item_id)
        return window

    def _reasoning_at(self, output_index: int, item_id: object) -> ReasoningWindow:
        window = self.book.at(output_index)
        if isinstance(window, ReasoningWindow):
            return window
        return self._new_reasoning(item_id, output_index)

    def _delta(self, event: Any, kind: str, index: int) -> list[BaseEvent]:
        delta: str = event.delta
        if not delta:
            return []
        window = self.book.by_index.get(event.output_index)
        if not isinstance(window, ReasoningWindow):
            window = self._new_reasoning(event.item_id, event.output_index)
        if window.closed:
            return []
        if window.parts:
            part = window.parts[-1]
            if not part.closed and part.index == index and part.kind == kind:
                part.chunks.append(delta)
                return [_content_event(part.message_id, delta)]
        out = self._switch_part(window, (kind, index))
        part = window.parts[-1]
        part.chunks.append(delta)
        out.append(_content_event(part.message_id, delta))
        return out

    def _switch_part(self, window: ReasoningWindow, key: tuple[str, int]) -> list[BaseEvent]:
        """Close the open part (if any) and open the next one."""
        if window.closed:
            return []
        part = window.open_part
        out = self._close_part(part) if part is not None else []
        if not window.span_open:
            window.span_open = True
            out.append(ReasoningStartEvent(message_id=window.phase_id))
        count = len(window.parts)
        message_id = window.phase_id if count == 0 else f"{window.phase_id}-{count}"
        window.parts.append(ReasoningPart(message_id, kind=key[0], index=key[1]))
        out.append(ReasoningMessageStartEvent(message_id=message_id, role="reasoning"))
        return out

    @staticmethod
    def _close_part(part: ReasoningPart) -> list[BaseEvent]:
        part.closed = True
        return [ReasoningMessageEndEvent(message_id=part.message_id)]

    def _finish_reasoning(self, window: ReasoningWindow, item: Any) -> list[BaseEvent]:
        if window.closed:
            return []
        out: list[BaseEvent] = []
        if item is not None and not window.parts:
            for key, text in _item_parts(item):
                if text:
                    out += self._switch_part(window, key)
                    streamed = window.parts[-1]
                    streamed.chunks.append(text)
                    out.append(_content_event(streamed.message_id, text))
        encrypted = getattr(item, "encrypted_content", None) if item is not None else None
        if encrypted:
            if not window.parts:
                out += self._switch_part(window, ("summary", 0))
            window.encrypted_value = encrypted
        part = window.open_part
        if part is not None:
            out += self._close_part(part)
        if encrypted:
            out.append(
                ReasoningEncryptedValueEvent(
                    subtype="message",
                    entity_id=window.parts[0].message_id,
                    encrypted_value=encrypted,
                )
            )
        return out + self.close_reasoning(window)

    def close_reasoning(self, window: ReasoningWindow) -> list[BaseEvent]:
        """Close whatever is open of a reasoning window (also used at finalization)."""
        out: list[BaseEvent] = []
        part = window.open_part
        if part is not None:
            out += self._close_part(part)
        window.closed = True
        if window.span_open:
            window.span_open = False
            out.append(ReasoningEndEvent(message_id=window.phase_id))
        return out
