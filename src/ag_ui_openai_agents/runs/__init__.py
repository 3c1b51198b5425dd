"""Internal: runs that outlive the request that started them: every event logged with an id, so a
client that lost its stream reattaches with ``Last-Event-ID`` and gets exactly what it missed.

- :mod:`.ids`: event ids ``"<runId>.<seq>"``, log keys and request fingerprints (sans-IO).
- :mod:`.log`: the :class:`EventLog` protocol and :class:`MemoryEventLog` (one process).
- :mod:`.redis_log`: :class:`RedisEventLog` on Redis Streams (replicas; the ``redis`` extra).
- :mod:`.live`: the live runs a server process owns; :mod:`.replicas`: the same runs joined,
  stopped and superseded from other replicas, through Redis.
"""

from __future__ import annotations

from ag_ui_openai_agents.runs.ids import event_id, log_key, parse_event_id, request_fingerprint
from ag_ui_openai_agents.runs.log import (
    DEFAULT_CLAIM_EXPIRE_AFTER,
    DEFAULT_EXPIRE_AFTER,
    DEFAULT_MAX_EVENTS,
    Claim,
    EventLog,
    LogExpiredError,
    LogMeta,
    MemoryEventLog,
)
from ag_ui_openai_agents.runs.redis_log import RedisEventLog

__all__ = [
    "DEFAULT_CLAIM_EXPIRE_AFTER",
    "DEFAULT_EXPIRE_AFTER",
    "DEFAULT_MAX_EVENTS",
    "Claim",
    "EventLog",
    "LogExpiredError",
    "LogMeta",
    "MemoryEventLog",
    "RedisEventLog",
    "event_id",
    "log_key",
    "parse_event_id",
    "request_fingerprint",
]
