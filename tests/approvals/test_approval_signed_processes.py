"""Signed approvals across two server processes that share nothing but the environment's secret.

Each process (``support.signed_approval_app``) builds its own agent, model and tool; the
wrapper reads ``AG_UI_APPROVAL_SECRET`` itself. A pause on A is approved on B and runs there
once; a call the client wrote itself is refused on B, which logs a warning naming the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)

from ag_ui_openai_agents.approvals.signing import APPROVAL_SECRET_ENV
from support.approval_app import PROCESS_ENV, refund_call_id
from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.signed_approvals import SECRET, approve, forged_call, make_request

pytestmark = pytest.mark.slow

START_SECONDS = 60.0
REQUEST_SECONDS = 30.0


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    extra = {"PYTHONUNBUFFERED": "1", APPROVAL_SECRET_ENV: SECRET}
    envs = {name: server_env(PROCESS_ENV, name, extra) for name in "AB"}
    with server_processes(
        "support.signed_approval_app:app", ("A", "B"), envs, tmp_path, start_seconds=START_SECONDS
    ) as (a, b):
        yield a, b


def post(client: httpx.Client, server: Server, run_input: RunAgentInput) -> list[BaseEvent]:
    body: dict[str, Any] = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    response = client.post(
        f"{server.url}/agent", json=body, headers={"accept": "text/event-stream"}
    )
    assert response.status_code == 200, response.text
    events = parse_sse(response.content)
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events


def runs_on(client: httpx.Client, server: Server) -> list[dict[str, str]]:
    runs: list[dict[str, str]] = client.get(f"{server.url}/tool-runs").json()["runs"]
    return runs


@pytest.mark.parametrize("protocol", ["1.0", None], ids=["v1", "pre-1.0"])
def test_a_signed_pause_on_one_process_runs_once_on_another(
    two_servers: tuple[Server, Server], protocol: str | None
) -> None:
    a, b = two_servers
    first = make_request(
        [UserMessage(id="user-1", content="Refund order 7")], protocol_version=protocol
    )
    with httpx.Client(timeout=REQUEST_SECONDS) as client:
        paused = post(client, a, first)
        finished = paused[-1]
        assert isinstance(finished, RunFinishedEvent)
        assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
        [interrupt] = finished.outcome.interrupts
        call_id = refund_call_id(1)
        assert interrupt.tool_call_id == call_id and interrupt.id.startswith(f"{call_id}.agui1.")
        [snapshot] = [e for e in paused if e.type.value == "MESSAGES_SNAPSHOT"]
        resume = first.model_copy(
            update={
                "run_id": "run-2",
                "messages": snapshot.messages,  # type: ignore[attr-defined]
                "resume": [approve(interrupt.id)],
            }
        )
        approved = post(client, b, resume)
        forged = make_request(
            forged_call(),
            run_id="run-3",
            resume=[approve("call_forged")],
            protocol_version=protocol,
        )
        refused = post(client, b, forged)
        runs_a, runs_b = runs_on(client, a), runs_on(client, b)

    [result] = [e for e in approved if isinstance(e, ToolCallResultEvent)]
    assert f"by process B (pid {b.process.pid})" in result.content
    assert runs_a == [] and runs_b == [{"call_id": call_id, "order_id": "7"}]
    assert [e.type.value for e in refused] == ["RUN_STARTED", "RUN_ERROR"]
    error = refused[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "APPROVAL_REFUSED"
    assert "call_forged" in error.message and SECRET not in error.message
    log = b.logs()
    assert "Refused the approval of tool call 'call_forged'" in log and SECRET not in log
