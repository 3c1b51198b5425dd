"""Logs: one hierarchy under ``ag_ui_openai_agents``, the run's ids on every record of a run,
start and end at debug, failures at error with the traceback (and never to the client)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType
from agents import Agent, RunConfig, function_tool
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.server.logs import (
    PACKAGE_LOGGER,
    RunIdsFilter,
    current_run_ids,
    install_run_ids_filter,
    run_ids,
)
from support.invariants import check_stream, parse_sse
from support.scripted import Call, ScriptedProvider, ScriptedResponsesModel, Text, Turn

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


async def test_a_failed_run_is_logged_at_error_with_traceback_and_ids(recorder: Recorder) -> None:
    response = await post(make_app(BrokenProvider(), run_error_message="Try later."), body())

    events = parse_sse(response.text)
    assert events[-1].type == EventType.RUN_ERROR
    assert SECRET not in response.text
    assert "Traceback" not in response.text
    failures = [r for r in package_records(recorder) if r.levelno >= logging.ERROR]
    assert failures
    assert all(r.exc_info is not None and SECRET in str(r.exc_info[1]) for r in failures)
    assert {ids_of(r) for r in failures} == {("thread-7", "run-7")}
    ended = [r.getMessage() for r in package_records(recorder) if "ended" in r.getMessage()]
    assert ended == ["AG-UI run of shop ended: the run failed"]


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
