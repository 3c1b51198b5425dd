"""A hostile client against the HTTP edge: the FastAPI shortcut and a route written by hand
with the package's edge pieces (``RequestLimitMiddleware`` and ``agui_sse_response``).

Each test replays one attack through the real app, on both request kinds (``protocolVersion``
"1.0" and absent), bounded in size (a small ``max_request_bytes``), and asserts limits and
counts: bytes the app read, status codes, the length of a 422, the terminal event, secrets
absent. Every stream collected goes through the invariant checker.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import respx
from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    StepFinishedEvent,
    StepStartedEvent,
)
from agents import Agent, RunConfig, Runner, function_tool
from agents.models.interface import Model, ModelProvider
from agents.models.openai_responses import OpenAIResponsesModel
from fastapi import Depends, FastAPI, Header, HTTPException, Request, Response
from openai import AsyncOpenAI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import ag_ui_openai_agents.server.endpoint as endpoint_module
import ag_ui_openai_agents.server.streaming as streaming_module
from ag_ui_openai_agents import (
    AGUITranslator,
    Approvals,
    ApprovalSigner,
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    resume_tool_calls,
)
from ag_ui_openai_agents.agent import AGENT_ERROR_CODE, AGENT_ERROR_MESSAGE
from ag_ui_openai_agents.approvals.limits import RESUME_LIMIT_CODE
from ag_ui_openai_agents.server.limits import RequestLimitMiddleware
from ag_ui_openai_agents.server.logs import PACKAGE_LOGGER, RunIdsFilter
from ag_ui_openai_agents.server.shutdown import ServerShutdown
from ag_ui_openai_agents.server.streaming import (
    SHUTDOWN_ERROR_CODE,
    agui_sse_response,
)
from support.e2e import serve_app
from support.http import asgi_client
from support.invariants import check_stream, parse_sse
from support.scripted import Call, ScriptedProvider, ScriptedResponsesModel, Text, Turn

LIMIT = 4096
CHUNK = 1024
SECRET = "password=hunter2 key=sk-test-LEAK at /srv/app/settings.py"
API_KEY = "sk-test-LEAK-0123456789abcdef"
GUARD_SECONDS = 30.0
KINDS = pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1.0", "pre-1.0"])


def body(run_id: str = "run-1", *, pre_1_0: bool, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "threadId": "thread-1",
        "runId": run_id,
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": "Refund order A-17."}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **changes,
    }
    if pre_1_0:
        del data["protocolVersion"]
    return data


def checked(raw: str, request: dict[str, Any]) -> list[BaseEvent]:
    """The stream's events, checked as the answer to ``request``."""
    events = parse_sse(raw)
    run_input = RunAgentInput.model_validate(request)
    check_stream(events, run_input=run_input, pre_1_0="protocolVersion" not in request)
    return events


def config(model: Model | None = None, provider: ModelProvider | None = None) -> RunConfig:
    chosen = provider or ScriptedProvider(model or ScriptedResponsesModel([Turn([Text("Hi.")])]))
    return RunConfig(model_provider=chosen, tracing_disabled=True)


class LeakingProvider(ModelProvider):
    """A model lookup failing with text that must stay on the server."""

    def get_model(self, model_name: str | None) -> Model:
        raise RuntimeError(SECRET)


def shortcut(
    agent: Agent[Any],
    run_config: RunConfig,
    *,
    signer: ApprovalSigner | None = None,
    expose_error_details: bool = False,
    **options: Any,
) -> FastAPI:
    """The FastAPI shortcut serving ``agent``; ``options`` are the endpoint's."""
    app = FastAPI()
    wrapped = OpenAIAgentsAgent(
        agent,
        run_config=run_config,
        approvals=Approvals(signer=signer),
        expose_error_details=expose_error_details,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, "/agent", **options)
    return app


def hand_written(
    agent: Agent[Any],
    run_config: RunConfig,
    *,
    signer: ApprovalSigner | None = None,
    max_request_bytes: int | None = LIMIT,
    keepalive_seconds: float | None = None,
) -> FastAPI:
    """A route written by hand around the translator, with the package's edge pieces."""
    app = FastAPI()
    app.add_middleware(RequestLimitMiddleware, max_request_bytes=max_request_bytes)
    translator = AGUITranslator()

    @app.post("/agent")
    async def run(run_input: RunAgentInput, request: Request) -> Response:
        async def events() -> AsyncIterator[BaseEvent]:
            resumed = await resume_tool_calls(
                agent, run_input, run_config=run_config, approvals=Approvals(signer=signer)
            )
            result = None
            if not resumed.open_interrupts:
                translated = translator.to_openai(resumed.run_input)
                result = Runner.run_streamed(
                    translated.with_client_tools(agent),
                    input=translated.messages,
                    context=translated.context,
                    run_config=run_config,
                )
            async for event in translator.to_agui(result, resumed.run_input, resumed=resumed):
                yield event

        return agui_sse_response(request, run_input, events(), keepalive_seconds=keepalive_seconds)

    return app


APPS = pytest.mark.parametrize("make_app", [shortcut, hand_written], ids=["shortcut", "by hand"])


class CountingReceive:
    """ASGI middleware counting the body bytes the app below it received."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.received = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counted() -> Message:
            message = await receive()
            self.received += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


async def chunked(total: int, pulled: list[int]) -> AsyncIterator[bytes]:
    """A JSON-looking body of ``total`` bytes, sent lazily; ``pulled`` counts chunks sent."""
    yield b'{"threadId": "t", "runId": "r", "messages": [], "state": "'
    for _ in range(total // CHUNK):
        pulled.append(CHUNK)
        yield b"x" * CHUNK
    yield b'"}'


# --- attack 4: exception text in RUN_ERROR ----------------------------------------------------


@APPS
@KINDS
async def test_a_failed_run_sends_a_safe_message_and_code_and_logs_the_detail(
    make_app: Any, pre_1_0: bool, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(Agent(name="leaky"), config(provider=LeakingProvider()))
    request = body(pre_1_0=pre_1_0)

    with caplog.at_level(logging.ERROR, logger=PACKAGE_LOGGER):
        async with asgi_client(app) as client:
            response = await client.post("/agent", json=request)

    events = checked(response.text, request)
    end = events[-1]
    assert isinstance(end, RunErrorEvent)
    assert (end.message, end.code) == (AGENT_ERROR_MESSAGE, AGENT_ERROR_CODE)
    assert "hunter2" not in response.text and "sk-test" not in response.text
    assert "/srv/app" not in response.text and "Traceback" not in response.text
    logged = [r for r in caplog.records if r.exc_info and SECRET in str(r.exc_info[1])]
    assert logged and all(getattr(r, "run_id", None) == "run-1" for r in logged)


def upstream_401_model() -> OpenAIResponsesModel:
    """The SDK's real Responses model on a local API that refuses the key, quoting it."""
    router = respx.Router(base_url="http://api.openai.test/v1", assert_all_mocked=True)
    refusal = {
        "error": {
            "message": f"Incorrect API key provided: {API_KEY}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
    router.post("/responses").respond(401, json=refusal)
    http = httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler))
    client = AsyncOpenAI(
        base_url="http://api.openai.test/v1", api_key=API_KEY, http_client=http, max_retries=0
    )
    return OpenAIResponsesModel(model="gpt-4.1", openai_client=client)


@APPS
@KINDS
async def test_an_upstream_401_quoting_the_api_key_does_not_reach_the_client(
    make_app: Any, pre_1_0: bool, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(Agent(name="assistant", model=upstream_401_model()), config())
    request = body(pre_1_0=pre_1_0)

    with caplog.at_level(logging.ERROR, logger=PACKAGE_LOGGER):
        async with asgi_client(app) as client:
            response = await client.post("/agent", json=request)

    end = checked(response.text, request)[-1]
    assert isinstance(end, RunErrorEvent) and end.code == AGENT_ERROR_CODE
    assert API_KEY not in response.text and "sk-test" not in response.text
    assert any(r.exc_info and API_KEY in str(r.exc_info[1]) for r in caplog.records)


@KINDS
async def test_the_details_reach_the_client_only_when_the_application_opts_in(
    pre_1_0: bool,
) -> None:
    app = shortcut(Agent(name="dev"), config(provider=LeakingProvider()), expose_error_details=True)
    request = body(pre_1_0=pre_1_0)

    async with asgi_client(app) as client:
        response = await client.post("/agent", json=request)

    end = checked(response.text, request)[-1]
    assert isinstance(end, RunErrorEvent)
    assert (end.message, end.code) == (SECRET, "RuntimeError")


# --- attack 5: hand-written routes get the shortcut's limits ----------------------------------


@APPS
@KINDS
async def test_a_chunked_body_over_the_limit_is_refused_after_reading_the_limit(
    make_app: Any, pre_1_0: bool
) -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    pulled: list[int] = []
    app = make_app(Agent(name="a"), config(model), max_request_bytes=LIMIT)

    async with asgi_client(app) as client:
        response = await client.post(
            "/agent",
            content=chunked(150 * LIMIT, pulled),
            headers={"content-type": "application/json"},
        )

    assert response.status_code == 413
    assert str(LIMIT) in response.json()["detail"]
    assert sum(pulled) <= LIMIT + CHUNK
    assert model.call_count == 0


@APPS
@KINDS
async def test_a_large_invalid_body_gets_a_short_422(make_app: Any, pre_1_0: bool) -> None:
    model = ScriptedResponsesModel([Turn([Text("never")])])
    app = make_app(Agent(name="a"), config(model), max_request_bytes=1024 * 1024)
    huge = "y" * 500_000
    request = body(pre_1_0=pre_1_0, threadId=None)
    request["messages"].append({"id": "u2", "role": "wizard", "content": huge})

    async with asgi_client(app) as client:
        response = await client.post("/agent", json=request)

    assert response.status_code == 422
    assert len(response.content) < 8192
    assert ["body", "threadId"] in [error["loc"] for error in response.json()["detail"]]
    assert model.call_count == 0


def nested_resume(pre_1_0: bool, depth: int = 100_000) -> dict[str, Any]:
    """A history holding a paused refund whose arguments nest ``depth`` arrays deep, approved."""
    arguments = "[" * depth + "]" * depth
    call = {
        "id": "call-1",
        "type": "function",
        "function": {"name": "refund", "arguments": arguments},
    }
    request = body(pre_1_0=pre_1_0)
    request["messages"].append({"id": "assistant-1", "role": "assistant", "toolCalls": [call]})
    request["resume"] = [
        {"interruptId": "call-1", "status": "resolved", "payload": {"approved": True}}
    ]
    return request


@function_tool(needs_approval=True)
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


@APPS
@KINDS
async def test_deeply_nested_tool_arguments_end_with_a_terminal_event(
    make_app: Any, pre_1_0: bool
) -> None:
    model = ScriptedResponsesModel([Turn([Text("Done.")])] * 2)
    signer = ApprovalSigner.from_secret("s" * 32)
    agent = Agent(name="support", tools=[refund])
    app = make_app(agent, config(model), signer=signer, max_request_bytes=1024 * 1024)
    request = nested_resume(pre_1_0)

    async with asgi_client(app) as client:
        response = await client.post("/agent", json=request)

    assert response.status_code == 200
    events = checked(response.text, request)  # raises on a stream cut with no terminal event
    end = events[-1]
    assert isinstance(end, RunErrorEvent)
    assert "recursion" not in response.text.lower()


# --- authentication before the body is read ---------------------------------------------------


async def require_token(authorization: str = Header(default="")) -> None:
    if authorization != "Bearer let-me-in":
        raise HTTPException(status_code=401, detail="A valid token is required.")


@KINDS
async def test_an_unauthenticated_8_mib_body_is_refused_before_it_is_read(pre_1_0: bool) -> None:
    model = ScriptedResponsesModel([Turn([Text("Hello.")])])
    app = shortcut(Agent(name="a"), config(model), dependencies=[Depends(require_token)])
    counting = CountingReceive(app)
    pulled: list[int] = []

    async with asgi_client(counting) as client:  # type: ignore[arg-type]
        refused = await client.post(
            "/agent",
            content=chunked(8 * 1024 * 1024 - 1024, pulled),
            headers={"content-type": "application/json"},
        )
        received_refused = counting.received
        request = body(pre_1_0=pre_1_0)
        allowed = await client.post(
            "/agent", json=request, headers={"authorization": "Bearer let-me-in"}
        )

    assert refused.status_code == 401
    assert received_refused <= CHUNK
    assert sum(pulled) <= CHUNK
    assert allowed.status_code == 200
    checked(allowed.text, request)
    assert model.call_count == 1


# --- attack 6: shutdown, logs -----------------------------------------------------------------


@pytest.fixture
def shutdown(monkeypatch: pytest.MonkeyPatch) -> ServerShutdown:
    state = ServerShutdown()
    monkeypatch.setattr(endpoint_module, "server_shutdown", state)
    monkeypatch.setattr(streaming_module, "server_shutdown", state)
    return state


def stalled_app(make_app: Any) -> FastAPI:
    """An app whose agent calls a tool that waits until the test ends (it is cancelled)."""

    @function_tool
    async def wait_for_the_warehouse() -> str:
        """Ask the warehouse."""
        await asyncio.sleep(3600)
        return "never"

    model = ScriptedResponsesModel([Turn([Call("wait_for_the_warehouse", {})])])
    agent = Agent(name="warehouse", tools=[wait_for_the_warehouse])
    return make_app(agent, config(model), keepalive_seconds=None)  # type: ignore[no-any-return]


async def read_until(chunks: AsyncIterator[str], marker: str) -> str:
    raw = ""
    async for text in chunks:
        raw += text
        if marker in raw and raw.endswith("\n\n"):
            return raw
    raise AssertionError(f"{marker} never came: {raw}")


@APPS
@KINDS
async def test_shutdown_finishes_open_steps_before_its_run_error(
    make_app: Any, pre_1_0: bool, shutdown: ServerShutdown
) -> None:
    request = body(pre_1_0=pre_1_0)

    with serve_app(stalled_app(make_app)) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=GUARD_SECONDS) as client:
            async with client.stream("POST", "/agent", json=request) as response:
                chunks = response.aiter_text()
                raw = await read_until(chunks, '"TOOL_CALL_END"')
                shutdown.begin()
                async for text in chunks:
                    raw += text
            later = await client.post("/agent", json=request)

    events = checked(raw, request)
    started = [e.step_name for e in events if isinstance(e, StepStartedEvent)]
    finished = [e.step_name for e in events if isinstance(e, StepFinishedEvent)]
    assert started and sorted(started) == sorted(finished)
    end = events[-1]
    assert isinstance(end, RunErrorEvent) and end.code == SHUTDOWN_ERROR_CODE
    assert [e.type for e in events].count(EventType.RUN_ERROR) == 1
    assert later.status_code == 503


@pytest.fixture
def text_log() -> Iterator[io.StringIO]:
    """The package's records, written in the format the deployment guide suggests."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RunIdsFilter())
    handler.setFormatter(
        logging.Formatter("%(levelname)s %(name)s thread=%(thread_id)s run=%(run_id)s %(message)s")
    )
    package = logging.getLogger(PACKAGE_LOGGER)
    level = package.level
    package.addHandler(handler)
    package.setLevel(logging.DEBUG)
    try:
        yield out
    finally:
        package.removeHandler(handler)
        package.setLevel(level)


@APPS
@KINDS
async def test_ids_from_the_client_cannot_forge_log_lines(
    make_app: Any, pre_1_0: bool, text_log: io.StringIO
) -> None:
    forged = "\nCRITICAL ag_ui_openai_agents thread=x run=y forged\r\u2028"
    request = body(pre_1_0=pre_1_0, threadId=f"thread{forged}", runId=f"run{forged}")
    app = make_app(Agent(name="a"), config(provider=LeakingProvider()))

    async with asgi_client(app) as client:
        response = await client.post("/agent", json=request)

    checked(response.text, request)
    lines = text_log.getvalue().splitlines()
    assert lines, "nothing was logged"
    assert not [line for line in lines if line.startswith("CRITICAL")]
    assert not [line for line in lines if "forged" in line and "thread=thread\\n" not in line]
    assert any("thread=thread\\nCRITICAL" in line and "\\u2028" in line for line in lines)


@APPS
@KINDS
async def test_a_resume_over_the_limits_names_the_limit_on_both_paths(
    make_app: Any, pre_1_0: bool
) -> None:
    """``ResumeLimitError`` is the package's own text for the client: a route written by hand
    around ``resume_tool_calls`` sends it as the shortcut does, code ``RESUME_LIMIT``."""
    app = make_app(
        Agent(name="assistant"), config(provider=LeakingProvider()), max_request_bytes=65536
    )
    entries = [
        {"interruptId": f"call-{n}", "status": "resolved", "payload": {"approved": True}}
        for n in range(101)
    ]
    request = body(pre_1_0=pre_1_0, resume=entries)

    async with asgi_client(app) as client:
        response = await client.post("/agent", json=request)

    end = checked(response.text, request)[-1]
    assert isinstance(end, RunErrorEvent)
    assert end.code == RESUME_LIMIT_CODE
    assert "101 resume entries" in end.message and "100" in end.message
