"""Internal: every private name of the OpenAI Agents SDK this package reads, in one place.

The SDK offers no public way to learn these facts. Each function here reads one private name
directly, with no silent default, so an SDK release that renames it fails the drift tests in
``tests/test_sdk_drift.py`` instead of quietly changing behaviour.
"""

from __future__ import annotations

from typing import Literal

from agents.result import RunResultStreaming

CancelMode = Literal["none", "immediate", "after_turn"]


def cancel_mode(result: RunResultStreaming) -> CancelMode:
    """How ``result.cancel`` was asked for so far: ``"none"`` while nobody cancelled the run."""
    mode: CancelMode = result._cancel_mode
    return mode
