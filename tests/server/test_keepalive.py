"""Keepalive: ``paced`` on its own, then SSE comments from a real uvicorn process and the real
TypeScript clients reading a stream that has them."""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ag_ui_openai_agents.server.endpoint import KEEPALIVE_COMMENT
from ag_ui_openai_agents.server.keepalive import BUFFERED_ITEMS, Pause, paced
from support.e2e import CLIENT_VERSIONS, ensure_node_modules, run_client, serve_app, turn_errors
from support.invariants import check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.production_app import build_app

GUARD_SECONDS = 30.0  # only bounds a broken test; nothing is asserted about time


class Gate:
    """A source the test drives: each ``open()`` lets one item through."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.cancelled = 0
        self.closed = False
        self.tasks: set[asyncio.Task[Any] | None] = set()
        self.var: contextvars.ContextVar[str] = contextvars.ContextVar("gate", default="unset")
        self.seen_var: list[str] = []

    def open(self, item: Any) -> None:
        self.queue.put_nowait(item)

    async def source(self) -> AsyncGenerator[Any, None]:
        try:
            while True:
                self.tasks.add(asyncio.current_task())
                self.seen_var.append(self.var.get())
                try:
                    item = await self.queue.get()
                except asyncio.CancelledError:
                    self.cancelled += 1
                    raise
                if item is StopAsyncIteration:
                    return
                if isinstance(item, Exception):
                    raise item
                self.var.set(f"after {item}")
                yield item
        finally:
            self.closed = True


async def take(items: AsyncIterator[Any], count: int) -> list[Any]:
    async def run() -> list[Any]:
        return [await anext(items) for _ in range(count)]

    return await asyncio.wait_for(run(), GUARD_SECONDS)


async def next_item(items: AsyncIterator[Any]) -> Any:
    """The next item that is not a keepalive."""
    while (item := await asyncio.wait_for(anext(items), GUARD_SECONDS)) is Pause.KEEPALIVE:
        pass
    return item


# --- paced -----------------------------------------------------------------------------------


async def test_a_silent_source_gets_keepalives_and_is_never_interrupted() -> None:
    gate = Gate()
    items = paced(gate.source(), keepalive_seconds=0.01)

    assert await take(items, 3) == [Pause.KEEPALIVE] * 3
    gate.open("first")
    assert await next_item(items) == "first"
    assert await take(items, 2) == [Pause.KEEPALIVE] * 2
    gate.open("second")
    assert await next_item(items) == "second"
    gate.open(StopAsyncIteration)
    assert [item async for item in items if item is not Pause.KEEPALIVE] == []

    assert gate.cancelled == 0  # the timer never cancelled the step in progress
    assert gate.closed


async def test_items_pass_at_once_and_without_keepalive_when_they_keep_coming() -> None:
    gate = Gate()
    for item in ("a", "b", "c", StopAsyncIteration):
        gate.open(item)

    # With an hour between keepalives, any wait on the timer would hang the test.
    items = paced(gate.source(), keepalive_seconds=3600)
    received = await asyncio.wait_for(_all(items), GUARD_SECONDS)

    assert received == ["a", "b", "c"]


async def _all(items: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in items]


async def test_the_source_runs_in_one_task_that_keeps_its_context() -> None:
    gate = Gate()
    context = contextvars.copy_context()
    context.run(gate.var.set, "from the edge")
    items = paced(gate.source(), keepalive_seconds=0.01, context=context)

    for item in ("x", "y"):
        gate.open(item)
        assert await next_item(items) == item
    gate.open(StopAsyncIteration)
    await _all(items)

    assert len(gate.tasks) == 1
    assert asyncio.current_task() not in gate.tasks
    assert gate.seen_var == ["from the edge", "after x", "after y"]
    assert gate.var.get() == "unset"  # nothing leaks into the consumer


async def test_the_sources_error_comes_after_its_items() -> None:
    gate = Gate()
    gate.open("last words")
    gate.open(RuntimeError("the run failed"))
    items = paced(gate.source(), keepalive_seconds=0.01)

    assert await next_item(items) == "last words"
    with pytest.raises(RuntimeError, match="the run failed"):
        await next_item(items)
    assert gate.closed


async def test_closing_cancels_and_closes_the_source() -> None:
    gate = Gate()
    items = paced(gate.source(), keepalive_seconds=0.01)
    gate.open("one")
    assert await next_item(items) == "one"
    await take(items, 1)  # the source is now waiting inside its step

    await items.aclose()

    assert gate.cancelled == 1
    assert gate.closed


async def test_closing_while_the_source_waits_for_the_consumer_closes_it() -> None:
    gate = Gate()
    for n in range(BUFFERED_ITEMS + 5):
        gate.open(n)
    items = paced(gate.source(), keepalive_seconds=None)
    assert await next_item(items) == 0
    await asyncio.sleep(0)  # the source runs ahead and waits until there is room for more

    await items.aclose()

    assert gate.closed
    assert gate.cancelled == 0


async def test_stop_cancels_the_source_then_says_stopped() -> None:
    gate = Gate()
    stop = asyncio.Event()
    items = paced(gate.source(), keepalive_seconds=0.01, stop=stop)
    gate.open("before")
    assert await next_item(items) == "before"

    stop.set()
    rest = await asyncio.wait_for(_all(items), GUARD_SECONDS)

    assert [item for item in rest if item is not Pause.KEEPALIVE] == [Pause.STOPPED]
    assert gate.cancelled == 1  # cancelled before STOPPED was handed over
    assert gate.closed


async def test_stop_hands_over_what_the_source_made_before_it() -> None:
    gate = Gate()
    stop = asyncio.Event()
    items = paced(gate.source(), keepalive_seconds=None, stop=stop)
    gate.open("first")
    assert await next_item(items) == "first"
    gate.open("made")
    gate.open("also made")
    await asyncio.sleep(0)  # the source buffered both; the consumer has not taken them yet

    stop.set()
    rest = await asyncio.wait_for(_all(items), GUARD_SECONDS)

    assert rest == ["made", "also made", Pause.STOPPED]
    assert gate.closed


async def test_stop_already_set_stops_before_any_item() -> None:
    gate = Gate()
    gate.open("never")
    stop = asyncio.Event()
    stop.set()

    items = paced(gate.source(), keepalive_seconds=1, stop=stop)
    rest = await asyncio.wait_for(_all(items), GUARD_SECONDS)

    assert rest == [Pause.STOPPED]
    assert gate.seen_var == []  # the source never ran


# --- keepalive comments from a real server ---------------------------------------------------

BODY: dict[str, Any] = {
    "threadId": "thread-slow",
    "runId": "run-slow",
    "protocolVersion": "1.0",
    "state": {},
    "messages": [{"id": "user-1", "role": "user", "content": "How are my orders?"}],
    "tools": [],
    "context": [],
    "forwardedProps": {},
}


def blocks(raw: str) -> list[str]:
    """The SSE blocks of a body, each checked to be one whole event or one keepalive."""
    assert raw.endswith("\n\n")
    found = raw[:-2].split("\n\n")
    for block in found:
        if block.startswith("data: "):
            json.loads(block[len("data: ") :])
            assert "\n" not in block
        else:
            assert block + "\n\n" == KEEPALIVE_COMMENT, block
    return found


def types_and_keepalives(found: list[str]) -> list[str]:
    return [json.loads(b[6:])["type"] if b.startswith("data: ") else "keepalive" for b in found]


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[Server]:
    """A uvicorn process whose tool waits for ``POST /release``, with keepalive every 0.05 s."""
    extra = {"PRODUCTION_APP_KEEPALIVE": "0.05", "PRODUCTION_APP_TOOL_RELEASE": "1"}
    envs = {"slow": server_env("PRODUCTION_APP_NAME", "slow", extra)}
    with server_processes("support.production_app:app", ("slow",), envs, tmp_path) as servers:
        yield servers[0]


@pytest.mark.slow
def test_a_real_server_writes_keepalives_only_while_the_tool_is_silent(slow_server: Server) -> None:
    raw = ""
    released = False
    with (
        httpx.Client(base_url=slow_server.url, timeout=GUARD_SECONDS) as client,
        client.stream("POST", "/agent", json=BODY) as response,
    ):
        assert response.status_code == 200
        for chunk in response.iter_text():
            raw += chunk
            after_tool = raw.partition('"TOOL_CALL_END"')[2]
            # The tool returns once the client has read three keepalives while it worked.
            if not released and after_tool.count(KEEPALIVE_COMMENT) >= 3:
                assert client.post("/release").status_code == 200
                released = True

    found = blocks(raw)
    sequence = types_and_keepalives(found)
    tool_end = sequence.index("TOOL_CALL_END")
    tool_result = sequence.index("TOOL_CALL_RESULT")
    assert sequence[tool_end + 1 : tool_result].count("keepalive") >= 3
    assert set(sequence[tool_end + 1 : tool_result]) == {"keepalive"}
    assert sequence[0] == "RUN_STARTED"
    assert sequence[-1] == "RUN_FINISHED"
    check_stream(parse_sse(raw))


# --- the real TypeScript clients -------------------------------------------------------------


class KeepaliveCounter:
    """ASGI middleware counting the keepalive comments each response body carried; it sets
    ``enough`` once a body has carried ``wanted`` of them."""

    def __init__(self, app: ASGIApp, enough: asyncio.Event, wanted: int) -> None:
        self.app = app
        self.enough = enough
        self.wanted = wanted
        self.counts: list[int] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.counts.append(0)
        index = len(self.counts) - 1

        async def counting(message: Message) -> None:
            if message["type"] == "http.response.body":
                self.counts[index] += bytes(message.get("body", b"")).count(b": keepalive")
            await send(message)
            if self.counts[index] >= self.wanted:
                self.enough.set()

        await self.app(scope, receive, counting)


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENT_VERSIONS)
def test_the_real_clients_ignore_keepalive_comments(client: Any) -> None:
    ensure_node_modules()
    # The tool returns once three keepalives went out while it worked.
    enough = asyncio.Event()
    app = KeepaliveCounter(
        build_app(keepalive_seconds=0.05, tool_seconds=0, release=enough), enough, 3
    )

    with serve_app(app) as base_url:
        result = run_client(
            client, {"url": f"{base_url}/agent/", "turns": [{"user": "How are my orders?"}]}
        )

    assert result["ok"], turn_errors(result)
    turn = result["turns"][0]
    assert turn["outcome"]["type"] == "success"
    assert turn["eventTypes"][0] == "RUN_STARTED"
    assert turn["eventTypes"][-1] == "RUN_FINISHED"
    assert "TOOL_CALL_RESULT" in turn["eventTypes"]
    assert turn["messages"][-1]["content"] == "The lookup said: orders: all shipped"
    assert app.counts[-1] >= 3  # the stream the client accepted did carry keepalives
