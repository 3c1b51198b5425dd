"""Internal: token usage: one AG-UI entry per model, from every completed or incomplete response."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ag_ui.core import TokenUsage

# The largest count every AG-UI binding can carry (the TypeScript decoder's safe integer).
_MAX_TOKEN_COUNT = 2**53 - 1

# TokenUsage's count fields, in wire order; a tally keeps one number (or None) per field.
_COUNT_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
)
Counts = Sequence[int | None]


def _count(value: Any) -> int | None:
    """A token count the wire can carry (zero included), else None: not a count at all."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_TOKEN_COUNT:
        return value
    return None


def _response_counts(usage: Any) -> Counts | None:
    """The counts of a Responses or SDK usage object, in ``_COUNT_FIELDS`` order (None: none).

    Reasoning and cached tokens are parts of the output and input totals, as AG-UI counts them.
    A count that is missing reads as zero; one that is not a count the wire can carry (a
    negative, a float, a number beyond 2**53 - 1) is left unset rather than reported.
    """
    if usage is None:
        return None
    input_tokens = _count(getattr(usage, "input_tokens", 0))
    output_tokens = _count(getattr(usage, "output_tokens", 0))
    total = _count(getattr(usage, "total_tokens", 0)) or (input_tokens or 0) + (output_tokens or 0)
    if not (input_tokens or output_tokens or total):
        return None
    input_details = getattr(usage, "input_tokens_details", None)
    output_details = getattr(usage, "output_tokens_details", None)
    cached = _count(getattr(input_details, "cached_tokens", 0)) or None
    reasoning = _count(getattr(output_details, "reasoning_tokens", 0)) or None
    return (input_tokens, output_tokens, total, reasoning, cached, None)


def _entry(provider: str | None, model: str | None, counts: Counts) -> TokenUsage:
    """One AG-UI entry; a sum grown beyond what the wire can carry is left unset."""
    values: dict[str, Any] = {"provider": provider, "model": model}
    for name, value in zip(_COUNT_FIELDS, counts, strict=True):
        values[name] = value if value is None or value <= _MAX_TOKEN_COUNT else None
    return TokenUsage(**{name: value for name, value in values.items() if value is not None})


def token_usage(usage: Any, model: str | None) -> TokenUsage | None:
    """Convert a Responses or SDK usage object to an AG-UI entry (None when it counts nothing)."""
    counts = _response_counts(usage)
    return None if counts is None else _entry(None, model or None, counts)


class UsageTally:
    """Sums the usage the stream reports, per provider and model, in order of first report.

    Counts are summed as they come and turned into ``TokenUsage`` entries only when asked,
    as ``ag_ui.core.aggregate_token_usage`` would sum the entries: a count no report gave
    stays unset.
    """

    __slots__ = ("_groups", "_streamed_input", "_streamed_output")

    def __init__(self) -> None:
        self._groups: dict[tuple[str | None, str | None], list[int | None]] = {}
        self._streamed_input = 0
        self._streamed_output = 0

    def _add(self, key: tuple[str | None, str | None], counts: Counts) -> None:
        group = self._groups.get(key)
        if group is None:
            self._groups[key] = list(counts)
            return
        for index, value in enumerate(counts):
            if value is not None:
                group[index] = (group[index] or 0) + value

    def add_response(self, response: Any, *, counted_by_sdk: bool) -> None:
        """Count one ``response.completed`` / ``response.incomplete`` / ``response.failed``.

        ``counted_by_sdk``: the SDK adds this response to its own run total too (completed
        responses only), so it is not part of the remainder that :meth:`add_unstreamed` reports.
        """
        counts = _response_counts(getattr(response, "usage", None))
        if counts is None:
            return
        model = getattr(response, "model", None)
        self._add((None, model if isinstance(model, str) and model else None), counts)
        if counted_by_sdk:
            self._streamed_input += counts[0] or 0
            self._streamed_output += counts[1] or 0

    def add_unstreamed(self, run_total: Any) -> None:
        """Add what the SDK's run total holds beyond the stream: agents used as tools."""
        if run_total is None:
            return
        reported_input = _count(getattr(run_total, "input_tokens", 0)) or 0
        reported_output = _count(getattr(run_total, "output_tokens", 0)) or 0
        input_tokens = max(reported_input - self._streamed_input, 0)
        output_tokens = max(reported_output - self._streamed_output, 0)
        if input_tokens or output_tokens:
            total = input_tokens + output_tokens
            self._add((None, None), (input_tokens, output_tokens, total, None, None, None))
            self._streamed_input += input_tokens
            self._streamed_output += output_tokens

    def add_resumed(self, tools_total: Any) -> None:
        """Add the usage of tools run while resuming approvals, less what their subagents
        streamed; the run's own total is then compared only with what streams later."""
        if not (self._streamed_input or self._streamed_output):
            self.add_entry(token_usage(tools_total, None))
            return
        self.add_unstreamed(tools_total)
        self._streamed_input = self._streamed_output = 0

    def add_entry(self, entry: TokenUsage | None) -> None:
        """Add a usage entry measured elsewhere (tools run while resuming approvals)."""
        if entry is not None:
            counts = tuple(getattr(entry, name) for name in _COUNT_FIELDS)
            self._add((entry.provider, entry.model), counts)

    def entries(self) -> list[TokenUsage] | None:
        """One entry per provider and model, or None when nothing reported usage."""
        if not self._groups:
            return None
        return [
            _entry(provider, model, counts) for (provider, model), counts in self._groups.items()
        ]
