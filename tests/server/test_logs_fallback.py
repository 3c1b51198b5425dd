"""Errors you can see: with no logging configured, the package's warnings and errors reach
stderr with the run's ids; an application that configures logging keeps full control.

The fast tests drive the fallback handler in process (with the root logger's handlers, pytest's
own, set aside); the slow ones serve an app whose every run fails with a real ``uvicorn``
process started as a user starts one, and read its stderr.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ag_ui_openai_agents.server.logs import PACKAGE_LOGGER, run_ids
from support.failing_app import FAILURE_MESSAGE, LOG_FORMAT_ENV
from support.processes import PROJECT_DIR, Server, free_port, server_env, stop, wait_ready

package_log = logging.getLogger(f"{PACKAGE_LOGGER}.server.streaming")


class InventoryOffline(Exception):
    """A distinctive failure for the in-process tests."""


@contextmanager
def nothing_configured() -> Iterator[logging.Logger]:
    """The root logger without handlers (pytest's set aside), as under plain uvicorn."""
    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()
    try:
        yield root
    finally:
        root.handlers[:] = kept


def log_a_failure() -> None:
    try:
        raise InventoryOffline("the inventory service timed out")
    except InventoryOffline:
        with run_ids("thread-42", "run-42"):
            package_log.exception("AG-UI run of shop failed")


def test_unconfigured_errors_reach_stderr_with_class_message_and_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with nothing_configured():
        log_a_failure()

    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first == (
        "ERROR ag_ui_openai_agents.server.streaming [thread=thread-42 run=run-42]: "
        "AG-UI run of shop failed"
    )
    assert "Traceback" in err
    assert "InventoryOffline: the inventory service timed out" in err


def test_unconfigured_warnings_show_and_debug_and_info_do_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    package = logging.getLogger(PACKAGE_LOGGER)
    level = package.level
    package.setLevel(logging.DEBUG)
    try:
        with nothing_configured():
            package_log.debug("run started")
            package_log.info("run going")
            package_log.warning("client tool dropped")
    finally:
        package.setLevel(level)

    assert capsys.readouterr().err == (
        "WARNING ag_ui_openai_agents.server.streaming: client tool dropped\n"
    )


def test_a_root_handler_takes_over(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    with nothing_configured() as root:
        root.addHandler(Keep())
        log_a_failure()

    assert capsys.readouterr().err == ""
    assert [r.getMessage() for r in seen] == ["AG-UI run of shop failed"]


def test_a_handler_on_the_package_logger_takes_over(capsys: pytest.CaptureFixture[str]) -> None:
    package = logging.getLogger(PACKAGE_LOGGER)
    silent = logging.NullHandler()
    with nothing_configured():
        package.addHandler(silent)
        try:
            log_a_failure()
        finally:
            package.removeHandler(silent)

    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- a real uvicorn

RUN = {
    "threadId": "thread-fallback-1",
    "runId": "run-fallback-1",
    "state": {},
    "messages": [{"id": "user-1", "role": "user", "content": "Where is order 42?"}],
    "tools": [],
    "context": [],
    "forwardedProps": {},
}


def serve_and_fail(tmp_path: Path, extra_env: dict[str, str]) -> tuple[str, str]:
    """``python -m uvicorn support.failing_app:app --port N``, no other option; post one run.

    Returns the response body and what the process wrote to stderr.
    """
    port = free_port()
    env = server_env("FAILING_APP_NAME", "failing", extra_env)
    err_path = tmp_path / "stderr.log"
    command = [sys.executable, "-m", "uvicorn", "support.failing_app:app", "--port", str(port)]
    with err_path.open("wb") as err:
        process = subprocess.Popen(
            command, cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        server = Server("failing", f"http://127.0.0.1:{port}", process, err_path)
        assert wait_ready(server, "/agent/health", 60.0), err_path.read_text(errors="replace")
        response = httpx.post(f"{server.url}/agent", json=RUN, timeout=60.0)
    finally:
        stop(process)
    return response.text, err_path.read_text(errors="replace")


@pytest.mark.slow
def test_plain_uvicorn_shows_why_a_run_failed(tmp_path: Path) -> None:
    body, stderr = serve_and_fail(tmp_path, {})

    assert '"RUN_ERROR"' in body and FAILURE_MESSAGE not in body  # the client gets no detail
    assert "ModelRegistryDown" in stderr
    assert FAILURE_MESSAGE in stderr
    assert "[thread=thread-fallback-1 run=run-fallback-1]" in stderr


@pytest.mark.slow
def test_an_application_that_configures_logging_keeps_control(tmp_path: Path) -> None:
    body, stderr = serve_and_fail(tmp_path, {LOG_FORMAT_ENV: "APP %(levelname)s %(message)s"})

    assert '"RUN_ERROR"' in body
    assert any(line.startswith("APP ERROR ") for line in stderr.splitlines())
    assert "ModelRegistryDown" in stderr  # the traceback, through the application's handler
    assert "[thread=" not in stderr  # and nothing from the fallback
