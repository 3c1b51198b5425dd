"""Internal: event ids, log keys and request fingerprints of detached runs (sans-IO).

An event's id is ``"<runId>.<seq>"``: ``seq`` counts a run's logged events from 1, strictly
increasing, and is given by the run's event log, so every replica reading the same log (Redis)
sends the same id for the same event. Clients treat ids as opaque: they only send the last one
they saw back (``Last-Event-ID``). A run id may itself contain dots; the sequence number is what
follows the LAST dot.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["event_id", "log_key", "parse_event_id", "request_fingerprint"]

MAX_SEQ_DIGITS = 18
"""A sequence number longer than this is not one the log gave (it stays far below 2**63)."""

_KEY_SEPARATOR = "\x1f"


def event_id(run_id: str, seq: int) -> str:
    """The SSE ``id`` of a run's ``seq``-th logged event."""
    return f"{run_id}.{seq}"


def parse_event_id(text: str) -> tuple[str, int] | None:
    """``(run_id, seq)`` of an id :func:`event_id` made, or None when ``text`` is not one
    (no dot, an empty run id, a sequence number that is not a positive decimal integer)."""
    run_id, dot, digits = text.strip().rpartition(".")
    if not dot or not run_id or not digits or len(digits) > MAX_SEQ_DIGITS:
        return None
    if not (digits.isascii() and digits.isdigit()):
        return None
    seq = int(digits)
    return (run_id, seq) if seq >= 1 else None


def log_key(store_key: str, run_id: str) -> str:
    """The event log's key of a run: its thread's store key and its run id, so a run id
    reused under another key (another user) is another run."""
    return f"{store_key}{_KEY_SEPARATOR}{run_id}"


def request_fingerprint(payload: Mapping[str, Any]) -> str:
    """A digest of a run's request body (parsed JSON), independent of key order and
    whitespace: the same request sent again has the same fingerprint."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
