"""The small option objects of the streamed capabilities: state updates and subagents.

Each capability beyond the seed is one keyword holding one of these (``state=``,
``subagents=``), on ``OpenAIAgentsAgent`` and on ``AGUITranslator.to_agui`` alike; each object
checks itself when it is made, so a wrong setting fails at start-up, not on a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ag_ui_openai_agents.state import DEFAULT_MAX_STATE_BYTES, PredictState

__all__ = ["StateUpdates", "Subagents"]


@dataclass(frozen=True)
class StateUpdates:
    """How changes of the shared state stream to the client."""

    deltas: bool = False
    """Send a change as a STATE_DELTA (RFC 6902 JSON Patch) when that is smaller than the
    snapshot, once the client holds a snapshot from this run; off, every change is a
    STATE_SNAPSHOT."""
    predictive: Sequence[PredictState] = ()
    """The :class:`PredictState` declarations: CopilotKit's ``PredictState`` CUSTOM event before
    each call of those tools, and the shared state takes the argument when the call ends."""
    max_bytes: int | None = DEFAULT_MAX_STATE_BYTES
    """The largest shared state, as JSON, a run takes (1 MiB by default; None: no cap). A
    request whose ``state`` is larger ends with ``RUN_ERROR`` code ``STATE_TOO_LARGE`` before
    anything runs; a change that makes it larger ends the run there, with the same code."""

    def __post_init__(self) -> None:
        predictive = tuple(self.predictive)
        if not all(isinstance(p, PredictState) for p in predictive):
            raise TypeError("StateUpdates(predictive=...) takes PredictState declarations")
        object.__setattr__(self, "predictive", predictive)
        if not isinstance(self.deltas, bool):
            raise TypeError("StateUpdates(deltas=...) takes True or False")
        if self.max_bytes is not None and (
            isinstance(self.max_bytes, bool)
            or not isinstance(self.max_bytes, int)
            or self.max_bytes < 1
        ):
            raise ValueError("StateUpdates(max_bytes=...) takes a positive int, or None")


@dataclass(frozen=True)
class Subagents:
    """Who sees agents used as tools (``on_stream=subagent_events``) as AG-UI subagents.

    A request that declares AG-UI 1.0 (``protocolVersion`` 1.x) always does. One without
    ``protocolVersion`` gets each agent tool as one tool call and its result, unless
    ``pre_1_0_clients`` is True: set it only when every such client accepts ``SUBAGENT_*``
    events (``@ag-ui/client`` 0.0.59 and CopilotKit 1.75 do).
    """

    pre_1_0_clients: bool = False
    """Stream subagents to requests without ``protocolVersion`` too."""

    def __post_init__(self) -> None:
        if not isinstance(self.pre_1_0_clients, bool):
            raise TypeError("Subagents(pre_1_0_clients=...) takes True or False")

    def shown(self, protocol_version: str | None) -> bool:
        """Whether a request of ``protocol_version`` sees subagents."""
        declares_1_0 = (
            protocol_version is not None and protocol_version.split(".", 1)[0].strip() == "1"
        )
        return declares_1_0 or self.pre_1_0_clients
