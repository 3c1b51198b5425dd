"""What the offline demo model reads from a request: the last user message, the tool calls
made since, their outputs, and the words worth matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from demo_attachments import Attachment, attachment_of

__all__ = [
    "Conversation",
    "PastCall",
    "ToolSpec",
    "overlap",
    "read_conversation",
    "related",
    "significant_words",
]

_STOPWORD_TEXT = """
    about after again all also and any are ask back been before being but can could did does
    doing done for from get give had has have her here him his how into its just let like make
    many may more most much need not now off one only our out please should show some such
    tell than that the their them then there these they this those too use using very want was
    way were what when where which while who why will with would you your yours
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: its name, description and JSON schema of its arguments."""

    name: str
    description: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class PastCall:
    """A tool call made since the last user message, with its output once it has one."""

    name: str
    call_id: str
    output: str | None = None
    arguments: str = ""
    """The arguments the call was made with (JSON text)."""


@dataclass(frozen=True)
class Conversation:
    """The parts of a model request the demo model reasons about."""

    user_text: str
    instructions: str
    calls: tuple[PastCall, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    """The files attached to the last user message."""

    @property
    def answered(self) -> tuple[PastCall, ...]:
        """Calls since the last user message that have an output."""
        return tuple(call for call in self.calls if call.output is not None)


def significant_words(text: str) -> list[str]:
    """Lower-case words of ``text`` worth matching: no stopwords, no words under three letters."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return [word for word in words if len(word) >= 3 and word not in _STOPWORDS]


def related(first: str, second: str) -> bool:
    """Whether two words match: equal, or one a prefix of the other (``write``/``writer``)."""
    if first == second:
        return True
    shorter, longer = sorted((first, second), key=len)
    return len(shorter) >= 4 and longer.startswith(shorter)


def overlap(words: Iterable[str], text: str) -> set[str]:
    """The words of ``words`` related to some significant word of ``text``."""
    targets = significant_words(text)
    return {word for word in words if any(related(word, target) for target in targets)}


# --- Reading the request ---------------------------------------------------------------------


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    return dict(dump(exclude_unset=True)) if callable(dump) else {}


def _text_of(content: Any) -> str:
    """The text of a message content or tool output: a string or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [_as_dict(part) for part in content]
        return " ".join(str(part["text"]) for part in parts if isinstance(part.get("text"), str))
    return "" if content is None else str(content)


def _attachments_of(content: Any) -> tuple[Attachment, ...]:
    """The files among a message's content parts."""
    if isinstance(content, str) or not isinstance(content, Sequence):
        return ()
    found = (attachment_of(_as_dict(part)) for part in content)
    return tuple(attachment for attachment in found if attachment is not None)


def read_conversation(instructions: str | None, items: str | Sequence[Any]) -> Conversation:
    """Find the last user message and the tool calls and outputs that followed it."""
    if isinstance(items, str):
        return Conversation(user_text=items, instructions=instructions or "")
    user_text = ""
    attachments: tuple[Attachment, ...] = ()
    calls: dict[str, PastCall] = {}
    for raw in items:
        item = _as_dict(raw)
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            user_text, calls = _text_of(item.get("content")), {}
            attachments = _attachments_of(item.get("content"))
        elif kind == "function_call":
            call_id = str(item.get("call_id", ""))
            name, arguments = str(item.get("name", "")), str(item.get("arguments") or "")
            calls[call_id] = PastCall(name=name, call_id=call_id, arguments=arguments)
        elif kind == "function_call_output" and str(item.get("call_id")) in calls:
            call = calls[str(item["call_id"])]
            output = _text_of(item.get("output"))
            calls[call.call_id] = PastCall(call.name, call.call_id, output, call.arguments)
    return Conversation(user_text, instructions or "", tuple(calls.values()), attachments)
