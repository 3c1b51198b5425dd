"""Token usage: one AG-UI entry per model, from every completed or incomplete response."""

from __future__ import annotations

from typing import Any

from ag_ui.core import TokenUsage
from ag_ui.core.token_usage import aggregate_token_usage

__all__ = ["UsageTally", "token_usage"]


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def token_usage(usage: Any, model: str | None) -> TokenUsage | None:
    """Convert a Responses or SDK usage object to an AG-UI entry (None when it counts nothing).

    Reasoning and cached tokens are parts of the output and input totals, as AG-UI counts them.
    """
    if usage is None:
        return None
    input_tokens = _count(getattr(usage, "input_tokens", 0))
    output_tokens = _count(getattr(usage, "output_tokens", 0))
    total = _count(getattr(usage, "total_tokens", 0)) or input_tokens + output_tokens
    if not (input_tokens or output_tokens or total):
        return None
    input_details = getattr(usage, "input_tokens_details", None)
    output_details = getattr(usage, "output_tokens_details", None)
    cached = _count(getattr(input_details, "cached_tokens", 0))
    reasoning = _count(getattr(output_details, "reasoning_tokens", 0))
    return TokenUsage(
        model=model or None,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=total,
        reasoning_tokens=reasoning or None,
        cached_input_tokens=cached or None,
    )


class UsageTally:
    """Sums the usage the stream reports, per model."""

    __slots__ = ("_entries", "_streamed_input", "_streamed_output")

    def __init__(self) -> None:
        self._entries: list[TokenUsage] = []
        self._streamed_input = 0
        self._streamed_output = 0

    def add_response(self, response: Any, *, counted_by_sdk: bool) -> None:
        """Count one ``response.completed`` / ``response.incomplete`` / ``response.failed``.

        ``counted_by_sdk``: the SDK adds this response to its own run total too (completed
        responses only), so it is not part of the remainder that :meth:`add_unstreamed` reports.
        """
        usage = getattr(response, "usage", None)
        entry = token_usage(usage, getattr(response, "model", None))
        if entry is None:
            return
        self._entries.append(entry)
        if counted_by_sdk:
            self._streamed_input += entry.input_tokens or 0
            self._streamed_output += entry.output_tokens or 0

    def add_unstreamed(self, run_total: Any) -> None:
        """Add what the SDK's run total holds beyond the stream: agents used as tools."""
        if run_total is None:
            return
        input_tokens = max(_count(getattr(run_total, "input_tokens", 0)) - self._streamed_input, 0)
        output_tokens = max(
            _count(getattr(run_total, "output_tokens", 0)) - self._streamed_output, 0
        )
        if input_tokens or output_tokens:
            self._entries.append(
                TokenUsage(
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    total_tokens=input_tokens + output_tokens,
                )
            )
            self._streamed_input += input_tokens
            self._streamed_output += output_tokens

    def add_entry(self, entry: TokenUsage | None) -> None:
        """Add a usage entry measured elsewhere (tools run while resuming approvals)."""
        if entry is not None:
            self._entries.append(entry)

    def entries(self) -> list[TokenUsage] | None:
        """One entry per model, or None when nothing reported usage."""
        return aggregate_token_usage(self._entries) if self._entries else None
