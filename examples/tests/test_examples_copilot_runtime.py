"""Every example and every turn played through CopilotKit's runtime 1.75, as most apps deploy.

The browser side is the client CopilotKit's frontend runs (``@ag-ui/client`` 0.0.59, posting to
``<runtime>/agent/<id>/run``); the 1.0 client is driven the same way. The runtime sits in
front of the example server with one ``HttpAgent`` per example: it strips ``protocolVersion``
from every request, adds ``input`` to RUN_STARTED, and answers an upstream failure with HTTP
200 and one RUN_ERROR. Each test also fails on any error the runtime logged. Since the server
sees no ``protocolVersion`` there, the subagents example streams its specialists through the
runtime only with ``subagents_for_pre_1_0_clients``; both settings are played. Skipped when Node
is not installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from support.copilotkit import CopilotRuntimeProcess, ensure_copilotkit, serve_copilot_runtime
from support.e2e import ensure_node_modules, run_client, serve_app, turn_errors

from agents_examples import ALIASES, EXAMPLES, ExampleSettings
from server import create_app
from test_examples_real_client import SCENARIOS, _check_subagents, check_media

pytestmark = pytest.mark.slow


class RecordRunBodies:
    """ASGI middleware that keeps the JSON body of every POST, by path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.bodies: dict[str, list[dict[str, Any]]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        self.bodies.setdefault(scope["path"], []).append(json.loads(body))
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[str, RecordRunBodies]]:
    ensure_node_modules()
    ensure_copilotkit()
    recorder = RecordRunBodies(create_app(ExampleSettings.offline_demo()))
    with serve_app(recorder) as url:
        yield url, recorder


@pytest.fixture(scope="module")
def runtime(upstream: tuple[str, RecordRunBodies]) -> Iterator[CopilotRuntimeProcess]:
    with serve_copilot_runtime(upstream[0], [*EXAMPLES, *ALIASES]) as process:
        yield process


@pytest.fixture(scope="module")
def opted_in_runtime() -> Iterator[CopilotRuntimeProcess]:
    """The runtime in front of the subagents example served with the subagents opt-in."""
    ensure_node_modules()
    ensure_copilotkit()
    settings = ExampleSettings.offline_demo(subagents_for_pre_1_0_clients=True)
    with (
        serve_app(create_app(settings)) as url,
        serve_copilot_runtime(url, ["subagents"]) as process,
    ):
        yield process


@pytest.mark.parametrize("opt_in", [False, True], ids=["default", "opted-in"])
@pytest.mark.parametrize("client", ["v0", "v1"])
def test_subagents_through_the_runtime_in_both_settings(
    request: pytest.FixtureRequest, client: str, opt_in: bool
) -> None:
    """Behind the runtime every request lacks protocolVersion: subagents show with the opt-in."""
    process: CopilotRuntimeProcess = request.getfixturevalue(
        "opted_in_runtime" if opt_in else "runtime"
    )
    scenario = {
        "url": process.run_url("subagents"),
        "threadId": f"copilotkit-subagents-{client}-{opt_in}",
        **SCENARIOS["subagents"],
    }
    result = run_client(client, scenario)  # type: ignore[arg-type]
    assert result["ok"], turn_errors(result)
    assert process.errors() == []
    _check_subagents([turn["events"] for turn in result["turns"]], shown=opt_in)


@pytest.mark.parametrize("client", ["v0", "v1"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_turn_through_the_runtime(
    upstream: tuple[str, RecordRunBodies],
    runtime: CopilotRuntimeProcess,
    name: str,
    client: str,
) -> None:
    _, recorder = upstream
    thread_id = f"copilotkit-{name}-{client}"
    scenario = {"url": runtime.run_url(name), "threadId": thread_id, **SCENARIOS[name]}
    seen_before = len(recorder.bodies.get(f"/{name}", []))

    result = run_client(client, scenario)  # type: ignore[arg-type]

    assert result["ok"], turn_errors(result)
    assert runtime.errors() == []
    turns = result["turns"]
    for turn in turns:
        started = turn["events"][0]
        assert started["type"] == "RUN_STARTED"
        assert started["input"]["threadId"] == thread_id, "the runtime adds the run's input"
        finished = turn["events"][-1]
        assert finished["type"] == "RUN_FINISHED"
        outcome = finished.get("outcome") or {}
        assert "pendingToolCallIds" not in outcome, "a pre-1.0 request gets the plain outcome"
    if name == "media_results":  # behind the runtime, every client is pre-1.0: text, no activity
        check_media(turns, parts=False)
    sent = recorder.bodies[f"/{name}"][seen_before:]
    assert len(sent) == len(turns), "one upstream request per run"
    for body in sent:
        assert body["threadId"] == thread_id
        assert "protocolVersion" not in body, "the runtime strips protocolVersion"


def test_frontend_tool_turns_stop_and_resume(runtime: CopilotRuntimeProcess) -> None:
    """A frontend tool call ends the first run; the tool message continues the conversation."""
    scenario = {
        "url": runtime.run_url("human_in_the_loop"),
        "threadId": "copilotkit-hitl-detail",
        **SCENARIOS["human_in_the_loop"],
    }
    result = run_client("v0", scenario)
    assert result["ok"], turn_errors(result)
    first, second = result["turns"]
    assert "TOOL_CALL_START" in first["eventTypes"]
    assert "TOOL_CALL_RESULT" not in first["eventTypes"], "the client answers its own tool"
    assert "TEXT_MESSAGE_CONTENT" in second["eventTypes"]


def test_approval_interrupts_survive_the_runtime(runtime: CopilotRuntimeProcess) -> None:
    """Interrupt outcomes reach the frontend, and its resume entries reach the server."""
    scenario = {
        "url": runtime.run_url("human_in_the_loop_approval"),
        "threadId": "copilotkit-approval-detail",
        **SCENARIOS["human_in_the_loop_approval"],
    }
    result = run_client("v0", scenario)
    assert result["ok"], turn_errors(result)
    outcomes = [turn["outcome"]["type"] for turn in result["turns"]]
    assert outcomes == ["interrupt", "success"] * 3
    approved = result["turns"][1]
    results = [e for e in approved["events"] if e["type"] == "TOOL_CALL_RESULT"]
    assert results, "the approved refund ran and its result was streamed"


def test_upstream_failure_reaches_the_client_as_one_run_error(
    upstream: tuple[str, RecordRunBodies],
) -> None:
    """A route the upstream does not have: the runtime answers with a single RUN_ERROR."""
    with serve_copilot_runtime(upstream[0], ["no_such_example"]) as process:
        result = run_client(
            "v0",
            {"url": process.run_url("no_such_example"), "turns": [{"user": "hello"}]},
        )
    # Read once the runtime has stopped and its stderr is read to the end: a line it logs as
    # the turn ends may still be on its way while it runs.
    logged = list(process.errors())
    # The turn is accepted (HTTP 200, a stream the client could parse) and ends in RUN_ERROR.
    assert result["ok"], turn_errors(result)
    turn = result["turns"][0]
    assert turn["eventTypes"] == ["RUN_ERROR"]
    assert turn["outcome"]["type"] == "error"
    assert "404" in turn["outcome"]["message"]
    assert any("404" in line for line in logged), "the runtime logs the upstream failure"


@pytest.mark.parametrize("name", ["shared_state", "agentic_chat_multimodal"])
def test_state_and_attachments_pass_through_the_runtime(
    upstream: tuple[str, RecordRunBodies], runtime: CopilotRuntimeProcess, name: str
) -> None:
    """The runtime forwards the page's state and the attachment parts as the page sent them."""
    _, recorder = upstream
    thread_id = f"copilotkit-{name}-passthrough"
    scenario = {"url": runtime.run_url(name), "threadId": thread_id, **SCENARIOS[name]}
    seen_before = len(recorder.bodies.get(f"/{name}", []))
    result = run_client("v0", scenario)
    assert result["ok"], turn_errors(result)
    sent = recorder.bodies[f"/{name}"][seen_before:]
    if name == "shared_state":
        assert sent[0]["state"] == SCENARIOS[name]["state"]
        assert result["turns"][0]["state"]["recipe"]["title"] == "Garlic Tomato Pasta"
        assert sent[1]["state"] == result["turns"][0]["state"]
    else:
        for body in sent:
            parts = body["messages"][0]["content"]
            assert parts == SCENARIOS[name]["turns"][0]["user"]


@pytest.mark.parametrize("name", ["a2ui_recovery", "predictive_state_updates"])
def test_a2ui_marks_and_predictive_state_pass_through_the_runtime(
    upstream: tuple[str, RecordRunBodies], runtime: CopilotRuntimeProcess, name: str
) -> None:
    """The runtime forwards the A2UI middleware's marks (forwardedProps, the render tool, the
    context) to the server, and the PredictState event and the document to the client."""
    _, recorder = upstream
    scenario = {
        "url": runtime.run_url(name),
        "threadId": f"copilotkit-{name}-marks",
        **SCENARIOS[name],
    }
    seen_before = len(recorder.bodies.get(f"/{name}", []))
    result = run_client("v0", scenario)
    assert result["ok"], turn_errors(result)
    sent = recorder.bodies[f"/{name}"][seen_before:]
    turns = result["turns"]
    if name == "a2ui_recovery":
        for body in sent:
            assert body["forwardedProps"]["injectA2UITool"] is True
            assert [tool["name"] for tool in body["tools"]] == ["render_a2ui"]
            assert len(body["context"]) == 2
        recovered = [e for e in turns[0]["events"] if e["type"] == "TOOL_CALL_RESULT"]
        assert "a2ui_operations" in json.loads(recovered[0]["content"])
    else:
        names = [e.get("name") for e in turns[0]["events"] if e["type"] == "CUSTOM"]
        assert names == ["PredictState"]
        assert turns[0]["state"]["document"].startswith("# Candy Beard the Pirate")
        assert sent[1]["state"] == turns[0]["state"], "the page sends the document back"
