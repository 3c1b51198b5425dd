"""The example server: settings from the environment, offline notice, model override."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from ag_ui.core import PROTOCOL_VERSION, EventType
from fastapi.routing import APIRoute

import server
from agents_examples import EXAMPLES
from agents_examples.settings import DEFAULT_MODEL, ExampleSettings, settings_from_env
from example_client import Chat


def test_settings_from_the_environment() -> None:
    offline = settings_from_env({})
    assert offline.offline and offline.model == DEFAULT_MODEL
    live = settings_from_env({"OPENAI_API_KEY": "sk-test", "OPENAI_DEFAULT_MODEL": "gpt-x"})
    assert not live.offline and live.run_config is None and live.model == "gpt-x"
    assert not offline.subagents_for_pre_1_0_clients and not live.subagents_for_pre_1_0_clients
    opted = settings_from_env({"AG_UI_SUBAGENTS_FOR_PRE_1_0_CLIENTS": "true"})
    assert opted.offline and opted.subagents_for_pre_1_0_clients


def test_offline_mode_is_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(server, "load_dotenv", lambda: False)
    with caplog.at_level(logging.INFO):
        app = server.create_app()
    notices = [r for r in caplog.records if "OPENAI_API_KEY" in r.getMessage()]
    assert len(notices) == 1
    assert "offline demo model" in notices[0].getMessage()
    assert {"/health", "/agentic_chat", "/ag_ui_docs_copilot"} <= {r.path for r in app.routes}  # type: ignore[attr-defined]


async def test_default_model_override_reaches_every_example() -> None:
    app = server.create_app(ExampleSettings.offline_demo("my-model"))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://x"
    ) as http:
        assert (await http.get("/health")).json()["model"] == "my-model"
        run = await Chat(http, "/subagents").say("Research owls and write a note")
    models = {entry.model for entry in run.finished.usage or []}
    assert "my-model" in models


async def test_pre_1_0_client_gets_a_stream_it_accepts(client: httpx.AsyncClient) -> None:
    from ag_ui.core import Tool
    from support.invariants import check_stream

    steps = Tool(
        name="generate_task_steps", description="Show steps.", parameters={"type": "object"}
    )
    chat = Chat(client, "/human_in_the_loop", tools=[steps], protocol_version=None)
    run = await chat.say("List the steps to paint a wall")
    check_stream(run.events, run_input=run.input, pre_1_0=True)
    assert [name for _, name, _ in run.tool_calls] == ["generate_task_steps"]


@pytest.mark.parametrize("protocol_version", [PROTOCOL_VERSION, None], ids=["v1", "pre-1.0"])
@pytest.mark.parametrize("name", list(EXAMPLES))
async def test_every_example_runs_on_both_slash_forms_without_a_redirect(
    client: httpx.AsyncClient, name: str, protocol_version: str | None
) -> None:
    for path in (f"/{name}", f"/{name}/"):
        chat = Chat(client, path, protocol_version=protocol_version)
        run = await chat.say("Hello")  # a 307 would fail here: the client follows no redirect
        assert run.types[-1] == EventType.RUN_FINISHED, path


async def test_every_get_route_answers_on_both_slash_forms(client: httpx.AsyncClient) -> None:
    app = server.create_app(ExampleSettings.offline_demo())
    gets = [
        route.path.rstrip("/")
        for route in app.routes
        if isinstance(route, APIRoute) and "GET" in route.methods and route.path != "/"
    ]
    assert "/health" in gets
    assert "/agentic_chat/health" in gets

    for path in sorted(set(gets)):
        for form in (path, f"{path}/"):
            response = await client.get(form)
            assert response.status_code == 200, form
    paths = app.openapi()["paths"]
    assert not any(path.endswith("/") for path in paths if path != "/")


def test_threads_are_kept_in_sqlite_or_in_the_named_redis(tmp_path: Path) -> None:
    from ag_ui_openai_agents.threads import RedisThreadStore, SQLiteThreadStore

    default = settings_from_env({}).threads
    assert isinstance(default, SQLiteThreadStore) and default.path.name == "threads.db"
    chosen = settings_from_env({"AG_UI_THREADS_DB": str(tmp_path / "t.db")}).threads
    assert isinstance(chosen, SQLiteThreadStore) and chosen.path == tmp_path / "t.db"
    shared = settings_from_env({"REDIS_URL": "redis://127.0.0.1:6399/0"}).threads
    assert isinstance(shared, RedisThreadStore)


async def test_health_says_which_examples_keep_their_threads(tmp_path: Path) -> None:
    from ag_ui_openai_agents.threads import SQLiteThreadStore

    store = SQLiteThreadStore(tmp_path / "t.db")
    kept = server.create_app(ExampleSettings.offline_demo(threads=store))
    stateless = server.create_app(ExampleSettings.offline_demo())
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=kept), base_url="http://x") as a,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=stateless), base_url="http://x") as b,
    ):
        with_store = {
            d["name"]: d["keeps_threads"] for d in (await a.get("/health")).json()["demos"]
        }
        without = {d["name"]: d["keeps_threads"] for d in (await b.get("/health")).json()["demos"]}
        capabilities = (await a.get("/agentic_chat/capabilities")).json()
    assert with_store["agentic_chat"] and with_store["human_in_the_loop_approval"]
    assert not with_store["ag_ui_docs_copilot"] and not with_store["custom_lifecycle_events"]
    assert not any(without.values())
    assert capabilities["state"]["persistentState"] is True
