"""How long one request holds the event loop: against the request's size, and its state's size.

While a run is served, a ticker on the same loop sleeps 1 ms at a time and notes how late it
wakes: the *lag*. The worst lag is the longest the loop was held at once, when every other
stream on the process waits; the summed lag is all the time other work waited. Two shapes:

- *request size*: the real FastAPI app (``add_openai_agents_fastapi_endpoint`` over
  ``OpenAIAgentsAgent``), served in-process through ``httpx.ASGITransport``, given a
  conversation of N answered tool calls (an assistant message calling a tool and the tool's
  result each, then a user message), the request cap lifted. The body is built before the
  ticker starts; everything after (reading and validating the body, translating, the run, the
  ``MESSAGES_SNAPSHOT`` and the SSE encoding) runs on the loop, as on a server.
- *state size*: ``OpenAIAgentsAgent.run_streamed`` with a request whose ``state`` holds S MB of
  rows and a tool that changes one row K times (giving the loop a turn between changes), every
  event encoded for SSE, with deltas off and on. The state cap is lifted (``StateUpdates``'s
  ``max_bytes=None`` when the package has it) so that any size can be measured.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from agents import Agent, RunConfig, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from ag_ui_openai_agents import OpenAIAgentsAgent, StateUpdates, shared_state

from ._encode import encode_event
from .models import run_config

__all__ = ["LagReport", "loop_lag_table", "measure_lag", "measure_loop_lag"]

TICK = 0.001
"""The ticker's sleep, in seconds."""


@dataclass
class Lag:
    """What the ticker saw during one run."""

    worst_ms: float = 0.0
    total_ms: float = 0.0
    wall_ms: float = 0.0


async def measure_lag(work: Callable[[], Awaitable[Any]]) -> Lag:
    """Run ``work()`` on this loop beside a 1 ms ticker; how late the ticker woke."""
    lag = Lag()
    done = asyncio.Event()

    async def tick() -> None:
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            late = (time.perf_counter() - before - TICK) * 1000
            lag.worst_ms = max(lag.worst_ms, late)
            lag.total_ms += max(late, 0.0)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    started = time.perf_counter()
    try:
        await work()
    finally:
        lag.wall_ms = (time.perf_counter() - started) * 1000
        done.set()
        await ticker
    return lag


# --- request size ------------------------------------------------------------------------


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"Order {order_id}"


def answered_calls(n: int) -> bytes:
    """The JSON body of a request holding ``n`` answered tool calls, then a user message."""
    messages: list[Any] = []
    for i in range(n):
        call = ToolCall(
            id=f"call_{i}",
            function=FunctionCall(name="lookup_order", arguments=json.dumps({"order_id": i})),
        )
        messages.append(AssistantMessage(id=f"assistant-{i}", tool_calls=[call]))
        messages.append(
            ToolMessage(id=f"tool-{i}", tool_call_id=f"call_{i}", content=f"Order {i}: shipped")
        )
    messages.append(UserMessage(id="user-last", content="And the last one?"))
    run_input = RunAgentInput(
        thread_id="thread-1", run_id="run-1", state={}, messages=messages, tools=[],
        context=[], forwarded_props=None,
    )  # fmt: skip
    return run_input.model_dump_json(by_alias=True, exclude_none=True).encode()


async def _serve_request(body: bytes) -> int:
    """POST ``body`` to the real app in-process; the SSE bytes received."""
    import httpx
    from fastapi import FastAPI

    from ag_ui_openai_agents import add_openai_agents_fastapi_endpoint

    app = FastAPI()
    agent = OpenAIAgentsAgent(Agent(name="orders", tools=[lookup_order]), run_config=run_config(5))
    add_openai_agents_fastapi_endpoint(app, agent, "/agent", max_request_bytes=None)
    transport = httpx.ASGITransport(app=app)
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        lag_free = await client.post("/agent", content=body, headers=headers)
        assert b"RUN_FINISHED" in lag_free.content, lag_free.content[-300:]
        return len(lag_free.content)


# --- state size --------------------------------------------------------------------------


def rows_state(megabytes: float) -> dict[str, Any]:
    """A state of about ``megabytes`` MB of JSON: rows of a few short fields."""
    count = max(1, int(megabytes * 1_000_000 / 110))
    rows = [
        {"id": i, "name": f"row {i}", "done": False, "note": "n" * 40, "tags": ["a", "b"]}
        for i in range(count)
    ]
    return {"title": "Rows", "rows": rows}


@function_tool
async def mark_rows(times: int) -> str:
    """Mark the first rows done, one change of the shared state at a time."""
    state = shared_state()
    for index in range(times):
        rows = list(state.value["rows"])
        rows[index] = {**rows[index], "done": True}
        state.update(rows=rows)
        await asyncio.sleep(0)
    return "Marked."


def _state_settings(deltas: bool) -> StateUpdates:
    try:
        return StateUpdates(deltas=deltas, max_bytes=None)  # type: ignore[call-arg]
    except TypeError:  # a version without a state cap
        return StateUpdates(deltas=deltas)


async def _serve_state(state: dict[str, Any], changes: int, deltas: bool) -> int:
    """One run changing ``state`` ``changes`` times; the state events streamed."""
    model = ScriptedModel(
        [[function_call("mark_rows", {"times": changes}, call_id="call_1")],
         [assistant_message("Done.")]]
    )  # fmt: skip
    agent = OpenAIAgentsAgent(
        Agent(name="rows", tools=[mark_rows], model=model),
        run_config=RunConfig(tracing_disabled=True),
        state=_state_settings(deltas),
    )
    run_input = RunAgentInput(
        thread_id="thread-1", run_id="run-1", state=state, tools=[], context=[],
        forwarded_props=None, messages=[UserMessage(id="user-1", content="Mark them.")],
    )  # fmt: skip
    streamed = 0
    async for event in agent.run_streamed(run_input):
        line = encode_event(event)
        if event.type.value in ("STATE_SNAPSHOT", "STATE_DELTA"):
            streamed += 1
        assert event.type.value != "RUN_ERROR", line[:300]
    return streamed


async def _lag_of_state(state: dict[str, Any], changes: int, deltas: bool) -> tuple[Lag, int]:
    streamed: list[int] = []

    async def work() -> None:
        streamed.append(await _serve_state(state, changes, deltas))

    return await measure_lag(work), streamed[0]


# --- the report --------------------------------------------------------------------------


@dataclass
class LagReport:
    """Loop lag per request size and per state size."""

    requests: dict[int, tuple[float, Lag]] = field(default_factory=dict)
    """Answered calls -> (request MB, lag)."""
    states: dict[tuple[float, bool], tuple[int, Lag]] = field(default_factory=dict)
    """(state MB, deltas) -> (state events streamed, lag)."""
    changes: int = 10

    def ms_per_mb(self) -> float:
        """The worst lag per MB of request, at the largest request measured."""
        megabytes, lag = self.requests[max(self.requests)]
        return lag.worst_ms / megabytes


def measure_loop_lag(
    calls: tuple[int, ...] = (1_000, 5_000),
    state_mb: tuple[float, ...] = (0.5, 2.0),
    changes: int = 10,
) -> LagReport:
    """Measure every request size and every state size (deltas off and on), one run each
    after one unmeasured warm-up run."""
    report = LagReport(changes=changes)
    asyncio.run(_serve_request(answered_calls(2)))
    for n in calls:
        body = answered_calls(n)
        lag = asyncio.run(measure_lag(lambda body=body: _serve_request(body)))  # type: ignore[misc]
        report.requests[n] = (len(body) / 1_000_000, lag)
    asyncio.run(_serve_state(rows_state(0.01), 2, True))
    for megabytes in state_mb:
        for deltas in (False, True):
            state = rows_state(megabytes)
            lag, streamed = asyncio.run(_lag_of_state(state, changes, deltas))
            report.states[(megabytes, deltas)] = (streamed, lag)
    return report


def loop_lag_table(report: LagReport) -> list[str]:
    """The report as Markdown lines: one table per shape."""
    lines = [
        "| answered calls | request | worst lag | summed lag | wall | worst lag per MB |",
        "|---|---|---|---|---|---|",
    ]
    for n, (megabytes, lag) in sorted(report.requests.items()):
        lines.append(
            f"| {n:,} | {megabytes:.2f} MB | {lag.worst_ms:.0f} ms | {lag.total_ms:.0f} ms "
            f"| {lag.wall_ms:.0f} ms | {lag.worst_ms / megabytes:.0f} ms |"
        )
    lines += [
        "",
        "| state | deltas | changes | state events | worst lag | summed lag | wall "
        "| summed lag per change |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (megabytes, deltas), (streamed, lag) in sorted(report.states.items()):
        per_change = lag.total_ms / max(report.changes, 1)
        lines.append(
            f"| {megabytes:g} MB | {'on' if deltas else 'off'} | {report.changes} | {streamed} "
            f"| {lag.worst_ms:.0f} ms | {lag.total_ms:.0f} ms | {lag.wall_ms:.0f} ms "
            f"| {per_change:.0f} ms |"
        )
    return lines
