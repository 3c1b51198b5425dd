"""Internal: the last step of inbound translation: make the item list one the Responses API accepts.

The inbound translator rebuilds the provider's own items from the replay metadata of a history
(``replay.py``). Histories are edited by applications, lose fields in older clients and mix in
messages from elsewhere, so before the items go to the model this pass enforces the API's
input rules on them. The rules, in the order they are applied:

1. A ``function_call_output`` whose ``call_id`` has no ``function_call`` before it is dropped,
   and so is a ``function_call`` no output answers later (both are rejected by the API).
2. An item id is sent only when the replay metadata of the history names it as a provider id
   (never an AG-UI message id, never the SDK's placeholder), and only once: a repeated or
   unknown id is removed from the item.
3. A reasoning item is sent only with its ``encrypted_content`` and only directly followed by
   the item that followed it in the model's response, with that item's id; reasoning items
   that followed one another form a chain that is sent whole or not at all. A reasoning item
   whose pairing cannot be kept is dropped, never sent broken.
4. An item that directly followed a reasoning item keeps its id only when that reasoning item
   is sent directly before it; otherwise its id is removed.
5. Removing an id: an assistant ``message`` becomes the plain ``{"role": "assistant", ...}``
   form (keeping its ``phase``), a ``function_call`` loses ``id`` (``call_id`` stays), and an
   item that cannot exist without its id (reasoning, hosted calls, MCP tool listings,
   compaction) is dropped.

Everything dropped or changed is logged at debug level, with the ids involved.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from agents import TResponseInputItem

from ag_ui_openai_agents.protocol import read_replay

logger = logging.getLogger(__name__)

_ID_OPTIONAL = frozenset({"function_call"})


@dataclass
class ReplayLinks:
    """Provider ids a history's replay metadata names, and how they pair."""

    known: set[str] = field(default_factory=set)
    """Every provider id the metadata names."""
    after: dict[str, str] = field(default_factory=dict)
    """Item id → the reasoning item it directly followed."""
    next: dict[str, str] = field(default_factory=dict)
    """Reasoning id → the id of the item that directly followed it."""

    def add(self, layout: dict[str, Any]) -> None:
        """Record one read layout (of a message, a call or a carried item)."""
        item_id = layout.get("id")
        if not isinstance(item_id, str):
            return
        self.known.add(item_id)
        if "after" in layout:
            self.after[item_id] = layout["after"]
        if "next" in layout:
            self.next[item_id] = layout["next"]
        for key in ("lead", "trail"):
            for carried in layout.get(key, []):
                self.known.add(carried.item_id)
                if carried.after is not None:
                    self.after[carried.item_id] = carried.after

    @classmethod
    def of(cls, metadata: Iterable[Any]) -> ReplayLinks:
        """Links of every ``metadata`` value given (messages' and tool calls')."""
        links = cls()
        for value in metadata:
            links.add(read_replay(value))
        return links


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else None


def _is_reasoning(item: Any) -> bool:
    return bool(_get(item, "type") == "reasoning")


def _without_id(item: dict[str, Any], why: str) -> dict[str, Any] | None:
    """``item`` with its id removed (rule 5), or ``None`` when it cannot go without one."""
    item_id = item.get("id")
    kind = item.get("type")
    if kind == "message" and item.get("role") == "assistant":
        text = "".join(
            str(part.get("text") or part.get("refusal") or "")
            for part in item.get("content") or []
            if isinstance(part, dict)
        )
        logger.debug("Sending assistant message %s without its id: %s.", item_id, why)
        plain: dict[str, Any] = {"role": "assistant", "content": text}
        if item.get("phase"):
            plain["phase"] = item["phase"]
        return plain if text else None
    if kind in _ID_OPTIONAL:
        logger.debug("Sending %s %s without its id: %s.", kind, item_id, why)
        return {key: value for key, value in item.items() if key != "id"}
    logger.debug("Dropping %s %s: %s.", kind, item_id, why)
    return None


def _pair_calls(items: list[Any]) -> list[Any]:
    """Rule 1: function calls and their outputs, by ``call_id``."""
    answered = {
        _get(item, "call_id") for item in items if _get(item, "type") == "function_call_output"
    }
    called: set[Any] = set()
    kept: list[Any] = []
    for item in items:
        kind = _get(item, "type")
        call_id = _get(item, "call_id")
        if kind == "function_call":
            if call_id not in answered:
                logger.debug("Dropping function call %s: no output answers it.", call_id)
                continue
            called.add(call_id)
        elif kind == "function_call_output" and call_id not in called:
            logger.debug("Dropping the output of call %s: no call comes before it.", call_id)
            continue
        kept.append(item)
    return kept


def _known_ids(items: list[Any], links: ReplayLinks) -> list[Any]:
    """Rule 2: only provider ids named by the metadata, each once."""
    seen: set[str] = set()
    kept: list[Any] = []
    for item in items:
        item_id = _get(item, "id")
        if item_id is not None:
            if item_id in seen or item_id not in links.known:
                why = "repeated id" if item_id in seen else "not a provider id of this history"
                item = _without_id(item, why)
                if item is None:
                    continue
            else:
                seen.add(item_id)
        kept.append(item)
    return kept


def _linked(reasoning: Any, following: Any, links: ReplayLinks) -> bool:
    """The reasoning item is sendable and ``following`` is the item that followed it."""
    reasoning_id = _get(reasoning, "id")
    following_id = _get(following, "id")
    return (
        reasoning_id is not None
        and following_id is not None
        and bool(_get(reasoning, "encrypted_content"))
        and links.next.get(reasoning_id) == following_id
        and links.after.get(following_id) == reasoning_id
    )


def _follower(item: Any, links: ReplayLinks, why: str) -> Any | None:
    """Rule 4 for an item not sent right after its reasoning."""
    item_id = _get(item, "id")
    if item_id is not None and item_id in links.after:
        return _without_id(item, why)
    return item


def _pair_reasoning(items: list[Any], links: ReplayLinks) -> list[Any]:
    """Rules 3 and 4: each reasoning chain whole with its following item, or not at all."""
    out: list[Any] = []
    index = 0
    while index < len(items):
        if not _is_reasoning(items[index]):
            kept = _follower(items[index], links, "its reasoning item is not sent before it")
            if kept is not None:
                out.append(kept)
            index += 1
            continue
        end = index
        while end < len(items) and _is_reasoning(items[end]):
            end += 1
        start = end
        while start > index and end < len(items) and _linked(items[start - 1], items[start], links):
            start -= 1
        head = _get(items[start], "id") if start < end else None
        if start == end or head in links.after:
            start = end
        for dropped in items[index:start]:
            logger.debug(
                "Dropping reasoning %s: the item that followed it is not sent after it.",
                _get(dropped, "id"),
            )
        out.extend(items[start:end])
        if start < end:
            out.append(items[end])
            index = end + 1
        else:
            index = end
    return out


def enforce_pairing(
    items: list[TResponseInputItem], links: ReplayLinks
) -> list[TResponseInputItem]:
    """Apply the rules of the module docstring to a translated conversation."""
    plain = cast(list[Any], items)
    return cast(
        list[TResponseInputItem],
        _pair_reasoning(_known_ids(_pair_calls(plain), links), links),
    )
