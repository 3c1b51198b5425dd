"""A FastAPI app whose runs outlive their requests, on a Redis thread store, for replica tests.

Run it with ``python -m uvicorn support.live_app:app`` (``tests`` on ``PYTHONPATH``) and
``LIVE_APP_REDIS`` set to a ``redis://`` URL; every process on the same URL is a replica of the
others. The scripted model answers each user message with ``LIVE_APP_WORDS`` words (default
40), one streamed event every ``LIVE_APP_DELAY`` seconds (default 0.05), the first words naming
the process that ran it (``LIVE_APP_NAME``): ``Answer <k> by <name>: w1 w2 ...`` (``k`` = the
number of user messages so far). ``LIVE_APP_GRACE`` sets the store's ``shutdown_grace_seconds``.
``GET /model-calls`` counts this process's model calls.
"""

from __future__ import annotations

import os
from typing import Any

from agents import Agent as SdkAgent
from agents import RunConfig, set_tracing_disabled
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.threads import RedisThreadStore
from support.scripted import RecordedCall, ScriptedProvider, ScriptedResponsesModel, Text, Turn

__all__ = [
    "DELAY_ENV",
    "GRACE_ENV",
    "NAME_ENV",
    "REDIS_ENV",
    "WORDS_ENV",
    "answer_text",
    "app",
    "build_app",
]

REDIS_ENV = "LIVE_APP_REDIS"
NAME_ENV = "LIVE_APP_NAME"
WORDS_ENV = "LIVE_APP_WORDS"
DELAY_ENV = "LIVE_APP_DELAY"
GRACE_ENV = "LIVE_APP_GRACE"

set_tracing_disabled(True)


def answer_text(turn: int, name: str, words: int) -> str:
    """The whole answer to the ``turn``-th user message, run by process ``name``."""
    return f"Answer {turn} by {name}: " + " ".join(f"w{i}" for i in range(1, words + 1))


def build_app() -> FastAPI:
    """A new app with its own agent and model, on the Redis store the environment names."""
    name = os.environ.get(NAME_ENV, "unnamed")
    words = int(os.environ.get(WORDS_ENV, "40"))
    delay = float(os.environ.get(DELAY_ENV, "0.05"))

    def decide(call: RecordedCall) -> Turn:
        turn = sum(1 for item in call.input if item.get("role") == "user")
        return Turn([Text(answer_text(turn, name, words), id=f"msg_answer_{turn}")], delay=delay)

    model = ScriptedResponsesModel(decide, model_name="scripted-live")
    agent = SdkAgent(name="live", instructions="Answer at length.")
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    grace = os.environ.get(GRACE_ENV)
    store = RedisThreadStore(
        os.environ[REDIS_ENV],
        **({"shutdown_grace_seconds": float(grace)} if grace else {}),
    )
    wrapped = OpenAIAgentsAgent(
        agent, run_config=config, threads=store, thread_key=lambda thread_id, request: thread_id
    )
    application = FastAPI()
    add_openai_agents_fastapi_endpoint(application, wrapped, path="/agent")

    async def model_calls() -> dict[str, Any]:
        return {"process": name, "calls": model.call_count}

    application.add_api_route("/model-calls", model_calls, methods=["GET"])
    return application


app = build_app() if os.environ.get(REDIS_ENV) else FastAPI()
