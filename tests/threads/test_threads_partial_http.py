"""A client that drops its HTTP connection mid-turn, with ``detached_runs=False`` (a
disconnect cancels the run): the FastAPI route served by uvicorn cancels the run, which saves
what it got before it frees the thread's lock. The reload then shows it, and the next turn's
model request passes the request checker. A server shutdown stops a (detached) run the same
way, and saves it the same way.

The route, uvicorn in a thread, a real SQLite file, both request kinds. The test waits for the
cut-short run through the thread's lock (a second store object on the same file), never for a
time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunErrorEvent, TextMessageContentEvent
from agents import set_tracing_disabled

import ag_ui_openai_agents.server.endpoint as endpoint_module
import ag_ui_openai_agents.server.resumable as resumable_module
import ag_ui_openai_agents.server.streaming as streaming_module
from ag_ui_openai_agents.server.endpoint import SHUTDOWN_ERROR_CODE
from ag_ui_openai_agents.server.shutdown import ServerShutdown
from ag_ui_openai_agents.threads import INTERRUPTED_RESULT, SQLiteThreadStore
from support.e2e import serve_app
from support.http import app_with
from support.invariants import check_stream, parse_sse
from support.partial_turns import (
    AFTER_TOOL,
    GUARD_SECONDS,
    MID_TEXT,
    OPEN_CALL,
    Scenario,
    Tools,
    body,
    calls_of,
    leave_midway_over_http,
    outputs_of,
    request,
    settled,
    user,
    wrapper_of,
)
from support.runs import check_prefix
from support.threads import PROTOCOLS

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

THREAD = "thread-0b7e4f2a9c1d4e83"


async def post(
    client: httpx.AsyncClient, run_id: str, version: str | None, messages: list[Any],
    history: list[Any],
) -> list[Any]:  # fmt: skip
    """One whole run over HTTP; its MESSAGES_SNAPSHOT (the stream checked against ``history``)."""
    run_input = request(THREAD, run_id, version, messages)
    response = await client.post("/agent", json=body(run_input))
    assert response.status_code == 200, response.text
    events: list[BaseEvent] = parse_sse(response.content)
    trusted = run_input.model_copy(update={"messages": history})
    check_stream(events, run_input=trusted, pre_1_0=version is None)
    (snapshot,) = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
    return list(snapshot.messages)


async def cut_then_reload(
    tmp_path: Path, scenario: Scenario, version: str | None, tools: Tools
) -> tuple[list[BaseEvent], list[Any], list[Any], Any]:
    """Leave the first turn midway, reload, send a second message: the events seen, the
    reload's messages, the second turn's messages, and the model."""
    database = tmp_path / "threads.db"
    store = SQLiteThreadStore(database, detached_runs=False)
    wrapper, model = wrapper_of(scenario, tools, store)
    assert wrapper.threads is not None
    key = await wrapper.threads.key(THREAD, None)
    ask = user("Where is order 7?", "user-1")
    with serve_app(app_with(wrapper)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            run_input = request(THREAD, "run-1", version, [ask])
            seen = await leave_midway_over_http(client, run_input, scenario)
            check_prefix(seen, run_input)
            await settled(SQLiteThreadStore(database), key)
            reloaded = await post(client, "run-2", version, [], [])
            again = user("Any news?", "user-2")
            after = await post(client, "run-3", version, [again], [*reloaded, again])
    return seen, reloaded, after, model


async def test_a_dropped_connection_mid_text_keeps_the_message_and_the_partial_answer(
    tmp_path: Path, version: str | None
) -> None:
    seen, reloaded, after, model = await cut_then_reload(tmp_path, MID_TEXT, version, Tools())

    streamed = "".join(e.delta for e in seen if isinstance(e, TextMessageContentEvent))
    assert streamed == "The answer"
    assert [(m.role, m.content) for m in reloaded] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
    ]
    assert [m.content for m in after][2:] == ["Any news?", "Going on."]
    assert model.call_count == 2


async def test_a_dropped_connection_keeps_the_result_of_a_tool_that_ran(
    tmp_path: Path, version: str | None
) -> None:
    tools = Tools()
    seen, reloaded, after, model = await cut_then_reload(tmp_path, AFTER_TOOL, version, tools)

    assert "TOOL_CALL_RESULT" in [e.type.value for e in seen]
    results = [(m.tool_call_id, m.content) for m in reloaded if m.role == "tool"]
    assert results == [("call_lookup", "Found order 7: shipped yesterday")]
    assert [m.role for m in reloaded] == ["user", "assistant", "tool", "assistant"]
    assert tools.lookups == ["order 7"]
    assert [m.content for m in after][-1] == "You are welcome."
    assert outputs_of(model.calls[2].input) == {"call_lookup": "Found order 7: shipped yesterday"}


async def test_a_dropped_connection_closes_an_open_call_interrupted(
    tmp_path: Path, version: str | None
) -> None:
    tools = Tools()
    seen, reloaded, after, model = await cut_then_reload(tmp_path, OPEN_CALL, version, tools)

    assert [e.type.value for e in seen][-1] == "TOOL_CALL_END"
    results = [(m.tool_call_id, m.content) for m in reloaded if m.role == "tool"]
    assert results == [("call_slow", INTERRUPTED_RESULT)]
    next_input = model.calls[1].input  # passed the request checker
    assert calls_of(next_input) == {"call_slow": {"q": "order 7"}}
    assert outputs_of(next_input) == {"call_slow": INTERRUPTED_RESULT}
    assert [m.content for m in after][-1] == "Ask me again later."
    assert len(tools.slow_lookups) <= 1  # started at most once, never again


async def test_a_server_shutdown_mid_turn_saves_it_too(
    tmp_path: Path, version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutdown = ServerShutdown()
    monkeypatch.setattr(endpoint_module, "server_shutdown", shutdown)
    monkeypatch.setattr(streaming_module, "server_shutdown", shutdown)
    monkeypatch.setattr(resumable_module, "server_shutdown", shutdown)
    database = tmp_path / "threads.db"
    store = SQLiteThreadStore(database, shutdown_grace_seconds=0)  # no grace: cut at once
    wrapper, _ = wrapper_of(MID_TEXT, Tools(), store)
    assert wrapper.threads is not None
    key = await wrapper.threads.key(THREAD, None)
    run_input = request(THREAD, "run-1", version, [user("Where is order 7?", "user-1")])
    with serve_app(app_with(wrapper)) as base_url:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client,
            client.stream("POST", "/agent", json=body(run_input)) as response,
        ):
            raw = ""
            async for text in response.aiter_text():
                raw += text
                if raw.count('"TEXT_MESSAGE_CONTENT"') == 2 and raw.endswith("\n\n"):
                    shutdown.begin()  # the server stops while the answer is streaming
        await settled(SQLiteThreadStore(database), key)
    events = parse_sse(raw)
    reload = request(THREAD, "run-2", version, [])
    reloaded = [e async for e in wrapper.run_streamed(reload)]

    check_stream(events, run_input=run_input, pre_1_0=version is None)
    last = events[-1]
    assert isinstance(last, RunErrorEvent) and last.code == SHUTDOWN_ERROR_CODE
    (snapshot,) = [e for e in reloaded if isinstance(e, MessagesSnapshotEvent)]
    assert [(m.role, m.content) for m in snapshot.messages] == [
        ("user", "Where is order 7?"),
        ("assistant", "The answer"),
    ]
