"""Internal: the vocabulary both directions share (hosted calls, the replay layout, id rules).

The outbound engine writes what this module names and the inbound translator and the approval
resume read it back, so it lives below both: ``inbound``, ``outbound`` and ``approvals`` import
it, and it imports none of them.

Hosted calls
    A hosted call is a tool call the provider (or an SDK-side executor) runs, not a function
    tool. On the AG-UI side its tool call name is its Responses item type (``web_search_call``,
    ``mcp_call``, ...). That name is how the inbound translator recognises it in the history:
    the call goes back to the model as the provider's own item, which the snapshot keeps in the
    call's ``encrypted_value``; its result message is never sent.

Replay layout (version 1)
    What the Responses API needs back that AG-UI has no field for lives under the one key
    ``"openai"`` of a message's or tool call's ``metadata``::

        ReasoningMessage  metadata.openai = {"v": 1, "id": "rs_…", "part": "summary" | "text",
                                              "next": "<id of the item that followed>"}
                          encrypted_value = the item's encrypted content (first part only)
        AssistantMessage  metadata.openai = {"v": 1, "id": "msg_…", "phase": "commentary",
                                              "after": "rs_…"}
        ToolCall          metadata.openai = {"v": 1, "id": "fc_…", "after": "rs_…"}
        hosted ToolCall   encrypted_value = the provider's item as compact JSON
                          metadata.openai = {"v": 1, "id": "ws_…", "after": "rs_…"}

    Any of them may also hold ``"lead"`` / ``"trail"``: output items with no AG-UI counterpart
    (``mcp_list_tools``, ``compaction``) that came right before / after this one, each as
    ``{"item": {...}, "after": "rs_…"}``. Keys whose value would be empty are left out, and a
    message with nothing to replay carries no ``metadata`` at all. The writing side is
    ``outbound/replay.py``.

Ids
    A real SDK id is a non-empty string other than the SDK's placeholder
    (``FAKE_RESPONSES_ID``); ids this package makes are ``<prefix>_<24 hex digits>``. A tool
    result's message id is ``<call_id>-result`` (``-result-<n>`` when that one is taken).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ag_ui_openai_agents._sdk import fake_responses_id

_FAKE_RESPONSES_ID = fake_responses_id()

PROVIDER_RUN_CALL_TYPES: frozenset[str] = frozenset(
    {"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call"}
)
"""Calls the provider runs itself; the stream reports them with a final status, never an output."""

HOSTED_CALL_TYPES: frozenset[str] = PROVIDER_RUN_CALL_TYPES | frozenset(
    {
        "mcp_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "tool_search_call",
        "program",
    }
)
"""Every Responses item type surfaced as a hosted tool call."""


def is_hosted_call_name(name: str) -> bool:
    """Tell whether an AG-UI tool call name marks a hosted call."""
    return name in HOSTED_CALL_TYPES


METADATA_KEY = "openai"
"""The key of ``metadata`` under which the replay layout lives."""

REPLAY_VERSION = 1
"""The layout version written as ``"v"``; other versions are ignored when read."""

CARRIED_ITEM_TYPES: frozenset[str] = frozenset({"mcp_list_tools", "compaction"})
"""Output items with no AG-UI counterpart that travel in ``lead`` / ``trail``."""


@dataclass(eq=False, slots=True)
class CarriedItem:
    """An output item with no AG-UI window, kept to be replayed in its place."""

    item: dict[str, Any]
    """The provider's item, as the API sent it."""
    item_id: str | None
    """Its provider id."""
    after: str | None = None
    """The reasoning item it directly followed, if any."""


def read_replay(metadata: Any) -> dict[str, Any]:
    """The replay layout of a message or call, or ``{}`` when absent, of another version or
    malformed. Only values of the expected types are kept."""
    if not isinstance(metadata, Mapping):
        return {}
    layout = metadata.get(METADATA_KEY)
    if not isinstance(layout, Mapping) or layout.get("v") != REPLAY_VERSION:
        return {}
    read: dict[str, Any] = {}
    for key in ("id", "after", "next", "phase", "part"):
        value = layout.get(key)
        if isinstance(value, str) and value:
            read[key] = value
    for key in ("lead", "trail"):
        entries = layout.get(key)
        if isinstance(entries, list):
            carried = [_read_carried(entry) for entry in entries]
            read[key] = [entry for entry in carried if entry is not None]
    return read


def _read_carried(entry: Any) -> CarriedItem | None:
    if not isinstance(entry, Mapping):
        return None
    item = entry.get("item")
    if not isinstance(item, Mapping) or item.get("type") not in CARRIED_ITEM_TYPES:
        return None
    item_id = item.get("id")
    after = entry.get("after")
    if not isinstance(item_id, str) or not item_id:
        return None
    return CarriedItem(dict(item), item_id, after if isinstance(after, str) and after else None)


def read_hosted_artefact(value: str | None, kind: str) -> dict[str, Any] | None:
    """The provider item of a hosted call, when ``value`` is one of kind ``kind`` with an id."""
    if not value:
        return None
    try:
        item = json.loads(value)
    except ValueError:
        return None
    if not isinstance(item, dict) or item.get("type") != kind:
        return None
    item_id = item.get("id")
    return item if isinstance(item_id, str) and item_id else None


def real_id(value: object) -> str | None:
    """Return ``value`` when it is a real SDK id, else None (missing, empty or placeholder)."""
    if isinstance(value, str) and value and value != _FAKE_RESPONSES_ID:
        return value
    return None


def new_id(prefix: str) -> str:
    """Make a fresh id such as ``msg_3f…``."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def result_message_id(call_id: str, taken: set[str], numbers: dict[str, int] | None = None) -> str:
    """The message id of a tool result: ``<call_id>-result``, or ``<call_id>-result-<n>`` when
    the conversation already holds that id (a repeated id duplicates the message on the client).
    The id chosen is added to ``taken``. ``numbers`` (one dict per ``taken``) remembers the last
    ``n`` of each call id, so many results of one id skip the numbers already found taken."""
    n = numbers.get(call_id, 1) if numbers is not None else 1
    message_id = f"{call_id}-result" if n == 1 else f"{call_id}-result-{n}"
    while message_id in taken:
        n += 1
        message_id = f"{call_id}-result-{n}"
    taken.add(message_id)
    if numbers is not None:
        numbers[call_id] = n
    return message_id


def item_field(item: Any, name: str) -> Any:
    """A field of a raw SDK item, which may be a model or a dict (None when absent)."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)
