"""Hosted tool calls: calls the provider (or an SDK-side executor) runs, not a function tool.

On the AG-UI side a hosted call is a tool call whose name is its Responses item type
(``web_search_call``, ``mcp_call``, ...). That name is how the inbound translator recognises it
in the history: the call goes back to the model as the provider's own item, which the snapshot
keeps in the call's ``encrypted_value`` (see ``replay.py``); its result message is never sent.
"""

from __future__ import annotations

__all__ = ["HOSTED_CALL_TYPES", "PROVIDER_RUN_CALL_TYPES", "is_hosted_call_name"]

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
