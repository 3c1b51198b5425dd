"""The package's loggers, and the thread and run ids on every record logged during a run.

Every module logs to ``logging.getLogger(__name__)``, so all records come from the hierarchy
under ``ag_ui_openai_agents`` (``ag_ui_openai_agents.server.endpoint``, ``.agent``, ``.translator``
...). Where records go is the application's choice. Until it makes one, the package's
warnings and errors are not lost: a fallback handler on the ``ag_ui_openai_agents`` logger
writes them to stderr, with the run's ids, while no other handler would receive them (no
handler on the root logger, none on the package's loggers), as under a plain
``uvicorn app:app``. Configure the root logger (``logging.basicConfig``, ``dictConfig``) or
put a handler on the ``ag_ui_openai_agents`` logger, and the fallback steps aside.

While a run is served, its ids live in a context variable. :class:`RunIdsFilter` copies them
onto each record as ``record.thread_id`` and ``record.run_id`` (None outside a run). The ids
come from the client, so control characters in them are escaped (``\\n`` for a newline, and a
backslash is doubled): an id cannot start a line of its own in a text log, and an id longer
than 200 characters is cut there (with its length), so a megabyte id is not written out with
every record of its run. The endpoint puts that filter on the package's loggers, with one that
cuts each message to 2,000 characters. Add :class:`RunIdsFilter` to one of your handlers to
stamp the records of every logger (your tools', the SDK's) the same way::

    handler = logging.StreamHandler()
    handler.addFilter(RunIdsFilter())
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(run_id)s %(message)s"))
"""

from __future__ import annotations

import contextvars
import logging
import re
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ag_ui_openai_agents.log_lines import MAX_ID_TEXT, BoundedLines, clipped

__all__ = [
    "FALLBACK_FORMAT",
    "PACKAGE_LOGGER",
    "RunIds",
    "RunIdsFilter",
    "context_with_run_ids",
    "current_run_ids",
    "install_run_ids_filter",
    "run_ids",
    "run_logger",
]

PACKAGE_LOGGER = "ag_ui_openai_agents"
"""The name of the root of the package's logger hierarchy."""


_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\u{ord(char):04x}"


def _escaped(text: str) -> str:
    """``text`` safe for one line of a text log: cut to ``MAX_ID_TEXT`` characters, control and
    line-separator characters as backslash escapes, and a backslash doubled. Plain text of
    that length comes back unchanged."""
    return clipped(_UNSAFE.sub(_escape, clipped(text, MAX_ID_TEXT)), MAX_ID_TEXT)


@dataclass(frozen=True)
class RunIds:
    """The AG-UI ids of the run being served."""

    thread_id: str
    """``RunAgentInput.thread_id``."""
    run_id: str
    """``RunAgentInput.run_id``."""


_current: contextvars.ContextVar[RunIds | None] = contextvars.ContextVar(
    "ag_ui_openai_agents_run_ids", default=None
)


def current_run_ids() -> RunIds | None:
    """The ids of the run the calling code belongs to, or None outside a run."""
    return _current.get()


@contextmanager
def run_ids(thread_id: str, run_id: str) -> Iterator[RunIds]:
    """Mark the code inside (and the tasks it starts) as belonging to one run.

    For custom servers built on ``AGUITranslator``; enter and leave it in the same task.
    """
    ids = RunIds(thread_id, run_id)
    token = _current.set(ids)
    try:
        yield ids
    finally:
        _current.reset(token)


def context_with_run_ids(thread_id: str, run_id: str) -> contextvars.Context:
    """A copy of the current context in which the run's ids are set (for a run's own task)."""
    context = contextvars.copy_context()
    context.run(_current.set, RunIds(thread_id, run_id))
    return context


class RunIdsFilter(logging.Filter):
    """Add ``thread_id`` and ``run_id`` to every record (ids given in ``extra`` are kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = _current.get()
        if not hasattr(record, "run_id"):
            record.run_id = _escaped(ids.run_id) if ids is not None else None
        if not hasattr(record, "thread_id"):
            record.thread_id = _escaped(ids.thread_id) if ids is not None else None
        return True


_FILTER = RunIdsFilter()
_BOUNDED = BoundedLines()
_seen_loggers = -1


def install_run_ids_filter() -> None:
    """Put :class:`RunIdsFilter`, and a filter that cuts each message to 2,000 characters, on
    every logger of the package's hierarchy.

    A filter on a logger sees only the records logged to that very logger, so each one gets
    it. The endpoint calls it when it is added, not per request: every module of the package
    is imported by then. Calling it again looks at the loggers only when their number changed.
    """
    global _seen_loggers
    registry = logging.Logger.manager.loggerDict
    if len(registry) == _seen_loggers:
        return
    _seen_loggers = len(registry)
    for name, candidate in list(registry.items()):
        in_package = name == PACKAGE_LOGGER or name.startswith(PACKAGE_LOGGER + ".")
        if not in_package or not isinstance(candidate, logging.Logger):
            continue
        if not any(isinstance(f, RunIdsFilter) for f in candidate.filters):
            candidate.addFilter(_FILTER)
        if not any(isinstance(f, BoundedLines) for f in candidate.filters):
            candidate.addFilter(_BOUNDED)


class _RunLogger(logging.LoggerAdapter):  # type: ignore[type-arg]
    """A logger whose records carry one run's ids, wherever they are logged from."""

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, Any]:
        kwargs["extra"] = {**(self.extra or {}), **kwargs.get("extra", {})}
        return msg, kwargs


def run_logger(logger: logging.Logger, ids: RunIds) -> logging.LoggerAdapter:  # type: ignore[type-arg]
    """``logger`` with the run's ids on every record (for code outside the run's context)."""
    return _RunLogger(
        logger, {"thread_id": _escaped(ids.thread_id), "run_id": _escaped(ids.run_id)}
    )


FALLBACK_FORMAT = "%(levelname)s %(name)s%(run_ids)s: %(message)s"
"""How the fallback handler writes a record: ``run_ids`` is `` [thread=... run=...]`` during a
run, empty outside one; a traceback follows on the next lines."""


class _FallbackFormatter(logging.Formatter):
    """:data:`FALLBACK_FORMAT`, the run's ids shown only when the record has them."""

    def format(self, record: logging.LogRecord) -> str:
        thread_id = getattr(record, "thread_id", None)
        run_id = getattr(record, "run_id", None)
        shown = thread_id is not None or run_id is not None
        record.run_ids = f" [thread={thread_id} run={run_id}]" if shown else ""
        return super().format(record)


class _StderrFallback(logging.Handler):
    """The package's warnings and errors on stderr while the application configured nothing.

    A record is written only when no other handler on its way up the logger hierarchy would
    receive it: the first handler the application adds to the root logger or to one of the
    package's loggers turns this one off, for every record after it, without a call.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.addFilter(RunIdsFilter())
        self.addFilter(_BOUNDED)
        self.setFormatter(_FallbackFormatter(FALLBACK_FORMAT))

    def handle(self, record: logging.LogRecord) -> bool:
        if self._others_receive(record.name):
            return False
        return bool(super().handle(record))

    def _others_receive(self, name: str) -> bool:
        """Whether a handler other than this one is on the way of ``name``'s records."""
        logger: logging.Logger | None = logging.getLogger(name)
        while logger is not None:
            if any(handler is not self for handler in logger.handlers):
                return True
            if not logger.propagate:
                return False
            logger = logger.parent
        return False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr  # looked up on each record, as logging.lastResort does
            stream.write(self.format(record) + "\n")
            stream.flush()
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)


logging.getLogger(PACKAGE_LOGGER).addHandler(_StderrFallback())
