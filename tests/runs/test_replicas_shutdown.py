"""A replica told to stop (SIGTERM) while it runs a run whose client went away: two real
uvicorn processes on one real ``redis-server``, both request kinds.

- Within the grace period the run finishes on the stopping replica, which exits only then;
  the client, reattaching to the other replica, gets the rest from Redis, and the turn is
  saved whole. The stopping replica takes no new run meanwhile (503).
- A run longer than the grace period is cut off: it ends with RUN_ERROR
  ``SERVER_SHUTTING_DOWN``, which the reattached client gets, and its turn is saved as far as
  it got.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import MessagesSnapshotEvent, RunErrorEvent, RunFinishedEvent

from ag_ui_openai_agents.server.streaming import SHUTDOWN_ERROR_CODE
from support.invariants import check_stream
from support.live_app import DELAY_ENV, GRACE_ENV, NAME_ENV, REDIS_ENV, WORDS_ENV, answer_text
from support.live_http import body, events_of, leave_after, post_blocks, reattach, text_of, user
from support.processes import STOP_SECONDS, Server, server_env, server_processes
from support.redis_server import redis_server_process

pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("version", ["1.0", None], ids=["1.0", "pre-1.0"]),
]

APP = "support.live_app:app"
THREAD = "thread-9e4d1c7a2b6f4e05"


@contextmanager
def replicas(tmp_path: Path, words: int, grace: float) -> Iterator[tuple[Server, Server]]:
    """Replicas A and B on one Redis server: answers of ``words`` words at 20 a second, and
    ``grace`` seconds of shutdown grace."""
    with redis_server_process(tmp_path / "redis") as url:
        shared = {REDIS_ENV: url, DELAY_ENV: "0.05", WORDS_ENV: str(words), GRACE_ENV: str(grace)}
        envs = {name: server_env(NAME_ENV, name, shared) for name in ("A", "B")}
        with server_processes(APP, ("A", "B"), envs, tmp_path) as servers:
            a, b = servers
            yield a, b


def messages_of(client: httpx.Client, server: Server, version: str | None) -> list[Any]:
    """The thread as a reload on ``server`` shows it."""
    blocks = post_blocks(client, server, body(THREAD, "run-reload", version, []))
    found = [e for e in events_of(blocks) if isinstance(e, MessagesSnapshotEvent)]
    return [(m.role, m.content) for m in found[-1].messages]


def terminate(server: Server) -> None:
    server.process.send_signal(signal.SIGTERM)


def test_a_run_finishes_within_the_grace_period_and_is_followed_on_another_replica(
    tmp_path: Path, version: str | None
) -> None:
    ask = user("Tell me everything", "user-1")
    run_input = body(THREAD, "run-1", version, [ask])
    with replicas(tmp_path, words=60, grace=60) as (a, b), httpx.Client(timeout=30) as client:
        seen = leave_after(client, a, run_input, 3)
        terminate(a)
        refused = client.post(f"{a.url}/agent", json={}).status_code
        rest = reattach(client, b, run_input, seen[-1], "last-event-id")
        a.process.wait(timeout=STOP_SECONDS)  # it exits by itself once the run ended
        messages = messages_of(client, b, version)

    assert refused == 503
    check_stream(events_of(seen + rest), run_input=run_input, pre_1_0=version is None)
    assert isinstance(events_of(rest)[-1], RunFinishedEvent)
    assert text_of(seen + rest) == answer_text(1, "A", 60)
    assert messages == [("user", ask.content), ("assistant", answer_text(1, "A", 60))]


def test_a_run_cut_off_by_the_grace_period_ends_with_run_error_and_keeps_its_turn(
    tmp_path: Path, version: str | None
) -> None:
    ask = user("Tell me everything", "user-1")
    run_input = body(THREAD, "run-1", version, [ask])
    with replicas(tmp_path, words=2000, grace=0.5) as (a, b), httpx.Client(timeout=30) as client:
        seen = leave_after(client, a, run_input, 3)
        terminate(a)
        rest = reattach(client, b, run_input, seen[-1], "x-last-event-id")
        a.process.wait(timeout=STOP_SECONDS)
        messages = messages_of(client, b, version)

    events = events_of(seen + rest)
    check_stream(events, run_input=run_input, pre_1_0=version is None)
    last = events[-1]
    assert isinstance(last, RunErrorEvent) and last.code == SHUTDOWN_ERROR_CODE
    said = text_of(seen + rest)
    assert len(said.split()) < 2000 and answer_text(1, "A", 2000).startswith(said)
    assert messages == [("user", ask.content), ("assistant", said)]  # what was streamed
