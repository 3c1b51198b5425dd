"""What an encoder gives for an event, for comparing two encoders exactly."""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

__all__ = ["outcome"]


def outcome(encoder: EventEncoder, event: BaseEvent) -> tuple[str, Any]:
    """The text and the warnings given, or the exception's type and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = encoder.encode(event)
        except Exception as error:
            return ("error", (type(error), str(error)))
    return ("text", (text, [str(w.message) for w in caught]))
