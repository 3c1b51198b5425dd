"""Request limits of the run route: 413 before parsing (declared or chunked bodies, in-process
and on a real server's socket) and 422s that echo only a short prefix of the input."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from agents import Agent, RunConfig
from fastapi import Depends, FastAPI, Request

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.server.limits import (
    DEFAULT_MAX_REQUEST_BYTES,
    MAX_LISTED_ERRORS,
    PREVIEW_CHARS,
    RequestLimitMiddleware,
    preview,
    short_validation_errors,
)
from support.e2e import serve_app
from support.invariants import check_stream, parse_sse
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn

LIMIT = 4096


def make_app(model: ScriptedResponsesModel, **options: Any) -> FastAPI:
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    app = FastAPI()
    wrapped = OpenAIAgentsAgent(Agent(name="limited"), run_config=config)
    add_openai_agents_fastapi_endpoint(app, wrapped, "/agent", **options)
    return app


def body(text: str = "hi", **changes: Any) -> dict[str, Any]:
    return {
        "threadId": "thread-1",
        "runId": "run-1",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **changes,
    }


def asgi(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


# --- 413 -------------------------------------------------------------------------------------


async def test_a_body_over_the_limit_is_a_413_naming_the_limit() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])

    async with asgi(make_app(model, max_request_bytes=LIMIT)) as client:
        response = await client.post("/agent", json=body("x" * LIMIT))

    assert response.status_code == 413
    assert str(LIMIT) in response.json()["detail"]
    assert model.call_count == 0


async def test_a_body_within_the_limit_runs() -> None:
    model = ScriptedResponsesModel([Turn([Text("Fine.")])])

    async with asgi(make_app(model, max_request_bytes=LIMIT)) as client:
        response = await client.post("/agent", json=body("x" * (LIMIT // 2)))

    assert response.status_code == 200
    check_stream(parse_sse(response.text))
    assert model.call_count == 1


async def test_the_default_limit_is_8_mib() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    big = body("x" * DEFAULT_MAX_REQUEST_BYTES)

    async with asgi(make_app(model)) as client:
        response = await client.post("/agent", json=big)

    assert DEFAULT_MAX_REQUEST_BYTES == 8 * 1024 * 1024
    assert response.status_code == 413
    assert model.call_count == 0


async def test_no_limit_with_none() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    big = body("x" * DEFAULT_MAX_REQUEST_BYTES, threadId=None)  # invalid, but not too large

    async with asgi(make_app(model, max_request_bytes=None)) as client:
        response = await client.post("/agent", json=big)

    assert response.status_code == 422
    assert len(response.content) < 4096


async def test_a_chunked_body_is_read_only_up_to_the_limit() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    pulled: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"threadId": "t", "runId": "r", "messages": [], "state": "'
        for n in range(1000):
            pulled.append(n)
            yield b"x" * 1024

    async with asgi(make_app(model, max_request_bytes=LIMIT)) as client:
        response = await client.post(
            "/agent", content=chunks(), headers={"content-type": "application/json"}
        )

    assert response.status_code == 413
    assert len(pulled) <= LIMIT // 1024 + 1
    assert model.call_count == 0


def _exchange(base_url: str, request: bytes) -> bytes:
    """Send raw bytes to the server and read its whole answer (it closes the connection)."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_a_real_server_refuses_a_declared_large_body_without_waiting_for_it() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    head = (
        b"POST /agent HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Content-Length: 50000000\r\n\r\n"
    )

    with serve_app(make_app(model)) as base_url:
        # 50 MB announced, a few bytes sent: the answer comes before the rest would.
        answer = _exchange(base_url, head + b'{"threadId": ')

    assert answer.startswith(b"HTTP/1.1 413")
    assert str(DEFAULT_MAX_REQUEST_BYTES).encode() in answer
    assert model.call_count == 0


def test_a_real_server_stops_reading_a_chunked_body_at_the_limit() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    head = (
        b"POST /agent HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"400\r\n" + b"x" * 1024 + b"\r\n"

    with serve_app(make_app(model, max_request_bytes=LIMIT)) as base_url:
        # Five 1 KiB chunks and no final chunk: the body never ends, the answer comes anyway.
        answer = _exchange(base_url, head + chunk * 5)

    assert answer.startswith(b"HTTP/1.1 413")
    assert model.call_count == 0


# --- 422 -------------------------------------------------------------------------------------


async def test_a_422_for_a_large_bad_body_echoes_only_a_prefix() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    huge = "y" * 1_000_000
    bad = body(huge, threadId=None)
    bad["messages"].append({"id": "u2", "role": "wizard", "content": huge})

    async with asgi(make_app(model)) as client:
        response = await client.post("/agent", json=bad)

    assert response.status_code == 422
    assert len(response.content) < 8192
    detail = response.json()["detail"]
    locations = [error["loc"] for error in detail]
    assert ["body", "threadId"] in locations
    assert any(loc[:3] == ["body", "messages", 1] for loc in locations)
    for error in detail:
        shown = error.get("input")
        assert not isinstance(shown, dict | list)
        assert shown is None or len(str(shown)) <= PREVIEW_CHARS
    assert model.call_count == 0


async def test_a_422_lists_a_bounded_number_of_errors() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    wizards = [{"id": f"u{i}", "role": "wizard", "content": "hi"} for i in range(200)]

    async with asgi(make_app(model)) as client:
        response = await client.post("/agent", json=body(messages=wizards))

    assert response.status_code == 422
    detail = response.json()["detail"]
    assert len(detail) == MAX_LISTED_ERRORS + 1
    assert detail[-1]["type"] == "too_many_errors"


async def test_invalid_json_is_still_a_422() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])

    async with asgi(make_app(model)) as client:
        response = await client.post(
            "/agent",
            content=b'{"threadId": "' + b"9" * 100_000,
            headers={"content-type": "application/json"},
        )

    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"
    assert len(response.content) < 2048


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), (True, True), (7, 7), (2.5, 2.5), ("short", "short")],
)
def test_preview_keeps_small_plain_values(value: Any, expected: Any) -> None:
    assert preview(value) == expected


def test_preview_cuts_long_text_and_containers() -> None:
    long_text = preview("z" * 10_000)
    container = preview({"messages": [{"content": "z" * 10_000}] * 1000})

    assert len(long_text) == PREVIEW_CHARS
    assert long_text.endswith("…")
    assert isinstance(container, str)
    assert len(container) <= PREVIEW_CHARS


def test_short_validation_errors_keep_fastapis_shape() -> None:
    errors = [
        {"type": "missing", "loc": ("body", "threadId"), "msg": "Field required", "input": {}},
        {
            "type": "x",
            "loc": ("body",),
            "msg": "m" * 500,
            "input": "i" * 500,
            "ctx": {"e": "c" * 500},
        },
    ]

    shortened = short_validation_errors(errors)

    assert shortened[0] == {
        "type": "missing",
        "loc": ["body", "threadId"],
        "msg": "Field required",
        "input": "{}",
    }
    assert all(len(shortened[1][key]) <= PREVIEW_CHARS for key in ("msg", "input"))
    assert len(shortened[1]["ctx"]["e"]) <= PREVIEW_CHARS


# --- the middleware, scoped to the routes written by hand ------------------------------------


@pytest.mark.parametrize("protocol_version", ["1.0", None])
async def test_the_middleware_caps_only_the_paths_it_is_given(
    protocol_version: str | None,
) -> None:
    """A route written by hand gets the middleware's cap; a shortcut route in the same app
    keeps its own, larger one (the middleware does not read its body first)."""
    model = ScriptedResponsesModel([Turn([Text("Read it.")])])
    app = make_app(model, max_request_bytes=16 * LIMIT)
    seen: list[int] = []

    @app.post("/by-hand")
    async def by_hand(payload: dict[str, Any]) -> dict[str, int]:
        seen.append(len(payload["messages"][0]["content"]))
        return {"length": seen[-1]}

    app.add_middleware(RequestLimitMiddleware, max_request_bytes=LIMIT, paths=["/by-hand/"])
    large = body("x" * (2 * LIMIT), protocolVersion=protocol_version)
    small = body("y" * 10, protocolVersion=protocol_version)

    async with asgi(app) as client:
        refused = await client.post("/by-hand", json=large)
        refused_slash = await client.post("/by-hand/", json=large)
        accepted = await client.post("/by-hand", json=small)
        streamed = await client.post("/agent", json=large)

    assert [refused.status_code, refused_slash.status_code] == [413, 413]
    assert accepted.json() == {"length": 10} and seen == [10]
    assert streamed.status_code == 200
    events = parse_sse(streamed.text)
    check_stream(events, pre_1_0=protocol_version is None)
    assert events[-1].type.value == "RUN_FINISHED"


@pytest.mark.parametrize("protocol_version", ["1.0", None])
async def test_a_dependency_that_reads_the_body_leaves_it_to_the_route(
    protocol_version: str | None,
) -> None:
    """A signature check that reads the body itself (``await request.body()``) runs before the
    route, which then takes the same body rather than wait for one that never comes."""
    seen: list[bytes] = []

    async def check_signature(request: Request) -> None:
        seen.append(await request.body())

    model = ScriptedResponsesModel([Turn([Text("Signed and read.")])])
    app = make_app(model, dependencies=[Depends(check_signature)], max_request_bytes=LIMIT)
    sent = body(protocolVersion=protocol_version)
    too_large = body("x" * (2 * LIMIT), protocolVersion=protocol_version)

    async with asgi(app) as client:
        response = await asyncio.wait_for(client.post("/agent", json=sent), timeout=30)
        refused = await asyncio.wait_for(client.post("/agent", json=too_large), timeout=30)

    assert response.status_code == 200
    events = parse_sse(response.text)
    check_stream(events, pre_1_0=protocol_version is None)
    assert events[-1].type.value == "RUN_FINISHED"
    assert json.loads(seen[0]) == sent
    assert refused.status_code == 413  # the cap holds for a body a dependency read
