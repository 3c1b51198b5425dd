"""Run the Python blocks of the documentation as programs, offline, and drive their servers.

Blocks are found by ``pytest-examples`` in ``README.md``, every page of ``docs/`` and
``examples/README.md``. Each block is a complete program and is run as ``__main__``, with:

* every model the SDK's default provider would build replaced by the examples' offline demo
  model (:func:`offline_models`), and SDK tracing off, so nothing reaches the network;
* ``uvicorn.run`` replaced by a recorder (:class:`ServedApps`), so a program that ends by
  serving its app hands the app over instead of blocking.

Every FastAPI app the program defines (or serves) is then driven over HTTP in process with
Starlette's ``TestClient`` (:func:`drive_app`): each POST route gets an AG-UI request with and
without ``protocolVersion`` and must stream a valid run; each GET route without path parameters
must answer.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, Event, RunAgentInput
from agents import Model, set_tracing_disabled
from agents.models.multi_provider import MultiProvider
from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from pytest_examples import CodeExample, find_examples

from support.invariants import check_stream

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOC_FILES = (README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "README.md")
FAILURE_TEXT = "Missing credentials: the key sk-doc-test-secret was rejected"
"""What the failing model raises: raw exception text a client should not need to see."""

_EVENTS: TypeAdapter[Any] = TypeAdapter(Event)


def python_blocks() -> list[CodeExample]:
    """Every ```python block of the documentation, in file order."""
    return [example for example in find_examples(*DOC_FILES) if example.prefix == "python"]


def block_id(example: CodeExample) -> str:
    return f"{example.path.relative_to(ROOT)}:{example.start_line}"


# --------------------------------------------------------------------------- offline models


def _demo_model(name: str | None) -> Model:
    examples = str(ROOT / "examples")
    if examples not in sys.path:
        sys.path.insert(0, examples)
    from demo_model import DemoModelProvider

    return DemoModelProvider().get_model(name)


class FailingModel(Model):
    """A model whose every call fails as a missing API key does."""

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(FAILURE_TEXT)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async def fail() -> AsyncIterator[Any]:
            raise RuntimeError(FAILURE_TEXT)
            yield  # pragma: no cover

        return fail()


@dataclass
class ModelCalls:
    """How often the default provider was asked for a model (one per model call)."""

    count: int = 0


@contextmanager
def offline_models(
    monkeypatch: pytest.MonkeyPatch, factory: Callable[[str | None], Model] = _demo_model
) -> Iterator[ModelCalls]:
    """Make the SDK's default provider build ``factory`` models; tracing off."""
    calls = ModelCalls()

    def get_model(self: MultiProvider, model_name: str | None) -> Model:
        calls.count += 1
        return factory(model_name)

    with monkeypatch.context() as patch:
        patch.setattr(MultiProvider, "get_model", get_model)
        patch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "true")
        patch.delenv("OPENAI_API_KEY", raising=False)
        # As a deployment provides it: the production examples read the signing secret.
        patch.setenv("AG_UI_APPROVAL_SECRET", "docs-approval-secret-" + "0" * 32)
        set_tracing_disabled(True)
        yield calls


def failing_model(name: str | None) -> Model:
    return FailingModel()


# --------------------------------------------------------------------------- running blocks


@dataclass
class ServedApps:
    """What the program passed to ``uvicorn.run`` instead of serving it."""

    apps: list[Any] = field(default_factory=list)

    def run(self, app: Any, *args: Any, **kwargs: Any) -> None:
        self.apps.append(app)


def run_program(
    example: CodeExample, eval_example: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], ServedApps]:
    """Run one block as ``__main__``; return its globals and the apps it asked uvicorn to serve."""
    import uvicorn

    served = ServedApps()
    main = sys.modules.get("__main__")
    with monkeypatch.context() as patch, _logging_restored():
        patch.setattr(uvicorn, "run", served.run)
        try:
            namespace = eval_example.run(example)
        except Exception as error:
            # pytest cannot render frames of code compiled from Markdown: report them here.
            raise BlockFailed(f"{block_id(example)}\n{_describe(error)}") from None
        finally:
            if main is not None:
                sys.modules["__main__"] = main
    return namespace, served


class BlockFailed(AssertionError):
    """A documentation block raised; the message holds its traceback."""


def _describe(error: BaseException) -> str:
    lines = [f"{type(error).__name__}: {error}"]
    for frame, line in traceback.walk_tb(error.__traceback__):
        lines.append(f"  {frame.f_code.co_filename}:{line} in {frame.f_code.co_name}")
    return "\n".join(lines)


@contextmanager
def _logging_restored() -> Iterator[None]:
    """Undo what a block does to logging (handlers on the root logger, logger levels)."""
    loggers = [logging.getLogger(), *map(logging.getLogger, list(logging.root.manager.loggerDict))]
    saved = [(logger, logger.level, list(logger.handlers)) for logger in loggers]
    try:
        yield
    finally:
        for logger, level, handlers in saved:
            logger.setLevel(level)
            logger.handlers[:] = handlers


def apps_of(namespace: dict[str, Any], served: ServedApps) -> list[FastAPI]:
    """The FastAPI apps a program defined or served, each once."""
    found: dict[int, FastAPI] = {}
    for value in [*namespace.values(), *served.apps]:
        if isinstance(value, FastAPI):
            found.setdefault(id(value), value)
    return list(found.values())


# --------------------------------------------------------------------------- driving apps


def request_body(
    protocol_version: str | None,
    text: str = "Hello! Say hello in one sentence.",
    tools: list[dict[str, Any]] | None = None,
    thread_id: str = "thread-doc",
) -> dict[str, Any]:
    """An AG-UI ``RunAgentInput`` as a client sends it (camelCase JSON)."""
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": "run-doc",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": text}],
        "tools": tools or [],
        "context": [],
        "forwardedProps": None,
    }
    if protocol_version is not None:
        body["protocolVersion"] = protocol_version
    return body


def post_run(client: TestClient, path: str, body: dict[str, Any]) -> list[BaseEvent]:
    """POST one run, read the whole SSE response, check the stream, return its events."""
    with client.stream(
        "POST", path, json=body, headers={"accept": "text/event-stream"}
    ) as response:
        assert response.status_code == 200, (response.status_code, response.read())
        text = "".join(response.iter_text())
    events = [
        _EVENTS.validate_json(line[len("data: ") :])
        for line in text.splitlines()
        if line.startswith("data: ")
    ]
    run_input = RunAgentInput.model_validate(body)
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events


def post_routes(app: FastAPI) -> list[str]:
    """The run routes (a run's stop route, ``.../stop``, is not one)."""
    return [
        r.path
        for r in app.routes
        if isinstance(r, APIRoute)
        and "POST" in r.methods
        and not r.path.rstrip("/").endswith("/stop")
    ]


def get_routes(app: FastAPI) -> list[str]:
    return [
        r.path
        for r in app.routes
        if isinstance(r, APIRoute) and "GET" in r.methods and "{" not in r.path
    ]


@contextmanager
def route_dependencies_waived(app: FastAPI) -> Iterator[list[str]]:
    """Let requests past the route-level ``dependencies`` (authentication, say).

    First each route is called without credentials: one its dependencies refuse must answer
    401 or 403, never run. The paths so refused are yielded, with every route-level dependency
    overridden by one that admits the request (:func:`_admit`), so the runs behind them can be
    driven as an authenticated client's.
    """
    refused: list[str] = []
    with TestClient(app) as client:
        for path in post_routes(app):
            answer = client.post(path, json=request_body("1.0"))
            if answer.status_code in (401, 403):
                refused.append(path)
            else:
                assert answer.status_code == 200, (path, answer.text)
    waived = {
        depends.dependency
        for route in app.routes
        if isinstance(route, APIRoute)
        for depends in route.dependencies
        if depends.dependency is not None
    }
    saved = dict(app.dependency_overrides)
    app.dependency_overrides.update({dependency: _admit for dependency in waived})
    try:
        yield refused
    finally:
        app.dependency_overrides.clear()
        app.dependency_overrides.update(saved)


ADMITTED_USER = "docs-user"
"""Who a waived authentication admits: ``request.state.user``, where the documentation's
authentication dependencies leave the user their ``thread_key`` reads."""


def _admit(request: Request) -> None:
    """The stand-in for a waived route dependency: it admits the request as an authenticated
    user's, as the documentation's authentication dependencies do."""
    request.state.user = ADMITTED_USER


def drive_app(app: FastAPI) -> dict[str, list[BaseEvent]]:
    """Run every POST route once per client kind, and GET every plain GET route.

    Route-level dependencies are waived (see :func:`route_dependencies_waived`). Returns the
    events of each run, keyed ``"<path> <protocol>"``.
    """
    runs: dict[str, list[BaseEvent]] = {}
    with route_dependencies_waived(app), TestClient(app) as client:
        for path in get_routes(app):
            answer = client.get(path)
            assert answer.status_code < 400, (path, answer.text)
        for path in post_routes(app):
            for version in ("1.0", None):
                body = request_body(version)
                body["runId"] = f"run-doc-{version or 'pre-1.0'}"  # a run id names one request
                runs[f"{path} {version or 'pre-1.0'}"] = post_run(client, path, body)
    return runs
