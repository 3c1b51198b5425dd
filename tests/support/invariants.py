"""A strict checker for AG-UI 1.0 event streams, and an SSE reader for them.

Every stream the suite collects, straight from the translator or read back from an HTTP
response, goes through :func:`check_stream`. It raises :class:`StreamViolation` on the first
broken rule, naming the event index and the rule. It runs in one pass over the stream plus
one pass over the final messages snapshot, using only dicts and sets, so it stays linear on
the large streams of benchmarks and fuzz tests.

Rule families (the rule name is in brackets in every message):

* lifecycle: RUN_STARTED first and only once, one terminal event last, ids and protocol version;
* windows: text, tool call, reasoning message and reasoning span ids open once, close once, are
  never reused in the run, and never mix the CHUNK form with START/CONTENT/END; steps pair;
* tool results, parent message ids, encrypted values, outcome, pending calls and usage;
* state: a STATE_DELTA comes after a STATE_SNAPSHOT of the run, changes something and applies
  (with ``jsonpatch``) to the state the client holds;
* the messages snapshot restates the input and everything streamed, with the same ids;
* the wire: every event encodes with ``EventEncoder`` into known keys only, no placeholder ids,
  no provider correlation keys, and validates back into the same model.

It is stricter than the TypeScript client on purpose: the client accepts empty text deltas,
reopened ids, a missing terminal event and a snapshot that contradicts the stream, but each of
those is a producer bug here. One rule is looser than it could be: without a messages snapshot
a tool call may name a parent message that nothing else mentions, because the client then
creates that assistant message itself.

The rules live in three modules: ``invariants_wire.py`` (how each event encodes),
``invariants_checker.py`` (the per-event state machine) and ``invariants_snapshot.py`` (the
messages snapshot). Everything tests use is importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError

from .invariants_checker import StreamViolation, _Checker
from .invariants_snapshot import _SnapshotCheck
from .invariants_wire import _EVENT_ADAPTER, FORBIDDEN_KEYS

__all__ = ["FORBIDDEN_KEYS", "StreamViolation", "check_stream", "client_states", "parse_sse"]

# The encoder every event is checked with, as a server would send it.
_ENCODER = EventEncoder()


def parse_sse(body: str | bytes) -> list[BaseEvent]:
    """Read SSE text as ``EventEncoder`` writes it back into typed AG-UI events."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text and not text.endswith("\n\n"):
        raise StreamViolation("sse-truncated", "the body does not end with a blank line")
    events: list[BaseEvent] = []
    for block in text.split("\n\n"):
        data = [_sse_value(line) for line in block.split("\n") if line.startswith("data:")]
        if not data:
            continue
        try:
            events.append(_EVENT_ADAPTER.validate_json("\n".join(data)))
        except ValidationError as exc:
            raise StreamViolation("sse-invalid-event", str(exc), len(events)) from exc
    return events


def _sse_value(line: str) -> str:
    """Return the value of one ``data:`` line, without the single optional space."""
    value = line[len("data:") :]
    return value[1:] if value.startswith(" ") else value


def check_stream(
    events: Sequence[BaseEvent],
    *,
    run_input: RunAgentInput | None = None,
    pre_1_0: bool = False,
    cut: bool = False,
    joined: bool = False,
) -> None:
    """Raise :class:`StreamViolation` unless ``events`` is one valid AG-UI 1.0 run.

    ``run_input`` is the request the run answered: its ids, history and tool calls are
    checked against the stream. ``pre_1_0`` adds what a client older than 1.0 rejects. ``cut``
    says the stream was stopped early and its RUN_ERROR appended: subagents may be running.
    ``joined`` says the stream joins a live run (docs/runs.md): a MESSAGES_SNAPSHOT before
    anything was streamed restates ``run_input``'s messages, and is not the run's snapshot.
    """
    checker = _Checker(run_input, pre_1_0, _ENCODER, cut, joined)
    for index, event in enumerate(events):
        checker.feed(index, event)
    snapshot = checker.finish(len(events))
    if snapshot is not None:
        _SnapshotCheck(checker, *snapshot).run()


def client_states(events: Sequence[BaseEvent]) -> list[Any]:
    """The state a client holds after each STATE_SNAPSHOT or STATE_DELTA of ``events``, the
    deltas applied as :func:`check_stream` applies them (a run with deltas on must give the
    same list as the same run with snapshots only)."""
    checker = _Checker(None, False, _ENCODER, True)
    for index, event in enumerate(events):
        checker.feed(index, event)
    return checker.states
