"""Internal: the writing side of the replay layout (the layout is in ``protocol.py``).

The outbound engine records, per streamed window, the provider's item id, the reasoning item it
directly followed, an assistant message's ``phase`` and (for hosted calls) the whole provider
item. The snapshot writes it into the AG-UI fields meant for it; the inbound translator reads it
back with :func:`~ag_ui_openai_agents.protocol.read_replay` when the client returns the history.
An id is written only when the item's position in its response was seen in the stream, so
``after`` is known to be right.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from ag_ui_openai_agents.protocol import (
    METADATA_KEY,
    REPLAY_VERSION,
    CarriedItem,
    real_id,
)


@dataclass(eq=False, slots=True)
class ReplayInfo:
    """What one window needs to be replayed as the provider's own item."""

    item_id: str | None = None
    """The provider's item id (``msg_…``, ``fc_…``, ``rs_…``, ``ws_…``), when real."""
    positioned: bool = False
    """The item's output index was seen, so ``after`` / ``next_id`` are known."""
    reasoning: bool = False
    """The window is a reasoning item."""
    after: str | None = None
    """The reasoning item this one directly followed in its response."""
    next_id: str | None = None
    """For a reasoning item: the id of the item that directly followed it."""
    phase: str | None = None
    """An assistant message's ``phase`` (``commentary`` / ``final_answer``)."""
    item: dict[str, Any] | None = None
    """For a hosted call: the provider's whole item."""
    lead: tuple[CarriedItem, ...] = ()
    """Carried items that came directly before this one."""
    trail: tuple[CarriedItem, ...] = ()
    """Carried items that came after this one, at the end of its response."""


class ReplayRecorder:
    """Links items to the reasoning item before them, by output index within a response."""

    __slots__ = ("_last", "_pending", "_positions")

    def __init__(self) -> None:
        self._positions: dict[int, ReplayInfo | CarriedItem] = {}
        self._pending: list[CarriedItem] = []
        self._last: ReplayInfo | None = None

    def new_response(self) -> None:
        """A new response starts: indexes restart; carried items left over trail the last."""
        self._flush_trail()
        self._positions = {}
        self._last = None

    def place(self, info: ReplayInfo, index: int | None) -> None:
        """Record a window at ``index`` (``None``: seen only as a committed item)."""
        if info.item_id is None or index is None:
            return
        info.positioned = True
        info.after = self._link(index, info.item_id)
        self._positions[index] = info
        if self._pending:
            info.lead, self._pending = tuple(self._pending), []
        self._last = info

    def carry(self, item: dict[str, Any], index: int) -> None:
        """Record an output item with no window; it leads the next window placed."""
        item_id = real_id(item.get("id"))
        if item_id is None:
            return
        carried = CarriedItem(item, item_id, self._link(index, item_id))
        self._positions[index] = carried
        self._pending.append(carried)

    def finish(self) -> None:
        """End of the run: carried items left over trail the last window."""
        self._flush_trail()

    def _link(self, index: int, item_id: str) -> str | None:
        before = self._positions.get(index - 1)
        if isinstance(before, ReplayInfo) and before.reasoning and before.item_id is not None:
            before.next_id = item_id
            return before.item_id
        return None

    def _flush_trail(self) -> None:
        if self._pending:
            if self._last is not None:
                self._last.trail = (*self._last.trail, *self._pending)
            self._pending = []


def _carried(entries: tuple[CarriedItem, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for entry in entries:
        carried: dict[str, Any] = {"item": entry.item}
        if entry.after is not None:
            carried["after"] = entry.after
        out.append(carried)
    return out


def replay_metadata(info: ReplayInfo, **extra: str) -> dict[str, Any] | None:
    """The ``metadata`` of a message or call: ``{"openai": {...}}``, or ``None`` when empty."""
    layout: dict[str, Any] = {}
    if info.positioned and info.item_id is not None:
        layout["id"] = info.item_id
        if info.after is not None:
            layout["after"] = info.after
        if info.next_id is not None:
            layout["next"] = info.next_id
    if info.phase is not None:
        layout["phase"] = info.phase
    if info.lead:
        layout["lead"] = _carried(info.lead)
    if info.trail:
        layout["trail"] = _carried(info.trail)
    if not layout:
        return None
    return {METADATA_KEY: {"v": REPLAY_VERSION, **layout, **extra}}


def part_metadata(item_id: str | None, kind: str) -> dict[str, Any] | None:
    """The ``metadata`` of a reasoning part after the first: its item and part kind."""
    if item_id is None:
        return None
    return {METADATA_KEY: {"v": REPLAY_VERSION, "id": item_id, "part": kind}}


def provider_item(item: Any) -> dict[str, Any]:
    """An output item as the API sent it: the fields it set, as JSON values."""
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return cast(dict[str, Any], dump(mode="json", exclude_unset=True))
    return dict(item) if isinstance(item, Mapping) else {}


def hosted_artefact(item: dict[str, Any] | None) -> str | None:
    """A hosted call's provider item as the compact JSON its ``encrypted_value`` holds."""
    if item is None:
        return None
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False)
