"""Internal: log lines of bounded length, and repeated warnings summarised per request.

Much of what the package logs comes from the client: ids, MIME types, whole lists of what a
request named. A line that quotes it is cut (:func:`clipped`), so a request of megabytes never
makes a log line of megabytes; :class:`BoundedLines` cuts every message of the package's
loggers (the endpoint puts it on them, with the run's ids).

A request that repeats one mistake many times (200,000 parts of an unknown MIME type) logs it
once: inside :func:`summarised_warnings`, the warnings of the loggers passed to
:func:`summarise_repeats` are held, and each kind of warning (its logger and its format string)
is logged once when the scope ends, the first of its kind with the number of others like it.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_ID_TEXT",
    "MAX_LINE_TEXT",
    "BoundedLines",
    "clipped",
    "summarise_repeats",
    "summarised_warnings",
]

MAX_LINE_TEXT = 2_000
"""The characters of a log message the package writes: a screen of text, enough for every
message it writes about a well-formed request, and a bound on one quoting a hostile one."""

MAX_ID_TEXT = 200
"""The characters of a client's id (thread id, run id, thread key) quoted in a log line: room
for any UUID or id a client reasonably makes, not for megabytes."""


def clipped(text: str, limit: int = MAX_LINE_TEXT) -> str:
    """``text`` when it has at most ``limit`` characters, else its start and the number of
    characters it had, in at most ``limit`` characters (``limit`` of 40 or more)."""
    if len(text) <= limit:
        return text
    suffix = f"... [{len(text)} characters, cut]"
    return text[: max(0, limit - len(suffix))] + suffix


class BoundedLines(logging.Filter):
    """Cuts a record's message to :data:`MAX_LINE_TEXT` characters (a message within the bound,
    and the record's traceback, are left as they are)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args or len(str(record.msg)) > MAX_LINE_TEXT:
            try:
                message = record.getMessage()
            except Exception:  # the handler reports a record it cannot format
                return True
            if len(message) > MAX_LINE_TEXT:
                record.msg, record.args = clipped(message), None
        return True


@dataclass
class _Kind:
    """The warnings of one kind held in a scope: the first, and how many there were."""

    first: logging.LogRecord
    count: int = 1


@dataclass
class _Held:
    kinds: dict[tuple[str, str], _Kind] = field(default_factory=dict)


_scope: contextvars.ContextVar[_Held | None] = contextvars.ContextVar(
    "ag_ui_openai_agents_held_warnings", default=None
)


class _HoldRepeats(logging.Filter):
    """Holds the warnings of a logger while a :func:`summarised_warnings` scope is open."""

    def filter(self, record: logging.LogRecord) -> bool:
        held = _scope.get()
        if held is None or record.levelno != logging.WARNING:
            return True
        key = (record.name, str(record.msg))
        kind = held.kinds.get(key)
        if kind is None:
            held.kinds[key] = _Kind(record)
        else:
            kind.count += 1
        return False


_HOLD = _HoldRepeats()


class _Repeats(logging.LoggerAdapter):  # type: ignore[type-arg]
    """A logger whose repeated warnings in a scope are counted without making a record."""

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        held = _scope.get()
        kind = held.kinds.get((self.logger.name, str(msg))) if held is not None else None
        if kind is not None:
            kind.count += 1
            return
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # the caller, not this method
        self.log(logging.WARNING, msg, *args, **kwargs)


def summarise_repeats(logger: logging.Logger) -> logging.LoggerAdapter:  # type: ignore[type-arg]
    """``logger``, its warnings held while a :func:`summarised_warnings` scope is open (the
    first of a kind makes a record; the next ones are only counted)."""
    if _HOLD not in logger.filters:
        logger.addFilter(_HOLD)
    return _Repeats(logger, {})


@contextmanager
def summarised_warnings() -> Iterator[None]:
    """Hold the repeated warnings inside, and log each kind once at the end: its first record
    (cut to :data:`MAX_LINE_TEXT`), with the number of others of its kind. A scope inside
    another one is part of it."""
    if _scope.get() is not None:
        yield
        return
    held = _Held()
    token = _scope.set(held)
    try:
        yield
    finally:
        _scope.reset(token)
        for kind in held.kinds.values():
            _log_summary(kind)


def _log_summary(kind: _Kind) -> None:
    record = kind.first
    message = clipped(record.getMessage())
    if kind.count > 1:
        message = clipped(message, MAX_LINE_TEXT - 80)
        message += f" ({kind.count - 1} more like it in this request)"
    record.msg, record.args = message, None
    logging.getLogger(record.name).handle(record)
