"""A hostile client against the example server, above all its routes written by hand
(``ag_ui_docs_copilot``, ``custom_lifecycle_events``, ``human_in_the_loop_approval``).

They get the shortcut's edge from the package's pieces: the body cap and short 422s of
``RequestLimitMiddleware``, and the keepalive, safe errors, terminal event and shutdown
handling of ``agui_sse_response``. Each attack runs through the real app on both request kinds,
bounded in size, asserting counts and codes (no timings); every stream collected is checked.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import ag_ui_openai_agents.server.endpoint as endpoint_module
import ag_ui_openai_agents.server.streaming as streaming_module
import httpx
import pytest
from ag_ui.core import (
    EventType,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedInterruptOutcome,
    StepFinishedEvent,
    StepStartedEvent,
)
from ag_ui_openai_agents.server.shutdown import ServerShutdown
from agents import RunConfig
from agents.models.interface import Model, ModelProvider
from support.e2e import serve_app
from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn

import agents_examples.human_in_the_loop_approval as approval_example
from agents_examples import EXAMPLES, ExampleSettings
from example_client import Chat, post_run
from server import create_app

HAND_WRITTEN = ["ag_ui_docs_copilot", "custom_lifecycle_events", "human_in_the_loop_approval"]
LIMIT = 4096
CHUNK = 1024
SECRET = "password=hunter2 key=sk-test-LEAK at /srv/app/settings.py"
GUARD_SECONDS = 30.0
KINDS = pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1.0", "pre-1.0"])


def body(*, pre_1_0: bool, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "threadId": "thread-1",
        "runId": "run-1",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": "Refund 30 on order A-17."}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **changes,
    }
    if pre_1_0:
        del data["protocolVersion"]
    return data


def checked(raw: str, request: dict[str, Any]) -> list[Any]:
    events = parse_sse(raw)
    run_input = RunAgentInput.model_validate(request)
    check_stream(events, run_input=run_input, pre_1_0="protocolVersion" not in request)
    return events


def client_of(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://examples")


class LeakingProvider(ModelProvider):
    """A model lookup failing with text that must stay on the server."""

    def get_model(self, model_name: str | None) -> Model:
        raise RuntimeError(SECRET)


def scripted(model: ScriptedResponsesModel, secret: bool = False) -> ExampleSettings:
    return ExampleSettings(
        run_config=RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True),
        approval_secret=("s" * 32,) if secret else None,
    )


async def chunked(total: int, pulled: list[int]) -> AsyncIterator[bytes]:
    yield b'{"threadId": "t", "runId": "r", "messages": [], "state": "'
    for _ in range(total // CHUNK):
        pulled.append(CHUNK)
        yield b"x" * CHUNK
    yield b'"}'


@pytest.mark.parametrize("name", HAND_WRITTEN)
@KINDS
async def test_a_chunked_body_over_the_limit_is_refused_at_the_limit(
    name: str, pre_1_0: bool, settings: ExampleSettings
) -> None:
    pulled: list[int] = []
    async with client_of(create_app(settings, max_request_bytes=LIMIT)) as client:
        response = await client.post(
            f"/{name}",
            content=chunked(150 * LIMIT, pulled),
            headers={"content-type": "application/json"},
        )

    assert response.status_code == 413
    assert sum(pulled) <= LIMIT + CHUNK


@pytest.mark.parametrize("name", HAND_WRITTEN)
@KINDS
async def test_a_large_invalid_body_gets_a_short_422(
    name: str, pre_1_0: bool, settings: ExampleSettings
) -> None:
    request = body(pre_1_0=pre_1_0, threadId=None)
    request["messages"].append({"id": "u2", "role": "wizard", "content": "y" * 1_000_000})

    async with client_of(create_app(settings)) as client:
        response = await client.post(f"/{name}", json=request)

    assert response.status_code == 422
    assert len(response.content) < 8192
    assert ["body", "threadId"] in [error["loc"] for error in response.json()["detail"]]


@pytest.mark.parametrize("name", list(EXAMPLES))
@KINDS
async def test_no_route_sends_exception_text(name: str, pre_1_0: bool) -> None:
    settings = ExampleSettings(
        run_config=RunConfig(model_provider=LeakingProvider(), tracing_disabled=True)
    )
    request = body(pre_1_0=pre_1_0)

    async with client_of(create_app(settings)) as client:
        response = await client.post(f"/{name}", json=request)

    end = checked(response.text, request)[-1]
    assert isinstance(end, RunErrorEvent) and end.code == "AGENT_ERROR"
    assert "hunter2" not in response.text and "sk-test" not in response.text
    assert "/srv/app" not in response.text


@KINDS
async def test_deeply_nested_tool_arguments_end_the_approval_stream_with_run_error(
    pre_1_0: bool,
) -> None:
    depth = 100_000
    function = {"name": "issue_refund", "arguments": "[" * depth + "]" * depth}
    request = body(pre_1_0=pre_1_0)
    request["messages"].append(
        {
            "id": "assistant-1",
            "role": "assistant",
            "toolCalls": [{"id": "call-1", "type": "function", "function": function}],
        }
    )
    request["resume"] = [
        {"interruptId": "call-1", "status": "resolved", "payload": {"approved": True}}
    ]
    settings = ExampleSettings.offline_demo(approval_secret=("s" * 32,))

    async with client_of(create_app(settings)) as client:
        response = await client.post("/human_in_the_loop_approval", json=request)

    assert response.status_code == 200
    events = checked(response.text, request)  # a cut stream has no terminal event: it fails
    assert isinstance(events[-1], RunErrorEvent)
    assert "recursion" not in response.text.lower()


@pytest.mark.parametrize("name", HAND_WRITTEN)
@KINDS
async def test_shutdown_stops_hand_written_runs_with_their_steps_finished(
    name: str, pre_1_0: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutdown = ServerShutdown()
    monkeypatch.setattr(endpoint_module, "server_shutdown", shutdown)
    monkeypatch.setattr(streaming_module, "server_shutdown", shutdown)
    stalled = ScriptedResponsesModel([Turn([Text("never")], delay=3600)])
    request = body(pre_1_0=pre_1_0)

    with serve_app(create_app(scripted(stalled))) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            async with client.stream("POST", f"/{name}", json=request) as response:
                raw = ""
                chunks = response.aiter_text()
                async for text in chunks:
                    raw += text
                    if '"STEP_STARTED"' in raw and raw.endswith("\n\n"):
                        break
                shutdown.begin()
                async for text in chunks:
                    raw += text
            later = await client.post(f"/{name}", json=request)

    events = checked(raw, request)
    started = [e.step_name for e in events if isinstance(e, StepStartedEvent)]
    assert started == [e.step_name for e in events if isinstance(e, StepFinishedEvent)]
    end = events[-1]
    assert isinstance(end, RunErrorEvent) and end.code == "SERVER_SHUTTING_DOWN"
    assert [e.type for e in events].count(EventType.RUN_ERROR) == 1
    assert later.status_code == 503


class CountingLedger(dict[tuple[str, str], str]):
    """The refund ledger, counting the refunds written into it."""

    writes = 0

    def __setitem__(self, key: tuple[str, str], value: str) -> None:
        self.writes += 1
        super().__setitem__(key, value)


@pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["v1.0", "pre-1.0"])
async def test_the_refund_is_made_once_per_approved_call(
    protocol_version: str | None, settings: ExampleSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = CountingLedger()
    monkeypatch.setattr(approval_example, "REFUNDS", ledger)

    async with client_of(create_app(settings)) as client:
        chat = Chat(client, "/human_in_the_loop_approval", protocol_version=protocol_version)
        paused = await chat.say("Please refund 30 dollars on order A-17")
        assert isinstance(paused.finished.outcome, RunFinishedInterruptOutcome)
        [(call_id, _, _)] = paused.tool_calls
        approve = [ResumeEntry(interrupt_id=call_id, status="resolved", payload={"approved": True})]
        resend = chat.request(resume=approve)
        first = await post_run(client, "/human_in_the_loop_approval", resend)
        again = await post_run(client, "/human_in_the_loop_approval", resend)

    assert first.results[call_id] == again.results[call_id] == "Refunded 30.00 USD on order A-17."
    assert ledger.writes == 1
    assert list(ledger) == [("shared:thread-1", call_id)]


@pytest.fixture
def stalled_server(tmp_path: Path) -> Iterator[Server]:
    """The example server, on a model that never answers, in a process of its own."""
    here = Path(__file__).resolve().parent
    paths = [str(here.parents[1] / "tests"), str(here.parent), str(here)]
    env = server_env("EXAMPLE_NAME", "stalled")
    env["PYTHONPATH"] = os.pathsep.join(paths)
    with server_processes(
        "stalled_app:app", ("stalled",), {"stalled": env}, tmp_path, health_path="/health"
    ) as [server]:
        yield server


@pytest.mark.slow
@KINDS
async def test_sigterm_stops_the_hand_written_routes_and_the_process(
    stalled_server: Server, pre_1_0: bool
) -> None:
    request = body(pre_1_0=pre_1_0)

    async with httpx.AsyncClient(base_url=stalled_server.url, timeout=GUARD_SECONDS) as client:

        async def run(name: str, started: asyncio.Event) -> str:
            async with client.stream("POST", f"/{name}", json=request) as response:
                raw = ""
                async for text in response.aiter_text():
                    raw += text
                    if '"STEP_STARTED"' in raw and raw.endswith("\n\n"):
                        started.set()
            return raw

        flags = {name: asyncio.Event() for name in HAND_WRITTEN}
        runs = [asyncio.ensure_future(run(name, flags[name])) for name in HAND_WRITTEN]
        await asyncio.wait_for(asyncio.gather(*(f.wait() for f in flags.values())), GUARD_SECONDS)
        stalled_server.process.send_signal(signal.SIGTERM)
        bodies = await asyncio.wait_for(asyncio.gather(*runs), GUARD_SECONDS)
    stalled_server.process.wait(timeout=GUARD_SECONDS)  # it exits; it does not wait an hour

    for raw in bodies:
        events = checked(raw, request)
        end = events[-1]
        assert isinstance(end, RunErrorEvent) and end.code == "SERVER_SHUTTING_DOWN"
        started = [e.step_name for e in events if isinstance(e, StepStartedEvent)]
        assert started == [e.step_name for e in events if isinstance(e, StepFinishedEvent)]
