"""A FastAPI app serving one approval-gated agent offline, for multi-process tests.

Run it with ``python -m uvicorn support.approval_app:app`` (``tests`` on ``PYTHONPATH``). Each
process builds its own agent and scripted model; nothing is shared between processes. The
environment variable ``APPROVAL_APP_NAME`` names the process, and the gated tool writes that name
and the process id into its result, so a test can tell which process ran it.

The scripted model decides every turn from the request input alone, so any process answers a
request the same way: for the latest user message ``Refund order <n>`` it calls
``issue_refund`` with call id ``call_refund_<k>`` (``k`` = number of user messages so far); once
the input holds that call's output, it answers with text quoting the output. Item ids derive
from ``k`` too, so they stay unique across the conversation whichever process made them.

``GET /tool-runs`` lists the calls the tool ran in this process (observation only: the agent
never reads it). With ``APPROVAL_APP_THREADS`` set (a ``redis://`` URL or an SQLite file), the
agent keeps its threads in that store, with locks of ``APPROVAL_APP_LOCK_TTL`` seconds if set;
with ``APPROVAL_APP_TOOL_HANGS`` set, the tool records its run and then never returns (a
server that dies while a refund is under way).
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

from agents import Agent as SdkAgent
from agents import RunConfig, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.threads import RedisThreadStore, SQLiteThreadStore, ThreadStore
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnUsage,
)

__all__ = [
    "PROCESS_ENV",
    "THREADS_ENV",
    "TOOL_NAME",
    "app",
    "build_app",
    "decide_turn",
    "refund_call_id",
]

PROCESS_ENV = "APPROVAL_APP_NAME"
"""Environment variable naming the process in tool results."""

THREADS_ENV = "APPROVAL_APP_THREADS"
"""Environment variable naming the thread store (a redis:// URL or an SQLite file), if any."""

LOCK_TTL_ENV = "APPROVAL_APP_LOCK_TTL"
"""Environment variable giving the thread store's lock_ttl in seconds."""

TOOL_HANGS_ENV = "APPROVAL_APP_TOOL_HANGS"
"""Environment variable making the tool hang once it recorded its run."""

TOOL_NAME = "issue_refund"
"""The approval-gated tool of the served agent."""

set_tracing_disabled(True)


def refund_call_id(user_turn: int) -> str:
    """The call id the model uses for the refund asked in the ``user_turn``-th user message."""
    return f"call_refund_{user_turn}"


def _user_turns(items: list[dict[str, Any]]) -> list[int]:
    """Positions of the user messages in the model input."""
    return [i for i, item in enumerate(items) if item.get("role") == "user"]


def _text_of(item: dict[str, Any]) -> str:
    """The plain text of a user input item (string or content parts)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def decide_turn(call: RecordedCall) -> Turn:
    """Choose the model's turn from the input alone: call the tool, or answer its result."""
    users = _user_turns(call.input)
    if not users:
        return Turn([Text("Which order should I refund?")])
    turn = len(users)
    call_id = refund_call_id(turn)
    latest = call.input[users[-1] :]
    outputs = [
        item
        for item in latest
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id
    ]
    if outputs:
        answer = f"Result of {call_id}: {outputs[-1].get('output')}"
        return Turn([Text(answer, id=f"msg_answer_{turn}")], usage=TurnUsage(9, 4))
    digits = re.findall(r"\d+", _text_of(call.input[users[-1]]))
    order_id = digits[-1] if digits else "unknown"
    refund = Call(TOOL_NAME, {"order_id": order_id}, call_id=call_id, id=f"fc_refund_{turn}")
    return Turn([refund], usage=TurnUsage(12, 3))


def build_app() -> FastAPI:
    """A new app with its own agent, model and tool-run record."""
    process_name = os.environ.get(PROCESS_ENV, "unnamed")
    runs: list[dict[str, str]] = []

    hangs = bool(os.environ.get(TOOL_HANGS_ENV))

    @function_tool(name_override=TOOL_NAME, needs_approval=True)
    async def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        runs.append({"call_id": ctx.tool_call_id, "order_id": order_id})
        if hangs:
            await asyncio.Event().wait()
        return f"Refund issued for {order_id} by process {process_name} (pid {os.getpid()})"

    model = ScriptedResponsesModel(decide_turn, model_name="scripted-approval")
    agent = SdkAgent(name="refunds", instructions="Refund orders.", tools=[issue_refund])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapped = OpenAIAgentsAgent(
        agent,
        run_config=config,
        run_error_message="Refund failed.",
        threads=_threads(),
        thread_key=lambda thread_id, request: thread_id,
    )
    application = FastAPI()
    add_openai_agents_fastapi_endpoint(application, wrapped, path="/agent")

    async def tool_runs() -> dict[str, Any]:
        return {"process": process_name, "pid": os.getpid(), "runs": list(runs)}

    application.add_api_route("/tool-runs", tool_runs, methods=["GET"])
    return application


def _threads() -> ThreadStore | None:
    where = os.environ.get(THREADS_ENV)
    if not where:
        return None
    ttl = {"lock_ttl": float(os.environ[LOCK_TTL_ENV])} if os.environ.get(LOCK_TTL_ENV) else {}
    if where.startswith("redis://"):
        return RedisThreadStore(where, **ttl)
    return SQLiteThreadStore(where, **ttl)


app = build_app()
