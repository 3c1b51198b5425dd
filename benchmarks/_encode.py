"""The one place the benchmarks get the endpoint's SSE encoding of an AG-UI event.

`encode_event(event) -> str` is the package's own (`server.encoding.encode_event`, which the
FastAPI endpoint uses) when the installed package has it, and `EventEncoder().encode`
otherwise: the same bytes either way.
"""

from __future__ import annotations

from collections.abc import Callable

from ag_ui.core import BaseEvent

__all__ = ["ENCODER_NAME", "encode_event"]


def _pick() -> tuple[Callable[[BaseEvent], str], str]:
    try:
        from ag_ui_openai_agents.server.encoding import (  # type: ignore[import-not-found]
            encode_event as package_encode,
        )
    except ImportError:
        from ag_ui.encoder import EventEncoder

        return EventEncoder().encode, "ag_ui.encoder.EventEncoder"
    return package_encode, "ag_ui_openai_agents.server.encoding.encode_event"


encode_event, ENCODER_NAME = _pick()
