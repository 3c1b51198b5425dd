"""Internal: how much one request may ask ``resume_tool_calls`` to match.

Both counts are checked before any tool runs. They count what a client sends, not what the
server provably paused on (:mod:`.pauses`): a request within them is checked by counting
alone; one over them has its proofs checked, and at most ``max_open_calls + 1`` forged ones
before it is refused, so it costs little more than reading it. The names are exported by
:mod:`ag_ui_openai_agents.approvals.resume`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ag_ui_openai_agents.errors import RESUME_LIMIT_CODE as RESUME_LIMIT_CODE

DEFAULT_MAX_RESUME_ENTRIES = 100
"""Resume entries one request may carry (one per interrupt of the paused run)."""

DEFAULT_MAX_OPEN_CALLS = 100
"""Tool calls without a result one request's history may hold (hosted calls not counted)."""


@dataclass(frozen=True)
class ResumeLimits:
    """The caps ``resume_tool_calls`` (and so ``OpenAIAgentsAgent``) applies to a request.

    A paused run asks one interrupt per call it paused on, so an honest request carries no more
    entries than its last model turn made calls; both defaults sit far above what a model turn
    makes and far below what slows a server. Calls the server provably paused on (recorded by
    a thread store, or answered with a genuine signature) and their one answer each are not
    counted, so a pause on more calls than these is still answered whole.
    """

    max_entries: int = DEFAULT_MAX_RESUME_ENTRIES
    """Most ``resume`` entries in one request."""
    max_open_calls: int = DEFAULT_MAX_OPEN_CALLS
    """Most open tool calls (calls with no result) in one request's history."""

    def __post_init__(self) -> None:
        for name in ("max_entries", "max_open_calls"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive whole number")

    def check_entries(self, count: int) -> None:
        """Raise :class:`ResumeLimitError` when ``count`` resume entries are too many."""
        if count > self.max_entries:
            raise ResumeLimitError("resume entries", count, self.max_entries)

    def check_open_calls(self, count: int) -> None:
        """Raise :class:`ResumeLimitError` when ``count`` open calls are too many."""
        if count > self.max_open_calls:
            raise ResumeLimitError("open tool calls", count, self.max_open_calls)


class ResumeLimitError(ValueError):
    """A request holds more resume entries or open tool calls than its :class:`ResumeLimits`.

    Raised by ``resume_tool_calls`` before anything runs. Its message is safe for the client
    (it names the limit and the count, nothing from the request); ``OpenAIAgentsAgent`` sends it
    as ``RUN_ERROR`` with code :data:`RESUME_LIMIT_CODE`.
    """

    code = RESUME_LIMIT_CODE

    def __init__(self, what: str, count: int, limit: int) -> None:
        self.what = what
        """What was counted: ``"resume entries"`` or ``"open tool calls"``."""
        self.count = count
        """How many the request held."""
        self.limit = limit
        """The most allowed."""
        super().__init__(
            f"The request holds {count} {what}; at most {limit} are accepted. Nothing was run."
        )
