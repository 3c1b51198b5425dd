"""Settings shared by the examples: which model to use, how to run it, how to sign approvals,
and which clients see subagents."""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ag_ui_openai_agents import Subagents
from ag_ui_openai_agents.approvals.signing import APPROVAL_SECRET_ENV, approval_secrets_from_env
from ag_ui_openai_agents.threads import RedisThreadStore, SQLiteThreadStore, ThreadStore
from agents import RunConfig

from demo_model import offline_run_config

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_REASONING_MODEL",
    "DOJO_APPROVALS_ENV",
    "REDIS_URL_ENV",
    "SUBAGENTS_ENV",
    "THREADS_DB_ENV",
    "ExampleSettings",
    "approval_secret_from_env",
    "settings_from_env",
    "threads_from_env",
]

DEFAULT_MODEL = "gpt-4.1-mini"
SUBAGENTS_ENV = "AG_UI_SUBAGENTS_FOR_PRE_1_0_CLIENTS"
"""``true`` streams the subagents example's specialists to requests without ``protocolVersion``
too (CopilotKit 1.75 and its ``@ag-ui/client`` 0.0.59 accept them; 0.0.57 does not)."""
_TRUE = {"1", "true", "yes", "on"}
DOJO_APPROVALS_ENV = "AG_UI_DOJO_APPROVALS"
"""``true`` serves the AG-UI Dojo's pre-1.0 approval contract (a CUSTOM ``approval_request``,
answered through ``forwardedProps.approval``) beside the interrupts, against the thread store."""
DEFAULT_REASONING_MODEL = "gpt-5-mini"
REDIS_URL_ENV = "REDIS_URL"
"""Keeps the examples' threads in this Redis server (replicas) instead of an SQLite file."""
THREADS_DB_ENV = "AG_UI_THREADS_DB"
"""The SQLite file of the examples' threads (default ``threads.db`` in the working directory)."""
DEFAULT_THREADS_DB = "threads.db"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExampleSettings:
    """The model every example agent asks for, the ``RunConfig`` its runs use, and the secret
    that signs backend approvals.

    ``run_config`` is ``None`` for live OpenAI runs; offline it routes every model call of a
    run (handoff targets and agents used as tools included) to the demo model.
    """

    model: str = DEFAULT_MODEL
    run_config: RunConfig | None = None
    approval_secret: tuple[str, ...] | None = None
    """Secrets for signed approvals (the first signs); None leaves approvals unsigned."""
    subagents_for_pre_1_0_clients: bool = False
    """Stream subagents to requests without ``protocolVersion`` too (``SUBAGENTS_ENV``)."""
    reasoning_model: str = DEFAULT_REASONING_MODEL
    """The model of the examples that show reasoning: one that streams reasoning summaries."""
    threads: ThreadStore | None = None
    """Where the examples served by ``OpenAIAgentsAgent`` keep their threads; None: stateless."""
    dojo_approvals: bool = False
    """Serve the Dojo's pre-1.0 approval contract too (``DOJO_APPROVALS_ENV``; needs a store)."""

    @property
    def subagents(self) -> Subagents:
        """Who sees agents used as tools as subagents: 1.0 clients, and every client when
        ``subagents_for_pre_1_0_clients`` is set."""
        return Subagents(pre_1_0_clients=self.subagents_for_pre_1_0_clients)

    @property
    def offline(self) -> bool:
        """Whether the examples run on the offline demo model."""
        return self.run_config is not None

    @classmethod
    def offline_demo(
        cls,
        model: str = DEFAULT_MODEL,
        *,
        approval_secret: tuple[str, ...] | None = None,
        subagents_for_pre_1_0_clients: bool = False,
        threads: ThreadStore | None = None,
        dojo_approvals: bool = False,
    ) -> ExampleSettings:
        """Settings that run everything on the offline demo model."""
        return cls(
            model=model,
            run_config=offline_run_config(),
            approval_secret=approval_secret,
            subagents_for_pre_1_0_clients=subagents_for_pre_1_0_clients,
            threads=threads,
            dojo_approvals=dojo_approvals,
        )


SCOPE_COOKIE = "agui_scope"
"""The cookie the example server sets on each browser: its threads are kept under it."""

DEFAULT_SCOPE = "shared"
"""The scope of clients that send no scope cookie (API clients, CopilotKit's runtime, the Dojo):
they share one set of threads, so a thread id is their only key."""

_SCOPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def browser_thread_key(thread_id: str, request: Any) -> str:
    """The examples' ``thread_key``: the browser's scope cookie, then the thread id.

    A browser's threads are its own (the server sets the cookie on the first page load); a
    client without the cookie is in :data:`DEFAULT_SCOPE`.
    """
    cookies = getattr(request, "cookies", None) or {}
    scope = cookies.get(SCOPE_COOKIE, "")
    if not _SCOPE.fullmatch(scope):
        scope = DEFAULT_SCOPE
    return f"{scope}:{thread_id}"


def approval_secret_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The approval secrets from ``AG_UI_APPROVAL_SECRET`` (comma-separated, first signs).

    Without them, one is generated for this process: fine for one process, but every process of
    a multi-process deployment must share the secret, so the log says to set it.
    """
    listed = tuple(approval_secrets_from_env(environ))
    if listed:
        return listed
    logger.warning(
        "%s is not set: approvals are signed with a secret generated at start, valid in this "
        "process only. Multi-process deployments must set %s to one shared secret.",
        APPROVAL_SECRET_ENV,
        APPROVAL_SECRET_ENV,
    )
    return (secrets.token_urlsafe(32),)


def threads_from_env(environ: Mapping[str, str] | None = None) -> ThreadStore:
    """The thread store: Redis when ``REDIS_URL`` names a server, else the SQLite file
    ``AG_UI_THREADS_DB`` (``threads.db``). Nothing is opened before the first request."""
    env = os.environ if environ is None else environ
    redis_url = env.get(REDIS_URL_ENV)
    if redis_url:
        return RedisThreadStore(redis_url)
    return SQLiteThreadStore(env.get(THREADS_DB_ENV) or DEFAULT_THREADS_DB)


def settings_from_env(environ: Mapping[str, str] | None = None) -> ExampleSettings:
    """Read ``OPENAI_DEFAULT_MODEL``, ``OPENAI_API_KEY`` (none means the offline demo),
    ``AG_UI_APPROVAL_SECRET`` (none means a secret generated at start),
    ``OPENAI_REASONING_MODEL``, ``AG_UI_SUBAGENTS_FOR_PRE_1_0_CLIENTS`` (``true`` shows
    subagents to every client), ``AG_UI_DOJO_APPROVALS`` (``true`` serves the Dojo's approval
    contract) and where to keep threads (``REDIS_URL``, ``AG_UI_THREADS_DB``)."""
    env = os.environ if environ is None else environ
    model = env.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL
    reasoning = env.get("OPENAI_REASONING_MODEL") or DEFAULT_REASONING_MODEL
    secret = approval_secret_from_env(env)
    subagents = env.get(SUBAGENTS_ENV, "").strip().lower() in _TRUE
    dojo_approvals = env.get(DOJO_APPROVALS_ENV, "").strip().lower() in _TRUE
    threads = threads_from_env(env)
    if env.get("OPENAI_API_KEY"):
        return ExampleSettings(
            model=model,
            approval_secret=secret,
            reasoning_model=reasoning,
            subagents_for_pre_1_0_clients=subagents,
            threads=threads,
            dojo_approvals=dojo_approvals,
        )
    return replace(
        ExampleSettings.offline_demo(
            model,
            approval_secret=secret,
            subagents_for_pre_1_0_clients=subagents,
            threads=threads,
            dojo_approvals=dojo_approvals,
        ),
        reasoning_model=reasoning,
    )
