"""``add_openai_agents_fastapi_endpoint``: the POST route, health, bad input, real server,
concurrency and client disconnects."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import warnings
from collections.abc import Sequence
from typing import Any

import agents
import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Context,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    TextMessageContentEvent,
    Tool,
    UserMessage,
)
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI

import ag_ui_openai_agents
import ag_ui_openai_agents.agent as agent_module
from ag_ui_openai_agents import add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.agent import AGENT_ERROR_CODE, AGENT_ERROR_MESSAGE, SETUP_ERROR_MESSAGE
from support.e2e import serve_app
from support.http import app_with, asgi_client, wrapper_for
from support.invariants import check_stream, parse_sse
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedResponsesModel,
    Text,
    Turn,
)

set_tracing_disabled(True)

CONTEXT_HEADER = "Context from the application:"
SECRET = "db-password=hunter2"


# --- helpers ---------------------------------------------------------------------------------


def make_input(
    *,
    run_id: str = "run-1",
    text: str = "hi",
    tools: Sequence[Tool] = (),
    context: Sequence[Context] = (),
) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id=run_id,
        protocol_version="1.0",
        state={},
        messages=[UserMessage(id=f"user-{run_id}", content=text)],
        tools=list(tools),
        context=list(context),
        forwarded_props={},
    )


def body_of(run_input: RunAgentInput) -> dict[str, Any]:
    """The request body an AG-UI client sends (camelCase keys)."""
    data: dict[str, Any] = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def read_stream(response: httpx.Response, run_input: RunAgentInput) -> list[BaseEvent]:
    """Check the response is an SSE stream holding one valid AG-UI run; return its events."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    check_stream(events, run_input=run_input)
    return events


def streamed_text(events: Sequence[BaseEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))


def types(events: Sequence[BaseEvent]) -> list[EventType]:
    return [event.type for event in events]


@function_tool
def lookup_order(order_id: str) -> str:
    """Find an order by id."""
    return f"order {order_id}: shipped"


# --- the POST route --------------------------------------------------------------------------


@pytest.mark.parametrize("accept", [None, "text/event-stream", "*/*"])
async def test_post_streams_a_valid_sse_run(accept: str | None) -> None:
    agent = Agent(name="shop", instructions="Help.", tools=[lookup_order])
    model = ScriptedResponsesModel(
        [Turn([Call("lookup_order", {"order_id": "42"})]), Turn([Text("Order 42 shipped.")])]
    )
    run_input = make_input()
    headers = {"accept": accept} if accept else {}

    async with asgi_client(app_with(wrapper_for(agent, model))) as client:
        response = await client.post("/agent", json=body_of(run_input), headers=headers)

    events = read_stream(response, run_input)
    assert types(events)[0] == EventType.RUN_STARTED
    assert types(events)[-1] == EventType.RUN_FINISHED
    assert EventType.TOOL_CALL_RESULT in types(events)
    assert streamed_text(events) == "Order 42 shipped."
    assert model.call_count == 2
    assert all(block.startswith("data: ") for block in response.text.strip().split("\n\n"))


async def test_health_returns_the_agents_name() -> None:
    wrapper = wrapper_for(Agent(name="internal-name"), name="public-name")

    async with asgi_client(app_with(wrapper)) as client:
        response = await client.get("/agent/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["agent"]["name"] == "public-name"


async def test_include_health_false_removes_only_the_health_route() -> None:
    model = ScriptedResponsesModel([Turn([Text("Hello.")])])
    app = app_with(wrapper_for(Agent(name="a"), model), include_health=False)
    run_input = make_input()

    async with asgi_client(app) as client:
        health = await client.get("/agent/health")
        capabilities = await client.get("/agent/capabilities")
        run = await client.post("/agent", json=body_of(run_input))

    assert health.status_code in (404, 405)
    assert "/agent/health" not in app.openapi()["paths"]
    assert capabilities.status_code == 200
    assert streamed_text(read_stream(run, run_input)) == "Hello."


def operation_ids(app: FastAPI) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # FastAPI warns about duplicate operation ids
        spec = app.openapi()
    return [op["operationId"] for item in spec["paths"].values() for op in item.values()]


async def test_two_agents_on_one_app_have_separate_routes_and_unique_operation_ids() -> None:
    alpha_model = ScriptedResponsesModel([Turn([Text("I am alpha.")])])
    beta_model = ScriptedResponsesModel([Turn([Text("I am beta.")])])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapper_for(Agent(name="alpha"), alpha_model), "/alpha")
    add_openai_agents_fastapi_endpoint(
        app, wrapper_for(Agent(name="beta"), beta_model), "/teams/beta"
    )
    run_input = make_input()

    ids = operation_ids(app)
    async with asgi_client(app) as client:
        alpha = await client.post("/alpha", json=body_of(run_input))
        beta = await client.post("/teams/beta", json=body_of(run_input))
        health = [(await client.get(p)).json() for p in ("/alpha/health", "/teams/beta/health")]

    assert len(ids) == len(set(ids)) == 6
    paths = set(app.openapi()["paths"])
    assert {"/alpha", "/alpha/health", "/alpha/capabilities"} <= paths
    assert {"/teams/beta", "/teams/beta/health", "/teams/beta/capabilities"} <= paths
    assert streamed_text(read_stream(alpha, run_input)) == "I am alpha."
    assert streamed_text(read_stream(beta, run_input)) == "I am beta."
    assert [h["agent"]["name"] for h in health] == ["alpha", "beta"]
    assert alpha_model.call_count == beta_model.call_count == 1


def test_paths_differing_only_in_punctuation_get_unique_operation_ids() -> None:
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapper_for(Agent(name="a")), "/orders-v1")
    add_openai_agents_fastapi_endpoint(app, wrapper_for(Agent(name="b")), "/orders_v1")

    ids = operation_ids(app)

    assert len(ids) == len(set(ids)) == 6


# --- bad input -------------------------------------------------------------------------------


def valid_body() -> dict[str, Any]:
    return body_of(make_input())


def without(key: str) -> dict[str, Any]:
    body = valid_body()
    del body[key]
    return body


def replaced(**changes: Any) -> dict[str, Any]:
    return {**valid_body(), **changes}


@pytest.mark.parametrize(
    ("body", "bad_location"),
    [
        (without("threadId"), ["body", "threadId"]),
        (without("runId"), ["body", "runId"]),
        (replaced(messages={"id": "u1"}), ["body", "messages"]),
        (
            replaced(messages=[{"id": "u1", "role": "wizard", "content": "hi"}]),
            ["body", "messages", 0],
        ),
        (replaced(tools="all of them"), ["body", "tools"]),
    ],
    ids=["missing-thread-id", "missing-run-id", "messages-not-a-list", "bad-role", "bad-tools"],
)
async def test_a_body_failing_validation_is_a_422_naming_the_field(
    body: dict[str, Any], bad_location: list[Any]
) -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])

    async with asgi_client(app_with(wrapper_for(Agent(name="a"), model))) as client:
        response = await client.post("/agent", json=body)

    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/json")
    detail = response.json()["detail"]
    assert any(error["loc"][: len(bad_location)] == bad_location for error in detail), detail
    assert "data:" not in response.text
    assert model.call_count == 0


async def test_a_non_json_body_is_a_422_and_starts_no_stream() -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])

    async with asgi_client(app_with(wrapper_for(Agent(name="a"), model))) as client:
        response = await client.post(
            "/agent", content=b"this is not json", headers={"content-type": "application/json"}
        )

    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/json")
    assert "data:" not in response.text
    assert model.call_count == 0


# --- failures while setting up the run -------------------------------------------------------


class ExplodingProvider(ModelProvider):
    """A provider whose model lookup fails with a message that must not reach the client."""

    def get_model(self, model_name: str | None) -> Model:
        raise RuntimeError(f"cannot open model registry ({SECRET})")


def assert_safe_error(
    response: httpx.Response, run_input: RunAgentInput, message: str | None = None
) -> None:
    """RUN_STARTED ... RUN_ERROR, with ``message`` (when given) and no detail of the failure."""
    events = read_stream(response, run_input)
    assert types(events)[0] == EventType.RUN_STARTED
    assert types(events)[-1] == EventType.RUN_ERROR
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    if message is not None:
        assert error.message == message
    assert error.message.strip()
    assert SECRET not in response.text
    assert "Traceback" not in response.text


def assert_logged(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.exc_info is not None and SECRET in str(r.exc_info[1])]
    assert logged, "the failure's detail was not logged"
    assert all(r.levelno >= logging.ERROR for r in logged)


@pytest.mark.parametrize("run_error_message", [None, "Please try again later."])
async def test_a_failing_resume_step_gives_run_started_then_a_safe_run_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, run_error_message: str | None
) -> None:
    async def broken_resume(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"resume store unavailable ({SECRET})")

    monkeypatch.setattr(agent_module, "resume_tool_calls", broken_resume)
    model = ScriptedResponsesModel([Turn([Text("never")])])
    wrapper = wrapper_for(Agent(name="a"), model, run_error_message=run_error_message)
    run_input = make_input()

    with caplog.at_level(logging.ERROR, logger="ag_ui_openai_agents"):
        async with asgi_client(app_with(wrapper)) as client:
            response = await client.post("/agent", json=body_of(run_input))

    assert_safe_error(response, run_input, run_error_message or SETUP_ERROR_MESSAGE)
    assert len(parse_sse(response.text)) == 2  # RUN_STARTED, RUN_ERROR and nothing else
    assert_logged(caplog)
    assert model.call_count == 0


async def test_a_failing_translation_gives_run_started_then_a_safe_run_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    wrapper = wrapper_for(Agent(name="a"), model)

    def broken_translation(run_input: RunAgentInput) -> Any:
        raise ValueError(f"unsupported content ({SECRET})")

    monkeypatch.setattr(wrapper.translator, "to_openai", broken_translation)
    run_input = make_input()

    with caplog.at_level(logging.ERROR, logger="ag_ui_openai_agents"):
        async with asgi_client(app_with(wrapper)) as client:
            response = await client.post("/agent", json=body_of(run_input))

    assert_safe_error(response, run_input, SETUP_ERROR_MESSAGE)
    assert_logged(caplog)
    assert model.call_count == 0


async def test_a_failing_model_provider_with_run_error_message_stays_safe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    wrapper = wrapper_for(
        Agent(name="a"), provider=ExplodingProvider(), run_error_message="Agent run failed."
    )
    run_input = make_input()

    with caplog.at_level(logging.ERROR, logger="ag_ui_openai_agents"):
        async with asgi_client(app_with(wrapper)) as client:
            response = await client.post("/agent", json=body_of(run_input))

    assert_safe_error(response, run_input, "Agent run failed.")
    assert_logged(caplog)


async def test_a_failing_model_provider_stays_safe_by_default_and_detailed_on_opt_in(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A provider failure happens inside the SDK run: an ordinary run error. By default the
    client gets the safe message and code; ``expose_error_details`` sends its text; never a
    traceback; logged on the server either way."""
    run_input = make_input()
    answers = []
    for expose in (False, True):
        wrapper = wrapper_for(
            Agent(name="a"), provider=ExplodingProvider(), expose_error_details=expose
        )
        with caplog.at_level(logging.ERROR, logger="ag_ui_openai_agents"):
            async with asgi_client(app_with(wrapper)) as client:
                answers.append(await client.post("/agent", json=body_of(run_input)))
        assert_logged(caplog)
        caplog.clear()

    safe, detailed = (read_stream(answer, run_input) for answer in answers)
    assert_safe_error(answers[0], run_input, AGENT_ERROR_MESSAGE)
    assert safe[-1].code == AGENT_ERROR_CODE  # type: ignore[attr-defined]
    assert types(detailed)[-1] == EventType.RUN_ERROR
    assert "model registry" in detailed[-1].message  # type: ignore[attr-defined]
    assert "Traceback" not in answers[1].text


# --- a real server ---------------------------------------------------------------------------


async def test_a_real_uvicorn_server_streams_a_valid_run() -> None:
    agent = Agent(name="shop", instructions="Help.", tools=[lookup_order])
    model = ScriptedResponsesModel(
        [Turn([Call("lookup_order", {"order_id": "7"})]), Turn([Text("Order 7 shipped.")])]
    )
    run_input = make_input()

    with serve_app(app_with(wrapper_for(agent, model))) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
            response = await client.post("/agent", json=body_of(run_input))
            health = await client.get("/agent/health")

    events = read_stream(response, run_input)
    assert streamed_text(events) == "Order 7 shipped."
    assert types(events)[-1] == EventType.RUN_FINISHED
    assert health.json()["agent"]["name"] == "shop"


# --- concurrency -----------------------------------------------------------------------------


def echo_turn(call: RecordedCall) -> Turn:
    """Answer with what this model call received: its tool names and instructions."""
    return Turn([Text(json.dumps({"tools": call.tool_names, "instructions": call.instructions}))])


def fingerprint(agent: Agent[Any]) -> tuple[Any, ...]:
    """The objects a request could be tempted to change, the tools list's items included."""
    return (agent.tools, *agent.tools, agent.instructions, agent.tool_use_behavior)


async def test_fifty_concurrent_requests_each_see_only_their_own_tools_and_context() -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    before = fingerprint(agent)
    model = ScriptedResponsesModel(echo_turn, delay=0.002)
    app = app_with(wrapper_for(agent, model))
    inputs = [
        make_input(
            run_id=f"run-{i}",
            tools=[Tool(name=f"client_tool_{i}", description=f"Tool {i}.", parameters={})],
            context=[Context(description="request", value=f"number {i}")],
        )
        for i in range(50)
    ]

    async with asgi_client(app) as client:
        responses = await asyncio.gather(
            *(client.post("/agent", json=body_of(run_input)) for run_input in inputs)
        )

    for i, (run_input, response) in enumerate(zip(inputs, responses, strict=True)):
        seen = json.loads(streamed_text(read_stream(response, run_input)))
        assert seen["tools"] == ["lookup_order", f"client_tool_{i}"]
        instructions = seen["instructions"]
        assert instructions.startswith("Help with orders.")
        assert instructions.endswith(f"{CONTEXT_HEADER}\nrequest: number {i}")
        assert instructions.count("request: number") == 1
    assert model.call_count == 50
    assert all(a is b for a, b in zip(fingerprint(agent), before, strict=True))


# --- client disconnects ----------------------------------------------------------------------

_WATCHED_DIRS = (
    os.path.dirname(agents.__file__) + os.sep,
    os.path.dirname(ag_ui_openai_agents.__file__) + os.sep,
)


def _awaited_files(task: asyncio.Task[Any]) -> list[str]:
    """The source files of every coroutine / generator the task is suspended in."""
    files: list[str] = []
    current: Any = task.get_coro()
    while current is not None:
        code = getattr(current, "cr_code", None) or getattr(current, "ag_code", None)
        code = code or getattr(current, "gi_code", None)
        if code is not None:
            files.append(code.co_filename)
        current = (
            getattr(current, "cr_await", None)
            or getattr(current, "ag_await", None)
            or getattr(current, "gi_yieldfrom", None)
        )
    return files


async def _live_run_tasks() -> list[str]:
    """Tasks of the current loop still running SDK or package code."""
    me = asyncio.current_task()
    return [
        repr(task)
        for task in asyncio.all_tasks()
        if task is not me
        and not task.done()
        and any(f.startswith(_WATCHED_DIRS) for f in _awaited_files(task))
    ]


async def _live_run_tasks_on(loop: asyncio.AbstractEventLoop) -> list[str]:
    future = asyncio.run_coroutine_threadsafe(_live_run_tasks(), loop)
    return await asyncio.wrap_future(future)


async def test_a_client_disconnect_stops_the_sdk_run(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks: list[int] = []

    @function_tool
    async def tick() -> str:
        """Advance the clock."""
        ticks.append(len(ticks))
        return "tick"

    started: list[tuple[Any, asyncio.AbstractEventLoop]] = []
    original = Runner.run_streamed

    def recording(cls: type[Runner], *args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        started.append((result, asyncio.get_running_loop()))
        return result

    monkeypatch.setattr(Runner, "run_streamed", classmethod(recording))
    # Each turn streams about eight events 0.1 s apart: the whole run would take ~5 s.
    turns = [Turn([Call("tick", {}, call_id=f"tick-{i}")]) for i in range(6)]
    model = ScriptedResponsesModel([*turns, Turn([Text("finished")])], delay=0.1)
    agent = Agent(name="clock", instructions="Tick.", tools=[tick])
    run_input = make_input()

    with serve_app(app_with(wrapper_for(agent, model))) as base_url:
        seen: list[str] = []
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=30) as client,
            client.stream("POST", "/agent", json=body_of(run_input)) as response,
        ):
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    seen.append(json.loads(line[5:])["type"])
                if "TOOL_CALL_START" in seen:
                    break
        calls_at_disconnect = model.call_count
        (result, server_loop) = started[0]
        # Wait for the run's tasks to end: once none is left, nothing can call the model or
        # the tool again. Had the run gone on instead, it would tick before it ended.
        remaining = await _live_run_tasks_on(server_loop)
        guard = asyncio.get_running_loop().time() + 30  # bounds a broken test only
        while remaining and asyncio.get_running_loop().time() < guard:
            await asyncio.sleep(0.05)
            remaining = await _live_run_tasks_on(server_loop)

    assert seen[:2] == ["RUN_STARTED", "STEP_STARTED"]
    assert remaining == [], remaining
    assert calls_at_disconnect == 1
    assert model.call_count == calls_at_disconnect
    assert ticks == []
    assert result.is_complete
    assert len(started) == 1
