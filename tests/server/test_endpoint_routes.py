"""``add_openai_agents_fastapi_endpoint``'s routes: its signature, an ``APIRouter`` target,
``dependencies`` on every route, both trailing-slash forms without a redirect, stream headers."""

from __future__ import annotations

import inspect
from typing import Any

import httpx
import jsonschema
import pytest
from ag_ui.core import EventType
from agents import Agent, RunConfig
from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException
from fastapi.routing import APIRoute

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.server.endpoint import DEFAULT_KEEPALIVE_SECONDS
from ag_ui_openai_agents.server.limits import DEFAULT_MAX_REQUEST_BYTES
from support.invariants import check_stream, parse_sse
from support.scripted import ScriptedProvider, ScriptedResponsesModel, Text, Turn

ROUTES = ("/capabilities", "/health")


def wrapped(model: ScriptedResponsesModel, name: str = "router-agent") -> OpenAIAgentsAgent:
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    return OpenAIAgentsAgent(Agent(name=name), run_config=config)


def body(*, pre_1_0: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "threadId": "thread-1",
        "runId": "run-1",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": "hi"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    if pre_1_0:
        del data["protocolVersion"]
    return data


def client_for(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test", follow_redirects=False
    )


def assert_run(response: httpx.Response, *, pre_1_0: bool = False) -> None:
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    check_stream(events, pre_1_0=pre_1_0)
    assert events[-1].type == EventType.RUN_FINISHED


def test_the_signature() -> None:
    parameters = inspect.signature(add_openai_agents_fastapi_endpoint).parameters

    assert list(parameters)[:3] == ["app_or_router", "agent", "path"]
    assert parameters["path"].default == "/agent"
    keyword_only = {name: p.default for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY}
    assert keyword_only == {
        "include_health": True,
        "keepalive_seconds": DEFAULT_KEEPALIVE_SECONDS,
        "max_request_bytes": DEFAULT_MAX_REQUEST_BYTES,
        "dependencies": None,
    }
    assert DEFAULT_KEEPALIVE_SECONDS == 15.0


@pytest.mark.parametrize(
    "options",
    [{"keepalive_seconds": 0}, {"keepalive_seconds": -1.0}, {"max_request_bytes": -1}],
)
def test_bad_options_are_refused_when_the_routes_are_added(options: dict[str, Any]) -> None:
    app = FastAPI()
    with pytest.raises(ValueError, match=next(iter(options))):
        add_openai_agents_fastapi_endpoint(app, wrapped(ScriptedResponsesModel()), **options)
    assert not [r for r in app.routes if getattr(r, "path", "").startswith("/agent")]


@pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1-client", "pre-1.0-client"])
async def test_an_api_router_under_a_prefix(pre_1_0: bool) -> None:
    model = ScriptedResponsesModel([Turn([Text("Routed.")])])
    router = APIRouter()
    add_openai_agents_fastapi_endpoint(router, wrapped(model), "/agent")
    app = FastAPI()
    app.include_router(router, prefix="/v1")

    async with client_for(app) as client:
        run = await client.post("/v1/agent", json=body(pre_1_0=pre_1_0))
        health = await client.get("/v1/agent/health")
        capabilities = await client.get("/v1/agent/capabilities")

    assert_run(run, pre_1_0=pre_1_0)
    assert health.json()["agent"]["name"] == "router-agent"
    assert capabilities.status_code == 200
    assert {"/v1/agent", "/v1/agent/health", "/v1/agent/capabilities"} <= set(
        app.openapi()["paths"]
    )


async def require_token(authorization: str = Header(default="")) -> None:
    if authorization != "Bearer good":
        raise HTTPException(status_code=401, detail="Missing or bad token.")


@pytest.mark.parametrize("target", ["app", "router"])
async def test_dependencies_guard_every_route_in_both_forms(target: str) -> None:
    model = ScriptedResponsesModel([Turn([Text("Welcome.")])])
    app = FastAPI()
    guard = [Depends(require_token)]
    if target == "app":
        add_openai_agents_fastapi_endpoint(app, wrapped(model), "/agent", dependencies=guard)
    else:
        router = APIRouter()
        add_openai_agents_fastapi_endpoint(router, wrapped(model), "/agent", dependencies=guard)
        app.include_router(router)
    urls = ["/agent", "/agent/", *(f"/agent{r}{s}" for r in ROUTES for s in ("", "/"))]
    good = {"authorization": "Bearer good"}

    async with client_for(app) as client:
        refused = [
            (await client.post(url, json=body())) if url.rstrip("/") == "/agent"
            else (await client.get(url))
            for url in urls
        ]  # fmt: skip
        calls_while_refused = model.call_count
        allowed_run = await client.post("/agent/", json=body(), headers=good)
        allowed_health = await client.get("/agent/health/", headers=good)

    assert [r.status_code for r in refused] == [401] * len(urls)
    assert calls_while_refused == 0
    assert_run(allowed_run)
    assert allowed_health.status_code == 200


@pytest.mark.parametrize("path", ["/agent", "/agent/"])
@pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1-client", "pre-1.0-client"])
async def test_both_slash_forms_are_served_without_a_redirect(path: str, pre_1_0: bool) -> None:
    model = ScriptedResponsesModel([Turn([Text("One.")]), Turn([Text("Two.")])])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped(model), path)

    async with client_for(app) as client:
        runs = [await client.post(url, json=body(pre_1_0=pre_1_0)) for url in ("/agent", "/agent/")]
        gets = [await client.get(f"/agent{r}{s}") for r in ROUTES for s in ("", "/")]

    for run in runs:
        assert_run(run, pre_1_0=pre_1_0)
    assert [r.status_code for r in gets] == [200] * 4
    paths = app.openapi()["paths"]
    assert {"/agent", "/agent/health", "/agent/capabilities"} <= set(paths)
    assert not any(p.endswith("/") for p in paths)


async def test_a_root_path_is_served_once() -> None:
    model = ScriptedResponsesModel([Turn([Text("Root.")])])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped(model), "/")

    async with client_for(app) as client:
        run = await client.post("/", json=body())
        health = await client.get("/health/")

    assert_run(run)
    assert health.status_code == 200


async def test_the_stream_tells_proxies_not_to_buffer_or_cache() -> None:
    model = ScriptedResponsesModel([Turn([Text("Streamed.")])])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped(model))

    async with client_for(app) as client:
        response = await client.post("/agent", json=body())

    assert_run(response)
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    assert response.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize("pre_1_0", [False, True], ids=["1.0", "pre-1.0"])
def test_each_run_route_documents_the_run_input_as_its_own_body(pre_1_0: bool) -> None:
    model = ScriptedResponsesModel([Turn([Text("Documented.")])])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped(model), "/one")
    add_openai_agents_fastapi_endpoint(app, wrapped(model), "/two")
    paths = app.openapi()["paths"]
    one, two = (
        paths[p]["post"]["requestBody"]["content"]["application/json"]["schema"]
        for p in ("/one", "/two")
    )
    jsonschema.validate(body(pre_1_0=pre_1_0), one)  # a real request is what it describes
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"threadId": "thread-1"}, one)
    assert one == two
    posts = [r for r in app.routes if isinstance(r, APIRoute) and r.path in ("/one", "/two")]
    first, second = (r.openapi_extra for r in posts if "POST" in r.methods)
    assert first == second and first is not second  # each route holds a copy of its own
