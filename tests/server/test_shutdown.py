"""Server shutdown: the signal hook on its own, runs in flight ending with RUN_ERROR (in a
server thread and in a real uvicorn process stopped with SIGTERM), and 503 afterwards."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, RunErrorEvent

import ag_ui_openai_agents.server.endpoint as endpoint_module
import ag_ui_openai_agents.server.streaming as streaming_module
from ag_ui_openai_agents.server.endpoint import SHUTDOWN_ERROR_CODE, SHUTDOWN_MESSAGE
from ag_ui_openai_agents.server.shutdown import ServerShutdown
from support.e2e import serve_app
from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.production_app import build_app

GUARD_SECONDS = 30.0


def body(run_id: str, *, pre_1_0: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "threadId": f"thread-{run_id}",
        "runId": run_id,
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": f"user-{run_id}", "role": "user", "content": "Orders?"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    if pre_1_0:
        del data["protocolVersion"]
    return data


# --- the signal hook -------------------------------------------------------------------------


@pytest.fixture
def restored_signals() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


async def test_the_hook_marks_the_shutdown_wakes_runs_and_calls_the_servers_handler(
    restored_signals: None,
) -> None:
    received: list[int] = []

    def server_handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    signal.signal(signal.SIGTERM, server_handler)
    shutdown = ServerShutdown()
    shutdown.watch_signals()
    shutdown.watch_signals()  # chained once only

    with shutdown.watching() as event:
        assert not event.is_set()
        signal.raise_signal(signal.SIGTERM)
        await asyncio.wait_for(event.wait(), GUARD_SECONDS)

    assert shutdown.began
    assert received == [signal.SIGTERM]
    with shutdown.watching() as late:
        assert late.is_set()


def test_default_and_ignored_dispositions_are_not_chained(restored_signals: None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    ServerShutdown().watch_signals()

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_new_server_handler_starts_afresh(restored_signals: None) -> None:
    shutdown = ServerShutdown()
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    shutdown.watch_signals()
    shutdown.begin()

    signal.signal(signal.SIGTERM, lambda signum, frame: None)  # the next server's own
    shutdown.watch_signals()

    assert not shutdown.began


def test_the_endpoint_hook_chains_once_per_process(restored_signals: None) -> None:
    def server_handler(signum: int, frame: FrameType | None) -> None:
        pass

    def later_handler(signum: int, frame: FrameType | None) -> None:
        pass

    signal.signal(signal.SIGTERM, server_handler)
    shutdown = ServerShutdown()
    elsewhere = threading.Thread(target=shutdown.watch_signals_once)
    elsewhere.start()
    elsewhere.join()
    assert signal.getsignal(signal.SIGTERM) is server_handler, "not from another thread"

    shutdown.watch_signals_once()
    chained = signal.getsignal(signal.SIGTERM)
    assert chained is not server_handler
    signal.signal(signal.SIGTERM, later_handler)
    shutdown.watch_signals_once()

    assert signal.getsignal(signal.SIGTERM) is later_handler, "chained again"
    signal.signal(signal.SIGTERM, chained)
    signal.raise_signal(signal.SIGTERM)
    assert shutdown.began


def test_nothing_is_installed_outside_the_main_thread(restored_signals: None) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        pass

    signal.signal(signal.SIGTERM, handler)
    thread = threading.Thread(target=ServerShutdown().watch_signals)
    thread.start()
    thread.join()

    assert signal.getsignal(signal.SIGTERM) is handler


async def until_printed(capsys: pytest.CaptureFixture[str], text: str) -> str:
    """Wait until the process printed ``text``; return everything printed so far."""
    printed = ""
    for _ in range(int(GUARD_SECONDS / 0.05)):
        printed += capsys.readouterr().out
        if text in printed:
            return printed
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} not printed: {printed}")


async def until_logged(server: Server, text: str, *, times: int) -> None:
    """Wait until the server process logged ``text`` ``times`` times."""
    for _ in range(int(GUARD_SECONDS / 0.05)):
        if server.logs().count(text) >= times:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} not logged {times} times:\n{server.logs()}")


def use_shutdown(monkeypatch: pytest.MonkeyPatch, shutdown: ServerShutdown) -> None:
    """Serve with ``shutdown`` as the process's shutdown state (the route and the stream)."""
    monkeypatch.setattr(endpoint_module, "server_shutdown", shutdown)
    monkeypatch.setattr(streaming_module, "server_shutdown", shutdown)


# --- runs in flight, server in a thread ------------------------------------------------------


async def read_until_tool_runs(chunks: AsyncIterator[str]) -> str:
    """Read the stream until the slow tool's call is complete (the tool is then running)."""
    raw = ""
    async for text in chunks:
        raw += text
        if '"TOOL_CALL_END"' in raw and raw.endswith("\n\n"):
            return raw
    raise AssertionError(f"the stream ended before the tool ran: {raw}")


async def test_shutdown_ends_runs_in_flight_with_run_error_and_refuses_new_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutdown = ServerShutdown()
    use_shutdown(monkeypatch, shutdown)
    app = build_app(keepalive_seconds=0.2, tool_seconds=60)

    with serve_app(app) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            async with client.stream("POST", "/agent", json=body("r1")) as response:
                chunks = response.aiter_text()
                raw = await read_until_tool_runs(chunks)
                printed = await until_printed(capsys, "slow tool started")
                shutdown.begin()
                async for text in chunks:
                    raw += text
            refused = await client.post("/agent/", json=body("r2"))
            health = await client.get("/agent/health")

    events = parse_sse(raw)
    check_stream(events)
    last = events[-1]
    assert isinstance(last, RunErrorEvent)
    assert (last.message, last.code) == (SHUTDOWN_MESSAGE, SHUTDOWN_ERROR_CODE)
    assert [e.type for e in events].count(EventType.RUN_ERROR) == 1
    assert "slow tool cancelled" in printed + capsys.readouterr().out
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["detail"] == SHUTDOWN_MESSAGE
    assert health.status_code == 503


async def test_a_run_that_already_ended_gets_no_second_terminal_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shutdown = ServerShutdown()
    use_shutdown(monkeypatch, shutdown)
    app = build_app(keepalive_seconds=None, tool_seconds=0)

    with serve_app(app) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            first = await client.post("/agent", json=body("r1"))
            shutdown.begin()
            later = await client.post("/agent", json=body("r2"))

    events = parse_sse(first.text)
    check_stream(events)
    assert events[-1].type == EventType.RUN_FINISHED
    assert later.status_code == 503


# --- a real uvicorn process stopped with SIGTERM ---------------------------------------------


@pytest.fixture
def stoppable(tmp_path: Path) -> Iterator[Server]:
    extra = {
        "PRODUCTION_APP_KEEPALIVE": "0.5",
        "PRODUCTION_APP_TOOL_SECONDS": "120",
        "PRODUCTION_APP_LOG_TO_STDOUT": "1",
        "PYTHONUNBUFFERED": "1",
    }
    envs = {"stoppable": server_env("PRODUCTION_APP_NAME", "stoppable", extra)}
    with server_processes("support.production_app:app", ("stoppable",), envs, tmp_path) as found:
        yield found[0]


@pytest.mark.slow
async def test_sigterm_ends_every_run_in_flight_cleanly(stoppable: Server) -> None:
    requests = {"run-v1": body("run-v1"), "run-v0": body("run-v0", pre_1_0=True)}

    async with httpx.AsyncClient(base_url=stoppable.url, timeout=GUARD_SECONDS) as client:

        async def run(run_id: str, started: asyncio.Event) -> str:
            async with client.stream("POST", "/agent", json=requests[run_id]) as response:
                chunks = response.aiter_text()
                raw = await read_until_tool_runs(chunks)
                started.set()
                async for text in chunks:
                    raw += text
            return raw

        flags = {run_id: asyncio.Event() for run_id in requests}
        runs = [asyncio.ensure_future(run(run_id, flags[run_id])) for run_id in requests]
        await asyncio.wait_for(asyncio.gather(*(f.wait() for f in flags.values())), GUARD_SECONDS)
        await until_logged(stoppable, "slow tool started", times=2)
        stoppable.process.send_signal(signal.SIGTERM)
        bodies = await asyncio.wait_for(asyncio.gather(*runs), GUARD_SECONDS)
    stoppable.process.wait(timeout=GUARD_SECONDS)

    for (run_id, request), raw in zip(requests.items(), bodies, strict=True):
        events = parse_sse(raw)  # raises on a cut event
        check_stream(events, pre_1_0="protocolVersion" not in request)
        last = events[-1]
        assert isinstance(last, RunErrorEvent), run_id
        assert (last.message, last.code) == (SHUTDOWN_MESSAGE, SHUTDOWN_ERROR_CODE)
        assert all(
            (block.startswith("data: ") and json.loads(block[6:])) or block == ": keepalive"
            for block in raw[:-2].split("\n\n")
        )
    logs = stoppable.logs()
    assert logs.count("slow tool started") == 2
    assert logs.count("slow tool cancelled") == 2
    assert "slow tool finished" not in logs
    for run_id in requests:
        ended = f"thread=thread-{run_id} run={run_id} AG-UI run of back-office ended: the server"
        assert ended in logs, logs
