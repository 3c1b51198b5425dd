"""Internal: responses input items rebuilt from the replay layout of a history (see ``replay.py``).

These build the provider's own item forms; whether an id may really be sent is decided later,
for the whole conversation, by :func:`~ag_ui_openai_agents.inbound.pairing.enforce_pairing`.
"""

from __future__ import annotations

import copy
from typing import Any, cast

from agents import TResponseInputItem

_PART_TYPES = {"summary": ("summary", "summary_text"), "text": ("content", "reasoning_text")}


def assistant_item(text: str, layout: dict[str, Any]) -> TResponseInputItem:
    """An assistant message: the provider's ``message`` item when its id is known (with its
    ``phase``), else the plain role/content form (with the ``phase`` if there is one)."""
    item: dict[str, Any]
    item_id = layout.get("id")
    if item_id is not None:
        item = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    else:
        item = {"role": "assistant", "content": text}
    if layout.get("phase") in ("commentary", "final_answer"):
        item["phase"] = layout["phase"]
    return cast(TResponseInputItem, item)


def carried_items(layout: dict[str, Any], key: str) -> list[TResponseInputItem]:
    """The ``lead`` or ``trail`` items of a layout, as the provider sent them."""
    return [cast(TResponseInputItem, copy.deepcopy(entry.item)) for entry in layout.get(key, [])]


def reasoning_part_item(
    text: str, encrypted_value: str | None, layout: dict[str, Any]
) -> TResponseInputItem | None:
    """One reasoning part as a reasoning item of its own (merged with its siblings later), or
    ``None`` without a provider id. An empty part adds no summary entry."""
    item_id = layout.get("id")
    if item_id is None:
        return None
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    field, part_type = _PART_TYPES.get(layout.get("part", "summary"), _PART_TYPES["summary"])
    if text:
        item[field] = [{"type": part_type, "text": text}]
    if encrypted_value:
        item["encrypted_content"] = encrypted_value
    return cast(TResponseInputItem, item)


def merge_reasoning_part(items: list[TResponseInputItem], item: TResponseInputItem) -> bool:
    """Fold a reasoning part into the reasoning item just before it when both are parts of
    one provider item; tell whether it was folded."""
    if not items:
        return False
    last = cast(dict[str, Any], items[-1])
    part = cast(dict[str, Any], item)
    if part.get("type") != "reasoning" or last.get("type") != "reasoning":
        return False
    if part.get("id") != last.get("id"):
        return False
    for field in ("summary", "content"):
        if part.get(field):
            last[field] = [*last.get(field, []), *part[field]]
    if part.get("encrypted_content") and not last.get("encrypted_content"):
        last["encrypted_content"] = part["encrypted_content"]
    return True
