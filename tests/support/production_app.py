"""A FastAPI app with a slow backend tool, for keepalive, shutdown and log tests, offline.

Run it in a separate process with ``python -m uvicorn support.production_app:app`` (``tests``
on ``PYTHONPATH``), configured from the environment:

* ``PRODUCTION_APP_KEEPALIVE`` — ``keepalive_seconds`` (``none`` turns keepalive off);
* ``PRODUCTION_APP_TOOL_SECONDS`` — how long ``slow_lookup`` takes;
* ``PRODUCTION_APP_TOOL_RELEASE`` — when set, ``slow_lookup`` waits instead for a
  ``POST /release`` (a test releases it once it has seen what it waits for);
* ``PRODUCTION_APP_MAX_BYTES`` — ``max_request_bytes``.

The model decides from its input alone: no tool output yet → call ``slow_lookup``; otherwise
answer with a text quoting the output. ``slow_lookup`` prints ``slow tool started``, then
``slow tool finished`` or ``slow tool cancelled`` (flushed), and the package's loggers print
every record with its thread and run ids when ``PRODUCTION_APP_LOG_TO_STDOUT`` is set, so a
test can read what happened in the process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

from agents import Agent, RunConfig, function_tool, set_tracing_disabled
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.server.logs import PACKAGE_LOGGER, RunIdsFilter
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)

__all__ = ["LOG_FORMAT", "app", "build_app", "decide"]

LOG_FORMAT = "LOG %(levelname)s %(name)s thread=%(thread_id)s run=%(run_id)s %(message)s"

set_tracing_disabled(True)


def decide(call: RecordedCall) -> Turn:
    """Call the slow tool first; then answer with what it returned."""
    outputs = [item for item in call.input if item.get("type") == "function_call_output"]
    if outputs:
        return Turn([Text(f"The lookup said: {outputs[-1].get('output')}")])
    return Turn([Text("Looking that up."), Call("slow_lookup", {"topic": "orders"})])


def build_app(
    *,
    keepalive_seconds: float | None,
    tool_seconds: float,
    max_request_bytes: int | None = None,
    release: asyncio.Event | None = None,
) -> FastAPI:
    """A new app whose agent's ``slow_lookup`` tool takes ``tool_seconds``, or, given
    ``release``, waits for it to be set."""

    @function_tool
    async def slow_lookup(topic: str) -> str:
        """Look a topic up in a slow back office."""
        print("slow tool started", flush=True)
        try:
            await (release.wait() if release else asyncio.sleep(tool_seconds))
        except asyncio.CancelledError:
            print("slow tool cancelled", flush=True)
            raise
        print("slow tool finished", flush=True)
        return f"{topic}: all shipped"

    model = ScriptedResponsesModel(decide, model_name="scripted-slow")
    agent = Agent(name="back-office", instructions="Look things up.", tools=[slow_lookup])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    application = FastAPI()
    options: dict[str, Any] = {"keepalive_seconds": keepalive_seconds}
    if max_request_bytes is not None:
        options["max_request_bytes"] = max_request_bytes
    add_openai_agents_fastapi_endpoint(
        application, OpenAIAgentsAgent(agent, run_config=config), "/agent", **options
    )
    if release is not None:

        @application.post("/release")
        async def release_the_tool() -> None:
            release.set()

    return application


def _log_to_stdout() -> None:
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(RunIdsFilter())
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    package = logging.getLogger(PACKAGE_LOGGER)
    package.addHandler(handler)
    package.setLevel(logging.DEBUG)


def _from_env() -> FastAPI:
    keepalive = os.environ.get("PRODUCTION_APP_KEEPALIVE", "15")
    max_bytes = os.environ.get("PRODUCTION_APP_MAX_BYTES")
    return build_app(
        keepalive_seconds=None if keepalive == "none" else float(keepalive),
        tool_seconds=float(os.environ.get("PRODUCTION_APP_TOOL_SECONDS", "1")),
        max_request_bytes=int(max_bytes) if max_bytes else None,
        release=asyncio.Event() if os.environ.get("PRODUCTION_APP_TOOL_RELEASE") else None,
    )


if os.environ.get("PRODUCTION_APP_LOG_TO_STDOUT"):
    _log_to_stdout()
app = _from_env()
