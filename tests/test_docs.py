"""The documentation's Python blocks run as written, offline; the servers they define serve runs.

See :mod:`support.docs` for how blocks are found, run and driven. Beyond running every block,
the translator endpoint of the README is held to what it promises: client tools reach the
agent and end the run pending, a failing run ends with RUN_ERROR (safe text, details logged)
and a complete response, bodies are capped and 422s short, and the README's curl body is a
valid request it serves. The README
stays a front page, and the links between the documents lead somewhere.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput, RunErrorEvent, RunFinishedEvent, RunFinishedSuccessOutcome
from fastapi.testclient import TestClient
from pytest_examples import CodeExample, EvalExample

from support.docs import (
    DOC_FILES,
    FAILURE_TEXT,
    README,
    ROOT,
    apps_of,
    block_id,
    drive_app,
    failing_model,
    offline_models,
    post_routes,
    post_run,
    python_blocks,
    request_body,
    route_dependencies_waived,
    run_program,
)

BLOCKS = python_blocks()
PROTOCOLS = pytest.mark.parametrize("protocol_version", ["1.0", None], ids=["1.0", "pre-1.0"])


def test_the_readme_and_the_docs_have_python_blocks() -> None:
    paths = {example.path for example in BLOCKS}
    assert README in paths
    assert len({path for path in paths if path.parent.name == "docs"}) >= 8


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 400
    quick_start = lines.index("## Quick start")
    assert "python3 dev.py serve" in "\n".join(lines[quick_start : quick_start + 10])


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files(path: Any) -> None:
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if "://" not in target:
            assert (path.parent / target).exists(), f"{path.name} links to {target}"


@pytest.mark.parametrize("example", BLOCKS, ids=block_id)
def test_python_block(
    example: CodeExample,
    eval_example: EvalExample,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)  # files a block makes (a thread store) stay out of the checkout
    with offline_models(monkeypatch):
        namespace, served = run_program(example, eval_example, monkeypatch)
        for app in apps_of(namespace, served):
            runs = drive_app(app)
            for events in runs.values():
                assert isinstance(events[-1], RunFinishedEvent)
    with offline_models(monkeypatch, failing_model):
        for app in apps_of(namespace, served):
            with route_dependencies_waived(app), TestClient(app) as client:
                for path in post_routes(app):
                    # A run that fails ends with RUN_ERROR and a complete response (a new
                    # thread: a store would answer the one above from what it kept).
                    body = request_body("1.0", thread_id="thread-doc-failing")
                    events = post_run(client, path, body)
                    assert isinstance(events[-1], RunErrorEvent)


# --------------------------------------------------------------------------- the translator


def translator_block() -> CodeExample:
    [block] = [
        b
        for b in BLOCKS
        if b.path == README and "with_client_tools" in b.source and "@app.post" in b.source
    ]
    return block


@pytest.fixture
def translator_app(eval_example: EvalExample, monkeypatch: pytest.MonkeyPatch) -> Any:
    namespace, served = run_program(translator_block(), eval_example, monkeypatch)
    [app] = apps_of(namespace, served)
    return app


CARD_TOOL = {
    "name": "show_greeting_card",
    "description": "Show the user a greeting card.",
    "parameters": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
}


@PROTOCOLS
def test_the_translator_endpoint_hands_client_tools_to_the_agent(
    translator_app: Any, monkeypatch: pytest.MonkeyPatch, protocol_version: str | None
) -> None:
    body = request_body(protocol_version, "Please show a greeting card", tools=[CARD_TOOL])
    with offline_models(monkeypatch) as calls, TestClient(translator_app) as client:
        [path] = post_routes(translator_app)
        events = post_run(client, path, body)
    assert calls.count == 1  # one model call: the client tool ended the run
    [call] = [e for e in events if e.type.value == "TOOL_CALL_START"]
    assert call.tool_call_name == "show_greeting_card"  # type: ignore[attr-defined]
    outcome = events[-1].outcome  # type: ignore[attr-defined]
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    expected = [call.tool_call_id] if protocol_version else None  # type: ignore[attr-defined]
    assert outcome.pending_tool_call_ids == expected


def test_a_failing_translator_run_ends_cleanly_with_a_safe_message(
    translator_app: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        offline_models(monkeypatch, failing_model),
        TestClient(translator_app) as client,
        caplog.at_level(logging.ERROR),
    ):
        [path] = post_routes(translator_app)
        events = post_run(client, path, request_body("1.0"))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert FAILURE_TEXT not in error.message and "sk-" not in error.message
    assert error.message in translator_block().source  # the run_error_message it sets
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
    assert logged and FAILURE_TEXT in str(logged[0].exc_info[1])  # type: ignore[index]


def readme_curl_body() -> dict[str, Any]:
    text = README.read_text(encoding="utf-8")
    [command] = [
        block
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
        if "curl" in block and "protocolVersion" in block
    ]
    words = shlex.split(command[command.index("curl") :])
    body = words[words.index("-d") + 1]  # the shell joins '...'"$THREAD_ID"'...' into one word
    parsed: dict[str, Any] = json.loads(body.replace("$THREAD_ID", "thread-readme"))
    return parsed


def test_the_readme_curl_request_is_served_by_the_translator_endpoint(
    translator_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = readme_curl_body()
    assert body["protocolVersion"] == "1.0"
    RunAgentInput.model_validate(body)
    with offline_models(monkeypatch), TestClient(translator_app) as client:
        [path] = post_routes(translator_app)
        events = post_run(client, path, body)
    assert isinstance(events[-1], RunFinishedEvent)


@PROTOCOLS
async def test_the_translator_endpoint_caps_bodies_and_keeps_422s_short(
    translator_app: Any, protocol_version: str | None
) -> None:
    """The README program's middleware: a chunked body stops being read at 8 MiB (413), and a
    large invalid body is not echoed in its 422."""
    pulled: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"threadId": "t", "runId": "r", "messages": [], "state": "'
        for _ in range(9 * 1024):
            pulled.append(1024)
            yield b"x" * 1024

    invalid = request_body(protocol_version, "y" * 1_000_000)
    invalid["threadId"] = None
    [path] = post_routes(translator_app)
    transport = httpx.ASGITransport(app=translator_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://docs") as client:
        too_large = await client.post(
            path, content=chunks(), headers={"content-type": "application/json"}
        )
        rejected = await client.post(path, json=invalid)

    assert too_large.status_code == 413
    assert sum(pulled) <= 8 * 1024 * 1024 + 1024
    assert rejected.status_code == 422
    assert len(rejected.content) < 8192
