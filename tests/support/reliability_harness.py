"""Shared helpers of the reliability tests: the fuzz agent, stream checks for hostile input,
task-leak checks and small HTTP helpers.

:func:`check_run` is :func:`support.invariants.check_stream` made fit for requests whose
history is itself inconsistent (repeated message or tool call ids, tool messages answering no
earlier call) or whose open calls were answered on resume (the answers sit right after their
calls, inside the history). The server restates such a history as it was sent, which the
checker's snapshot rules would blame on the server; so the restated part is first compared
exactly with the request, and the checker then sees a repaired copy of it. Everything the run
itself produced is checked unchanged.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from typing import Any

import httpx
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    ToolCallResultEvent,
    ToolMessage,
)
from agents import Agent, RunConfig, function_tool
from agents.tool_context import ToolContext
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from support.invariants import check_stream, parse_sse
from support.reliability_strategies import GATED_TOOL, PLAIN_TOOL
from support.scripted import (
    Call,
    Reasoning,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnUsage,
)

__all__ = [
    "TRACEBACK_MARK",
    "asgi_client",
    "build_fuzz_app",
    "check_run",
    "extra_tasks",
    "fuzz_turn",
    "read_sse",
    "repaired_history",
    "settle_tasks",
    "terminal_of",
    "wire",
]

TRACEBACK_MARK = "Traceback (most recent call last)"
"""What a Python traceback starts with."""

_LEAD_EVENTS = ("RUN_STARTED", "CUSTOM", "STATE_SNAPSHOT")


def wire(run_input: RunAgentInput) -> str:
    """The JSON body an AG-UI client sends for ``run_input`` (camelCase keys)."""
    return run_input.model_dump_json(by_alias=True, exclude_none=True)


def asgi_client(app: FastAPI) -> httpx.AsyncClient:
    """An HTTP client calling ``app`` in-process."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


def terminal_of(events: Sequence[BaseEvent]) -> RunFinishedEvent | RunErrorEvent:
    """The terminal event a checked stream ends with."""
    last = events[-1]
    assert isinstance(last, (RunFinishedEvent, RunErrorEvent)), last.type.value
    return last


# --------------------------------------------------------------------------- tasks


def extra_tasks(before: set[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
    """Tasks alive now that were not alive in ``before`` (the caller's own task excluded)."""
    current = asyncio.current_task()
    return {task for task in asyncio.all_tasks() - before if task is not current}


async def settle_tasks(
    before: set[asyncio.Task[Any]], timeout: float = 1.0
) -> set[asyncio.Task[Any]]:
    """Wait up to ``timeout`` seconds for tasks started since ``before`` to end; return the rest."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    left = extra_tasks(before)
    while left and loop.time() < deadline:
        await asyncio.sleep(0.005)
        left = extra_tasks(before)
    return left


# --------------------------------------------------------------------------- fuzz agent


def _digest(call: RecordedCall) -> int:
    data = json.dumps(call.input, sort_keys=True, default=str).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(data).digest()[:4], "big")


def _last_user_text(call: RecordedCall) -> str:
    for item in reversed(call.input):
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content
        return " ".join(str(p.get("text", "")) for p in content or [] if isinstance(p, dict))
    return ""


def fuzz_turn(call: RecordedCall) -> Turn:
    """The fuzz model: decides from its input alone, fast, with ids no request can hold.

    It echoes the last user text (cut to 2,000 characters), and depending on a hash of the
    input first reasons, calls the plain server tool, or calls a client tool with malformed
    arguments. After a tool result it answers with text.
    """
    digest = _digest(call)
    tag = f"{digest:08x}-{len(call.input)}"
    echo = _last_user_text(call)[:2000] or "(nothing)"
    answered = bool(call.input) and call.input[-1].get("type") == "function_call_output"
    usage = TurnUsage(7 + len(call.input), 3)
    if answered or digest % 4 == 0:
        return Turn([Text(echo, id=f"zz-msg-{tag}", chunks=3)], usage=usage)
    if digest % 4 == 1:
        items: list[Any] = [Reasoning(summary=["r"], encrypted="e", id=f"zz-rs-{tag}")]
        return Turn([*items, Text(echo, id=f"zz-msg-{tag}")], usage=usage)
    client = [n for n in call.tool_names if n not in (PLAIN_TOOL, GATED_TOOL)]
    if digest % 4 == 2 and client:
        bad = Call(client[0], '{"q": ', call_id=f"zz-call-{tag}", id=f"zz-fc-{tag}")
        return Turn([Text("calling", id=f"zz-msg-{tag}"), bad], usage=usage)
    lookup = Call(PLAIN_TOOL, {"q": echo[:50]}, call_id=f"zz-call-{tag}", id=f"zz-fc-{tag}")
    return Turn([lookup], usage=usage)


@function_tool(name_override=PLAIN_TOOL)
def _lookup(q: str) -> str:
    """Look something up."""
    return f"found {q!r}"


@function_tool(name_override=GATED_TOOL, needs_approval=True)
def _gated(ctx: ToolContext[Any], q: str = "") -> str:
    """Do something that needs approval."""
    return f"done {q!r} for {ctx.tool_call_id}"


def build_fuzz_app(**options: Any) -> tuple[FastAPI, ScriptedResponsesModel, Agent[Any]]:
    """One app serving the fuzz agent on ``/agent``; ``options`` go to OpenAIAgentsAgent."""
    model = ScriptedResponsesModel(fuzz_turn, model_name="fuzz-model")
    agent: Agent[Any] = Agent(name="fuzz", instructions="Answer.", tools=[_lookup, _gated])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapped = OpenAIAgentsAgent(agent, run_config=config, **options)
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped, "/agent")
    return app, model, agent


# --------------------------------------------------------------------------- stream checks


def repaired_history(messages: Sequence[Message]) -> list[Message]:
    """The history with its own inconsistencies removed.

    A message id seen before gets a suffix (its tool calls stay), and tool messages that
    answer no earlier call are dropped.
    """
    seen_ids: set[str] = set()
    seen_calls: set[str] = set()
    kept: list[Message] = []
    for number, message in enumerate(messages):
        if message.id in seen_ids:
            message = message.model_copy(update={"id": f"{message.id}#repeat-{number}"})
        seen_ids.add(message.id)
        if isinstance(message, AssistantMessage):
            seen_calls.update(call.id for call in message.tool_calls or [])
        elif isinstance(message, ToolMessage) and message.tool_call_id not in seen_calls:
            continue
        kept.append(message)
    return kept


def _resume_results(events: Sequence[BaseEvent]) -> list[ToolCallResultEvent]:
    """The TOOL_CALL_RESULTs sent before the SDK stream: answers given on resume."""
    found: list[ToolCallResultEvent] = []
    for event in events:
        if isinstance(event, ToolCallResultEvent):
            found.append(event)
        elif event.type.value not in _LEAD_EVENTS:
            break
    return found


def _split_history(
    history: Sequence[Message], sent: Sequence[Message], answers: int
) -> tuple[list[Message], list[Message]]:
    """Split the restated history into the request's messages and the inserted answers."""
    restated: list[Message] = []
    inserted: list[Message] = []
    position = 0
    for message in history[: len(sent) + answers]:
        same = position < len(sent) and message.model_dump() == sent[position].model_dump()
        if same:
            restated.append(message)
            position += 1
        else:
            inserted.append(message)
    return restated, inserted


def check_run(events: Sequence[BaseEvent], run_input: RunAgentInput) -> None:
    """Check one run answering a possibly inconsistent history (see the module docstring)."""
    pre_1_0 = run_input.protocol_version is None
    sent = list(run_input.messages)
    repaired = repaired_history(sent)
    view = run_input.model_copy(update={"messages": repaired})
    out = list(events)
    for index, event in enumerate(out):
        if not isinstance(event, MessagesSnapshotEvent):
            continue
        answers = _resume_results(out)
        restated, inserted = _split_history(event.messages, sent, len(answers))
        assert [m.model_dump() for m in restated] == [m.model_dump() for m in sent], (
            "the snapshot does not restate the request's history in order"
        )
        assert [m.id for m in inserted] == [a.message_id for a in answers], (
            "the snapshot's history holds messages that are neither sent nor resume answers"
        )
        produced = event.messages[len(sent) + len(answers) :]
        out[index] = MessagesSnapshotEvent(messages=[*repaired, *inserted, *produced])
    check_stream(out, run_input=view, pre_1_0=pre_1_0)


def read_sse(response: httpx.Response, run_input: RunAgentInput) -> list[BaseEvent]:
    """Check an HTTP answer is an SSE stream holding one valid run; return its events."""
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    check_run(events, run_input)
    return events
