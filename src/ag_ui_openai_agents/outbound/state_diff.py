"""Internal: the JSON of a state, and an RFC 6902 patch between two of them, bounded by a size.

:func:`dump` writes a value as the SSE encoder would (pydantic's serializer, NaN and infinities
as ``null``); :func:`load` reads it back, which is how the state stream copies a state (a
``copy.deepcopy`` costs several times as much). :func:`json_patch` compares two such copies: a
subtree that compares equal (in C, with ``==``) is skipped whole, lists are compared after
their common head and tail, and the work stops as soon as the operations encode to the size
given (the snapshot's), since a snapshot is sent then. Its cost is that of the changed part,
not of the whole state.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json, to_json

__all__ = ["dump", "json_patch", "load"]

_OP_BYTES = len('{"op":"replace","path":"","value":},')
"""What an operation adds to the patch's JSON beside its path and value."""


def dump(value: Any) -> bytes:
    """``value``'s compact JSON, as the state's events encode it."""
    return to_json(value, inf_nan_mode="null")


def load(text: bytes) -> Any:
    """The value ``text`` holds (a fresh copy of plain JSON values)."""
    return from_json(text)


class _TooLarge(Exception):
    """The operations reached the limit: a snapshot is smaller."""


class _Patch:
    """The operations made so far and their encoded size."""

    __slots__ = ("left", "ops")

    def __init__(self, limit: int) -> None:
        self.ops: list[dict[str, Any]] = []
        self.left = limit

    def add(self, op: str, path: str, value: Any = None, *, valued: bool = True) -> None:
        size = _OP_BYTES + len(path) + (len(dump(value)) if valued else 0)
        self.left -= size
        if self.left <= 0:
            raise _TooLarge
        entry = {"op": op, "path": path, "value": value} if valued else {"op": op, "path": path}
        self.ops.append(entry)


def json_patch(old: Any, new: Any, limit: int) -> list[dict[str, Any]] | None:
    """The operations that turn ``old`` into ``new`` (both plain JSON values, neither changed
    afterwards), or None when they would encode to ``limit`` bytes or more."""
    patch = _Patch(limit)
    try:
        _diff(patch, "", old, new)
    except _TooLarge:
        return None
    return patch.ops


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON: ``True`` and ``1`` differ, ``1`` and ``1.0`` do not. (Two containers
    are compared with ``==``, which cannot tell ``true`` from ``1`` inside them; a change of
    that kind alone leaves the patch empty, and the stream then sends a snapshot.)"""
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new) and bool(old == new)
    return bool(old == new)


def _diff(patch: _Patch, path: str, old: Any, new: Any) -> None:
    if type(old) is dict and type(new) is dict:
        _diff_objects(patch, path, old, new)
    elif type(old) is list and type(new) is list:
        _diff_arrays(patch, path, old, new)
    elif not _same(old, new):
        patch.add("replace", path, new)


def _diff_objects(patch: _Patch, path: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    if old == new:
        return
    for key in old:
        if key not in new:
            patch.add("remove", f"{path}/{_escape(key)}", valued=False)
    for key, value in new.items():
        where = f"{path}/{_escape(key)}"
        if key not in old:
            patch.add("add", where, value)
        elif old[key] is not value:
            _diff(patch, where, old[key], value)


def _diff_arrays(patch: _Patch, path: str, old: list[Any], new: list[Any]) -> None:
    """Past the common head and tail, the items left are paired from the start or from the
    end, whichever pairs more equal items: so one item inserted or removed anywhere, with
    other items changed, costs an operation each, not one per shifted item."""
    if old == new:
        return
    n, m = len(old), len(new)
    head = 0
    while head < n and head < m and _same(old[head], new[head]):
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and _same(old[n - 1 - tail], new[m - 1 - tail]):
        tail += 1
    paired = min(n, m) - head - tail
    added, removed = m - min(n, m), n - min(n, m)
    if (added or removed) and _differing(old, new, head + removed, head + added, paired) < (
        _differing(old, new, head, head, paired)
    ):
        for index in range(head, head + added):  # the unpaired items lead
            patch.add("add", f"{path}/{index}", new[index])
        for _ in range(removed):
            patch.add("remove", f"{path}/{head}", valued=False)
        for offset in range(paired):
            index = head + added + offset
            _diff(patch, f"{path}/{index}", old[head + removed + offset], new[index])
        return
    for offset in range(paired):  # the unpaired items trail
        index = head + offset
        _diff(patch, f"{path}/{index}", old[index], new[index])
    for index in range(head + paired, head + paired + added):
        patch.add("add", f"{path}/{index}", new[index])
    for index in reversed(range(head + paired, head + paired + removed)):
        patch.add("remove", f"{path}/{index}", valued=False)


def _differing(old: list[Any], new: list[Any], start_old: int, start_new: int, count: int) -> int:
    """How many of ``count`` items differ, pairing ``old[start_old:]`` with ``new[start_new:]``."""
    return sum(
        1 for offset in range(count) if not _same(old[start_old + offset], new[start_new + offset])
    )


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
