"""The minimal translator: the bound, in the shape every translator of this kind has.

The bound (``throughput.bound_events``) yields the translation's events with no translating at
all. A translator also passes every SDK event through a method that returns the events it
causes (``to_agui`` loops over ``engine.translate(event)``), and keeps each delta, since the
closing MESSAGES_SNAPSHOT restates the text. :class:`MinimalTranslator` does exactly that and
nothing else: one method call per SDK event; for a delta, its text appended to a list kept
under its output index; then the very events the real translation made for that SDK event,
built afresh with the engine's constructors. No ids, no open/closed state, no groups, no
replay metadata, no usage.

Its distance from the bound is the price of that shape; what the real translator costs
beyond it is all its bookkeeping together.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from agents.stream_events import StreamEvent
from openai.types.responses import (
    ResponseCustomToolCallInputDeltaEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseMcpCallArgumentsDeltaEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseTextDeltaEvent,
)

from ._support import Timing, built, time_encoding
from .workloads import replay

if TYPE_CHECKING:
    from .throughput import BoundPlan, Recipe

__all__ = ["DELTA_CLASSES", "MinimalTranslator", "minimal_events", "time_minimal"]

DELTA_CLASSES: frozenset[type] = frozenset(
    {
        ResponseTextDeltaEvent,
        ResponseRefusalDeltaEvent,
        ResponseFunctionCallArgumentsDeltaEvent,
        ResponseMcpCallArgumentsDeltaEvent,
        ResponseCustomToolCallInputDeltaEvent,
        ResponseReasoningSummaryTextDeltaEvent,
        ResponseReasoningTextDeltaEvent,
    }
)
"""The Responses events whose text a translator keeps for the snapshot."""


class MinimalTranslator:
    """One ``translate`` call per SDK event; deltas kept; the planned events built."""

    __slots__ = ("after", "index", "texts")

    def __init__(self, after: list[list[Recipe]]) -> None:
        self.after = after
        """The recipes of the events that follow each SDK event (``plan_bound``)."""
        self.index = 0
        """Which SDK event comes next."""
        self.texts: defaultdict[int, list[str]] = defaultdict(list)
        """The deltas kept, by output index."""

    def translate(self, event: StreamEvent) -> list[BaseEvent]:
        """The events ``event`` causes, as the real translation made them."""
        if event.type == "raw_response_event":
            data = event.data
            if type(data) in DELTA_CLASSES:
                self.texts[data.output_index].append(data.delta)
        out: list[BaseEvent] = []
        for build, values in self.after[self.index]:
            out.append(build(*values))
        self.index += 1
        return out


async def minimal_events(
    events: Sequence[StreamEvent], plan: BoundPlan
) -> AsyncGenerator[BaseEvent, None]:
    """The minimal translator's stream, looping as ``to_agui`` does."""
    head, after = plan
    for event in built(head):
        yield event
    translate = MinimalTranslator(after).translate
    async for sdk_event in replay(events):
        for event in translate(sdk_event):
            yield event


async def time_minimal(
    events: Sequence[StreamEvent], plan: BoundPlan, encoder: EventEncoder
) -> Timing:
    """Run the minimal translator over the recorded stream and encode every event."""
    return await time_encoding(minimal_events(events, plan), encoder.encode)
