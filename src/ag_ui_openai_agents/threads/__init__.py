"""Threads kept on the server: history, state and paused approvals that survive reloads,
restarts and replicas, and that no client can rewrite.

Give the wrapper a store and the key of a request's thread,
``OpenAIAgentsAgent(agent, threads=SQLiteThreadStore("threads.db"), thread_key=...)`` (one
machine) or ``RedisThreadStore("redis://...")`` (replicas; the ``redis`` extra). The
server's history is then the truth: a client sends only its new messages (or the whole
history, whose known messages are taken from the store), a request with nothing new is
answered from the store without calling the model, and approvals resume from the interrupts
the store holds. See docs/threads.md.
"""

from __future__ import annotations

from ag_ui_openai_agents.errors import (
    THREAD_ANSWER_CODE,
    THREAD_BUSY_CODE,
    THREAD_FULL_CODE,
    THREAD_ID_CODE,
    THREAD_KEY_CODE,
    THREAD_LOST_CODE,
    THREAD_STORE_CODE,
)
from ag_ui_openai_agents.threads.merge import INTERRUPTED_RESULT
from ag_ui_openai_agents.threads.redis_store import RedisThreadStore
from ag_ui_openai_agents.threads.runs import (
    MAX_THREAD_ID_LENGTH,
    MAX_THREAD_KEY_LENGTH,
    ThreadKey,
    single_user_threads,
    store_key,
)
from ag_ui_openai_agents.threads.sqlite_store import SQLiteThreadStore
from ag_ui_openai_agents.threads.store import (
    ThreadBusyError,
    ThreadLockLostError,
    ThreadSettings,
    ThreadStore,
)

__all__ = [
    "INTERRUPTED_RESULT",
    "MAX_THREAD_ID_LENGTH",
    "MAX_THREAD_KEY_LENGTH",
    "THREAD_ANSWER_CODE",
    "THREAD_BUSY_CODE",
    "THREAD_FULL_CODE",
    "THREAD_ID_CODE",
    "THREAD_KEY_CODE",
    "THREAD_LOST_CODE",
    "THREAD_STORE_CODE",
    "RedisThreadStore",
    "SQLiteThreadStore",
    "ThreadBusyError",
    "ThreadKey",
    "ThreadLockLostError",
    "ThreadSettings",
    "ThreadStore",
    "single_user_threads",
    "store_key",
]
