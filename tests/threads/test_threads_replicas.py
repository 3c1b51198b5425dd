"""Threads across server processes: a pause on one replica is resumed on another through a
real ``redis-server`` (the resume carries its entries only), the same resume sent to the first
replica runs nothing again, and a reload on either replica shows the same conversation; a
server restarted on the same SQLite file resumes the approval it paused on; and when a server
dies while an approved call runs, its lock frees itself and the call is never run again."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TextMessageContentEvent,
    UserMessage,
)

from ag_ui_openai_agents.threads import INTERRUPTED_RESULT
from support.approval_app import (
    LOCK_TTL_ENV,
    PROCESS_ENV,
    THREADS_ENV,
    TOOL_HANGS_ENV,
    refund_call_id,
)
from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes

pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("version", ["1.0", None], ids=["1.0", "pre-1.0"]),
]

APP = "support.approval_app:app"
THREAD = "thread-3b1e9c0f5a2d4e7b9c8a"
CALL = refund_call_id(1)
HYDRATION = ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]


def body(run_id: str, version: str | None, messages: list[Any], resume: Any = None) -> Any:
    return RunAgentInput(
        thread_id=THREAD,
        run_id=run_id,
        protocol_version=version,
        messages=messages,
        tools=[],
        context=[],
        state={},
        forwarded_props={},
        resume=resume,
    )


def post(
    client: httpx.Client, server: Server, run_input: RunAgentInput, history: list[Any]
) -> list[BaseEvent]:
    response = client.post(
        f"{server.url}/agent",
        json=run_input.model_dump(mode="json", by_alias=True, exclude_none=True),
        headers={"accept": "text/event-stream"},
    )
    assert response.status_code == 200, response.text
    events = parse_sse(response.content)
    trusted = run_input.model_copy(update={"messages": history})
    check_stream(events, run_input=trusted, pre_1_0=run_input.protocol_version is None)
    return events


def snapshot(events: list[BaseEvent]) -> list[Any]:
    (found,) = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
    return found.messages


def tool_runs(client: httpx.Client, server: Server) -> list[dict[str, str]]:
    runs: list[dict[str, str]] = client.get(f"{server.url}/tool-runs").json()["runs"]
    return runs


def approve() -> list[ResumeEntry]:
    return [ResumeEntry(interrupt_id=CALL, status="resolved", payload={"approved": True})]


def test_a_pause_on_one_replica_resumes_on_another(
    redis_server: str, tmp_path: Path, version: str | None
) -> None:
    envs = {name: server_env(PROCESS_ENV, name, {THREADS_ENV: redis_server}) for name in ("A", "B")}
    ask = UserMessage(id="user-1", content="Refund order 7")
    with (
        server_processes(APP, ("A", "B"), envs, tmp_path) as (a, b),
        httpx.Client(timeout=30) as client,
    ):
        paused = post(client, a, body("run-1", version, [ask]), [ask])
        shown = snapshot(paused)
        resumed = post(client, b, body("run-2", version, [], approve()), shown)
        again = post(client, a, body("run-3", version, [], approve()), [])
        reload_a = post(client, a, body("run-4", version, []), [])
        reload_b = post(client, b, body("run-5", version, []), [])
        runs_a, runs_b = tool_runs(client, a), tool_runs(client, b)

    outcome = paused[-1]
    assert isinstance(outcome, RunFinishedEvent)
    assert isinstance(outcome.outcome, RunFinishedInterruptOutcome)
    assert runs_a == [] and runs_b == [{"call_id": CALL, "order_id": "7"}]
    text = "".join(e.delta for e in resumed if isinstance(e, TextMessageContentEvent))
    assert text.startswith(f"Result of {CALL}: Refund issued for 7 by process B")
    assert [e.type.value for e in again] == HYDRATION
    assert snapshot(reload_a) == snapshot(reload_b) == snapshot(resumed)


def test_a_restarted_server_resumes_its_pause(tmp_path: Path, version: str | None) -> None:
    database = str(tmp_path / "threads.db")
    env = {"A": server_env(PROCESS_ENV, "A", {THREADS_ENV: database})}
    ask = UserMessage(id="user-1", content="Refund order 7")
    with httpx.Client(timeout=30) as client:
        with server_processes(APP, ("A",), env, tmp_path) as (first,):
            shown = snapshot(post(client, first, body("run-1", version, [ask]), [ask]))
        with server_processes(APP, ("A",), env, tmp_path) as (second,):
            reloaded = post(client, second, body("run-2", version, []), shown)
            resumed = post(client, second, body("run-3", version, [], approve()), shown)
            runs = tool_runs(client, second)

    finished = reloaded[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    assert runs == [{"call_id": CALL, "order_id": "7"}]
    assert snapshot(resumed)[: len(shown)] == shown


def test_a_crashed_servers_lock_frees_itself_and_its_call_never_runs_again(
    tmp_path: Path, version: str | None
) -> None:
    database = str(tmp_path / "threads.db")
    shared = {THREADS_ENV: database, LOCK_TTL_ENV: "1"}
    first_env = {"A": server_env(PROCESS_ENV, "A", {**shared, TOOL_HANGS_ENV: "1"})}
    second_env = {"B": server_env(PROCESS_ENV, "B", shared)}
    ask = UserMessage(id="user-1", content="Refund order 7")
    with httpx.Client(timeout=30) as client, ThreadPoolExecutor(1) as pool:
        with server_processes(APP, ("A",), first_env, tmp_path) as (first,):
            shown = snapshot(post(client, first, body("run-1", version, [ask]), [ask]))
            hanging = pool.submit(
                httpx.post,
                f"{first.url}/agent",
                json=body("run-2", version, [], approve()).model_dump(
                    mode="json", by_alias=True, exclude_none=True
                ),
                timeout=60,
            )
            while not tool_runs(client, first):  # the refund is under way
                time.sleep(0.05)
            first.process.kill()  # the server dies mid-refund, its lock still taken
        with pytest.raises(httpx.TransportError):
            hanging.result()
        with server_processes(APP, ("B",), second_env, tmp_path) as (second,):
            for attempt in range(600):  # until the dead server's lock has expired
                reload = post(client, second, body(f"run-r{attempt}", version, []), shown)
                if any(m.role == "tool" for m in snapshot(reload)):
                    break
                time.sleep(0.05)
            again = post(client, second, body("run-again", version, [], approve()), [])
            runs = tool_runs(client, second)

    results = [m.content for m in snapshot(reload) if m.role == "tool"]
    assert results == [INTERRUPTED_RESULT]
    finished = reload[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert not isinstance(finished.outcome, RunFinishedInterruptOutcome)
    assert [e.type.value for e in again] == HYDRATION
    assert runs == []
