"""Runs across replicas: two real uvicorn processes on one real ``redis-server``. A run started
on replica A, whose client went away, is continued on B with ``Last-Event-ID`` (either
header), sent again on B from its start, joined by a reload on B, stopped from B, and
superseded by a new turn sent to B; both request kinds."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
)

from support.invariants import check_stream
from support.live_app import DELAY_ENV, NAME_ENV, REDIS_ENV, answer_text
from support.live_http import (
    Block,
    body,
    events_of,
    leave_after,
    post_blocks,
    reattach,
    stop_run,
    text_of,
    user,
)
from support.processes import Server, server_env, server_processes
from support.redis_server import redis_server_process

pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("version", ["1.0", None], ids=["1.0", "pre-1.0"]),
]

APP = "support.live_app:app"
WORDS = 40


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    """Replicas A and B of the live app on one Redis server (a run lasts about 2 s), shared by
    the module's tests: each has a thread of its own."""
    tmp_path = tmp_path_factory.mktemp("replicas")
    with redis_server_process(tmp_path / "redis") as url:
        envs = {
            name: server_env(NAME_ENV, name, {REDIS_ENV: url, DELAY_ENV: "0.05"})
            for name in ("A", "B")
        }
        with server_processes(APP, ("A", "B"), envs, tmp_path) as (a, b):
            yield a, b


@pytest.fixture
def thread() -> str:
    """A thread of the test's own on the shared replicas."""
    return f"thread-{uuid.uuid4().hex}"


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as client:
        yield client


def check_whole(
    blocks: list[Block], run_input: Any, version: str | None, *, joined: bool = False
) -> None:
    """``blocks`` are one valid run answering ``run_input``, every event with its own id."""
    check_stream(events_of(blocks), run_input=run_input, pre_1_0=version is None, joined=joined)
    ids = [block.id for block in blocks if block.id is not None]
    assert len(ids) == len(set(ids))


def snapshot_of(blocks: list[Block], position: int = -1) -> list[Any]:
    """The messages of the stream's last MESSAGES_SNAPSHOT (or the one at ``position``)."""
    found = [e for e in events_of(blocks) if isinstance(e, MessagesSnapshotEvent)]
    return list(found[position].messages)


@pytest.mark.parametrize("header", ["last-event-id", "x-last-event-id"])
def test_a_run_left_on_one_replica_is_continued_on_another(
    replicas: tuple[Server, Server],
    client: httpx.Client,
    thread: str,
    version: str | None,
    header: str,
) -> None:
    a, b = replicas
    run_input = body(thread, "run-1", version, [user("Tell me everything", "user-1")])
    seen = leave_after(client, a, run_input, 3)
    rest = reattach(client, b, run_input, seen[-1], header)
    again = post_blocks(client, b, run_input)

    assert "RUN_STARTED" not in [block.type for block in rest]
    check_whole(seen + rest, run_input, version)
    assert [block.id for block in again] == [block.id for block in seen + rest]
    assert text_of(seen + rest) == answer_text(1, "A", WORDS)
    assert isinstance(events_of(rest)[-1], RunFinishedEvent)


def test_a_reload_on_another_replica_joins_the_live_run(
    replicas: tuple[Server, Server], client: httpx.Client, thread: str, version: str | None
) -> None:
    a, b = replicas
    ask = user("Tell me everything", "user-1")
    run_input = body(thread, "run-1", version, [ask])
    leave_after(client, a, run_input, 2)
    reload = body(thread, "run-2", version, [])
    joined = post_blocks(client, b, reload)
    after = post_blocks(client, b, body(thread, "run-3", version, []))

    started = events_of(joined)[0]
    assert isinstance(started, RunStartedEvent) and started.run_id == "run-1"
    check_whole(joined, run_input, version, joined=True)
    assert snapshot_of(joined, 0) == [ask]
    assert text_of(joined) == answer_text(1, "A", WORDS)
    assert [m.content for m in snapshot_of(after)] == [ask.content, answer_text(1, "A", WORDS)]


def test_a_run_on_one_replica_is_stopped_from_another(
    replicas: tuple[Server, Server], client: httpx.Client, thread: str, version: str | None
) -> None:
    a, b = replicas
    ask = user("Tell me everything", "user-1")
    run_input = body(thread, "run-1", version, [ask])
    seen = leave_after(client, a, run_input, 3)
    status = stop_run(client, b, thread, "run-1")
    rest = reattach(client, b, run_input, seen[-1], "last-event-id")
    stranger = stop_run(client, b, "thread-of-nobody", "run-1")
    reload = post_blocks(client, b, body(thread, "run-2", version, []))

    assert status == stranger == 202
    last = events_of(rest)[-1]
    if version is None:
        assert isinstance(last, RunErrorEvent) and last.code == "RUN_STOPPED"
    else:
        assert isinstance(last, RunFinishedEvent)
        assert isinstance(last.outcome, RunFinishedCancelledOutcome)
    said = text_of(seen + rest)
    assert said and answer_text(1, "A", WORDS).startswith(said) and len(said.split()) < WORDS
    messages = snapshot_of(reload)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].content == said  # what was streamed, no more


def test_a_new_turn_on_another_replica_supersedes_an_unwatched_run(
    replicas: tuple[Server, Server], client: httpx.Client, thread: str, version: str | None
) -> None:
    a, b = replicas
    first = user("Tell me everything", "user-1")
    leave_after(client, a, body(thread, "run-1", version, [first]), 2)
    second = user("Now something else", "user-2")
    run_input = body(thread, "run-2", version, [second])
    answered = post_blocks(client, b, run_input)

    check_stream(events_of(answered), pre_1_0=version is None)
    assert text_of(answered) == answer_text(2, "B", WORDS)
    messages = snapshot_of(answered)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    cut = messages[1].content
    assert cut and answer_text(1, "A", WORDS).startswith(cut) and cut != answer_text(1, "A", WORDS)
