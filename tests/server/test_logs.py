"""Logs: one hierarchy under ``ag_ui_openai_agents``, the run's ids on every record of a run,
start and end at debug, each failure once, by the route: at error with the traceback when the
run raised (and never to the client), at warning with its code when it ended with a RUN_ERROR
of its own."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent
from agents import Agent, RunConfig, Runner, function_tool
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI, Request, Response

from ag_ui_openai_agents import (
    AGUITranslator,
    Approvals,
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
)
from ag_ui_openai_agents.approvals.limits import ResumeLimits
from ag_ui_openai_agents.errors import (
    AGENT_ERROR_CODE,
    RESUME_LIMIT_CODE,
    THREAD_BUSY_CODE,
    THREAD_KEY_CODE,
    THREAD_STORE_CODE,
)
from ag_ui_openai_agents.server.logs import (
    PACKAGE_LOGGER,
    RunIdsFilter,
    current_run_ids,
    install_run_ids_filter,
    run_ids,
)
from ag_ui_openai_agents.server.streaming import agui_sse_response
from ag_ui_openai_agents.threads import SQLiteThreadStore
from ag_ui_openai_agents.threads.runs import store_key
from support.invariants import check_stream, parse_sse
from support.scripted import Call, ScriptedProvider, ScriptedResponsesModel, Text, Turn
from support.threads import by_thread_id

SECRET = "token=s3cr3t"
tool_log = logging.getLogger("shop.tools")


@function_tool
def lookup_order(order_id: str) -> str:
    """Find an order."""
    tool_log.info("looking up %s", order_id)
    return f"order {order_id}: shipped"


class BrokenProvider(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        raise RuntimeError(f"model registry down ({SECRET})")


def make_app(provider: ModelProvider, **options: Any) -> FastAPI:
    config = RunConfig(model_provider=provider, tracing_disabled=True)
    agent = Agent(name="shop", instructions="Help.", tools=[lookup_order])
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, OpenAIAgentsAgent(agent, run_config=config, **options))
    return app


def body(**changes: Any) -> dict[str, Any]:
    return {
        "threadId": "thread-7",
        "runId": "run-7",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": "Where is order 42?"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **changes,
    }


async def post(app: FastAPI, data: dict[str, Any]) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.post("/agent", json=data)


class Recorder(logging.Handler):
    """Keeps every record, stamped by a RunIdsFilter of its own."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.addFilter(RunIdsFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    handler = Recorder()
    root, package = logging.getLogger(), logging.getLogger(PACKAGE_LOGGER)
    levels = (root.level, package.level)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    package.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        package.setLevel(levels[1])


def ids_of(record: logging.LogRecord) -> tuple[Any, Any]:
    return (getattr(record, "thread_id", "missing"), getattr(record, "run_id", "missing"))


def package_records(recorder: Recorder) -> list[logging.LogRecord]:
    return [r for r in recorder.records if r.name.startswith(PACKAGE_LOGGER)]


async def test_a_run_logs_its_start_and_end_at_debug_with_its_ids(recorder: Recorder) -> None:
    model = ScriptedResponsesModel(
        [Turn([Call("lookup_order", {"order_id": "42"})]), Turn([Text("Shipped.")])]
    )

    response = await post(make_app(ScriptedProvider(model)), body())

    check_stream(parse_sse(response.text))
    mine = package_records(recorder)
    messages = [(r.levelno, r.getMessage()) for r in mine]
    assert (logging.DEBUG, "AG-UI run of shop started") in messages
    assert (logging.DEBUG, "AG-UI run of shop ended: the run's stream ended") in messages
    assert {ids_of(r) for r in mine} == {("thread-7", "run-7")}
    tool_records = [r for r in recorder.records if r.name == "shop.tools"]
    assert [ids_of(r) for r in tool_records] == [("thread-7", "run-7")]


async def test_records_of_other_package_modules_carry_the_run_ids() -> None:
    """No handler filter here: the package's own loggers stamp their records."""
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    keep = Keep(logging.DEBUG)
    agent_logger = logging.getLogger(f"{PACKAGE_LOGGER}.inbound.messages")
    agent_logger.addHandler(keep)
    clash = {"name": "lookup_order", "description": "Client copy.", "parameters": {}}
    model = ScriptedResponsesModel([Turn([Text("Hi.")])])
    try:
        response = await post(make_app(ScriptedProvider(model)), body(tools=[clash]))
    finally:
        agent_logger.removeHandler(keep)

    check_stream(parse_sse(response.text))
    warnings = [r for r in seen if "Client tool" in r.getMessage()]
    assert warnings
    assert {ids_of(r) for r in warnings} == {("thread-7", "run-7")}


def failures_of(recorder: Recorder) -> list[logging.LogRecord]:
    """The package's records of a failure: warnings and above."""
    return [r for r in package_records(recorder) if r.levelno >= logging.WARNING]


async def test_a_failed_run_is_logged_once_at_error_with_traceback_and_ids(
    recorder: Recorder,
) -> None:
    response = await post(make_app(BrokenProvider(), run_error_message="Try later."), body())

    events = parse_sse(response.text)
    assert events[-1].type == EventType.RUN_ERROR
    assert SECRET not in response.text
    assert "Traceback" not in response.text
    [failure] = failures_of(recorder)
    assert failure.levelno == logging.ERROR and failure.name == STREAMING_LOGGER
    assert failure.exc_info is not None and SECRET in str(failure.exc_info[1])
    assert AGENT_ERROR_CODE in failure.getMessage()
    assert ids_of(failure) == ("thread-7", "run-7")
    ended = [r.getMessage() for r in package_records(recorder) if "ended" in r.getMessage()]
    assert ended == ["AG-UI run of shop ended: the run failed"]


STREAMING_LOGGER = f"{PACKAGE_LOGGER}.server.streaming"


def failing_context(run_input: RunAgentInput, request: Any) -> Any:
    raise RuntimeError(f"context service down ({SECRET})")


def failing_key(thread_id: str, request: Any) -> str:
    raise PermissionError(f"no session ({SECRET})")


class BrokenStore(SQLiteThreadStore):
    async def load(self, key: str) -> str | None:
        raise ConnectionError(f"store down ({SECRET})")


def over_the_limit() -> dict[str, Any]:
    entries = [{"interruptId": f"c{n}", "status": "resolved", "payload": {}} for n in range(3)]
    return body(resume=entries)


def hand_written(provider: ModelProvider) -> FastAPI:
    """A route written by hand: ``to_agui`` (no ``run_error_message``) in ``agui_sse_response``."""
    config = RunConfig(model_provider=provider, tracing_disabled=True)
    translator = AGUITranslator()
    app = FastAPI()

    @app.post("/agent")
    async def run(run_input: RunAgentInput, request: Request) -> Response:
        async def events() -> AsyncIterator[BaseEvent]:
            translated = translator.to_openai(run_input)
            agent = Agent(name="shop")
            result = Runner.run_streamed(agent, translated.messages, run_config=config)
            async for event in translator.to_agui(result, run_input):
                yield event

        return agui_sse_response(request, run_input, events())

    return app


FAILURES: dict[str, tuple[Callable[[Path], FastAPI], dict[str, Any], int, str]] = {
    "setup": (
        lambda tmp: make_app(BrokenProvider(), context=failing_context),
        body(),
        logging.ERROR,
        AGENT_ERROR_CODE,
    ),
    "by hand": (
        lambda tmp: hand_written(BrokenProvider()),
        body(),
        logging.ERROR,
        AGENT_ERROR_CODE,
    ),
    "thread key": (
        lambda tmp: make_app(
            BrokenProvider(), threads=SQLiteThreadStore(tmp / "t.db"), thread_key=failing_key
        ),
        body(),
        logging.ERROR,
        THREAD_KEY_CODE,
    ),
    "thread store": (
        lambda tmp: make_app(
            BrokenProvider(), threads=BrokenStore(tmp / "t.db"), thread_key=by_thread_id
        ),
        body(),
        logging.ERROR,
        THREAD_STORE_CODE,
    ),
    "resume limit": (
        lambda tmp: make_app(
            BrokenProvider(), approvals=Approvals(limits=ResumeLimits(max_entries=2))
        ),
        over_the_limit(),
        logging.WARNING,
        RESUME_LIMIT_CODE,
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
async def test_each_failure_is_logged_once_by_the_route_with_the_ids(
    case: str, recorder: Recorder, tmp_path: Path
) -> None:
    """Wherever the run failed (its setup, the translator, the thread store), or was refused,
    one record says so: the route's, with the run's ids and the code the client was sent."""
    make, data, level, code = FAILURES[case]

    response = await post(make(tmp_path), data)

    end = parse_sse(response.text)[-1]
    assert isinstance(end, RunErrorEvent) and end.code == code
    assert SECRET not in response.text
    [failure] = failures_of(recorder)
    assert (failure.name, failure.levelno) == (STREAMING_LOGGER, level)
    assert ids_of(failure) == ("thread-7", "run-7")
    assert code in failure.getMessage()
    if level == logging.ERROR:
        assert failure.exc_info is not None and SECRET in str(failure.exc_info[1])
    else:
        assert failure.exc_info is None and end.message in failure.getMessage()


async def test_a_busy_thread_is_logged_once_with_the_ids(
    recorder: Recorder, tmp_path: Path
) -> None:
    store = SQLiteThreadStore(tmp_path / "t.db", lock_wait=0)
    app = make_app(BrokenProvider(), threads=store, thread_key=by_thread_id)
    assert await store.acquire(store_key("shop", "thread-7"), "another-run")

    response = await post(app, body())

    end = parse_sse(response.text)[-1]
    assert isinstance(end, RunErrorEvent) and end.code == THREAD_BUSY_CODE
    [failure] = failures_of(recorder)
    assert (failure.name, failure.levelno) == (STREAMING_LOGGER, logging.WARNING)
    assert ids_of(failure) == ("thread-7", "run-7") and THREAD_BUSY_CODE in failure.getMessage()


async def test_concurrent_runs_keep_their_own_ids(recorder: Recorder) -> None:
    model = ScriptedResponsesModel(
        lambda call: (
            Turn([Call("lookup_order", {"order_id": "1"})])
            if len(call.input) == 1
            else Turn([Text("Done.")])
        ),
        delay=0.01,
    )
    app = make_app(ScriptedProvider(model))

    responses = await asyncio.gather(
        *(post(app, body(threadId=f"thread-{i}", runId=f"run-{i}")) for i in range(5))
    )

    for response in responses:
        check_stream(parse_sse(response.text))
    tool_records = [r for r in recorder.records if r.name == "shop.tools"]
    assert sorted(ids_of(r) for r in tool_records) == [
        (f"thread-{i}", f"run-{i}") for i in range(5)
    ]


def test_outside_a_run_the_ids_are_none() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)

    RunIdsFilter().filter(record)

    assert ids_of(record) == (None, None)


def test_ids_given_in_extra_are_kept() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    record.run_id = "explicit"

    with run_ids("thread-a", "run-a"):
        RunIdsFilter().filter(record)

    assert ids_of(record) == ("thread-a", "explicit")


def test_run_ids_for_custom_servers() -> None:
    assert current_run_ids() is None
    with run_ids("thread-b", "run-b") as ids:
        assert current_run_ids() == ids
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        RunIdsFilter().filter(record)
    assert current_run_ids() is None
    assert ids_of(record) == ("thread-b", "run-b")


def test_every_package_logger_gets_the_filter_once() -> None:
    late = logging.getLogger(f"{PACKAGE_LOGGER}.created_later")
    outsider = logging.getLogger("not_the_package.module")

    install_run_ids_filter()
    install_run_ids_filter()

    for name in ("", ".agent", ".translator", ".server.streaming", ".created_later"):
        logger = logging.getLogger(PACKAGE_LOGGER + name)
        assert sum(isinstance(f, RunIdsFilter) for f in logger.filters) == 1, name
    assert not any(isinstance(f, RunIdsFilter) for f in outsider.filters)
    assert late.filters


def test_every_module_that_logs_is_imported_with_the_endpoint() -> None:
    """The filter is put on the package's loggers once, when an endpoint is added (not per
    request): every module of the package that logs must exist by then. The A2UI module (an
    extra) is imported by the program that makes the ``A2UI`` it gives the wrapper."""
    script = (
        "import logging, pkgutil, sys\n"
        "from fastapi import FastAPI\n"
        "import ag_ui_openai_agents as package\n"
        "from ag_ui_openai_agents import A2UI, OpenAIAgentsAgent\n"
        "from ag_ui_openai_agents import add_openai_agents_fastapi_endpoint\n"
        "from agents import Agent\n"
        "agent = OpenAIAgentsAgent(Agent(name='a'), a2ui=A2UI())\n"
        "add_openai_agents_fastapi_endpoint(FastAPI(), agent)\n"
        "loaded = set(logging.Logger.manager.loggerDict)\n"
        "prefix = package.__name__ + '.'\n"
        "names = [m.name for m in pkgutil.walk_packages(package.__path__, prefix)]\n"
        "for name in names:\n"
        "    __import__(name)\n"
        "late = [n for n in logging.Logger.manager.loggerDict if n.startswith('ag_ui_openai')]\n"
        "print(sorted(set(late) - loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
