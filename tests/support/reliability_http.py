"""Dropping an HTTP stream mid-run and watching what the server does afterwards.

The served app (:func:`served_app`) runs the fault scenario's agent behind the AG-UI endpoint
and adds ``GET /probe``, which records the server's event loop so a test (in another thread)
can list the server's unfinished tasks. :func:`leave_after` reads a number of SSE events,
drops the connection and reports what went wrong on the server: tasks that never ended, or a
model that kept streaming.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from ag_ui.core import RunAgentInput
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from support.invariants import parse_sse
from support.reliability_scenario import FaultModel, Tools, clean_turns, run_config
from support.runs import check_prefix

__all__ = ["EVENT_DELAY", "SLACK_EVENTS", "Served", "leave_after", "scenario_turn"]

EVENT_DELAY = 0.01
"""Seconds the served model waits before each raw event, so the server is slower than the client."""
SLACK_EVENTS = 3
"""Raw events the model may still stream while the server notices the client is gone."""


def scenario_turn(call: Any) -> Any:
    """The clean run's turns, chosen from the input, so one model serves every request."""
    answered = any(item.get("type") == "function_call_output" for item in call.input)
    return clean_turns()[1 if answered else 0]


@dataclass
class Served:
    """An app serving the scenario, its model, and the server loop once probed."""

    tools: Tools
    model: FaultModel
    app: FastAPI = field(init=False)
    loops: list[asyncio.AbstractEventLoop] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.app = FastAPI()
        wrapped = OpenAIAgentsAgent(self.tools.agent(), run_config=run_config(self.model))
        add_openai_agents_fastapi_endpoint(self.app, wrapped, "/agent")

        async def probe() -> dict[str, str]:
            self.loops.append(asyncio.get_running_loop())
            return {"status": "ok"}

        self.app.add_api_route("/probe", probe, methods=["GET"])

    def tasks(self) -> set[asyncio.Task[Any]]:
        """The server's unfinished tasks, read on its own loop."""

        async def collect() -> set[asyncio.Task[Any]]:
            current = asyncio.current_task()
            return {t for t in asyncio.all_tasks() if t is not current and not t.done()}

        return asyncio.run_coroutine_threadsafe(collect(), self.loops[0]).result(timeout=5)


def _read_then_leave(
    client: httpx.Client, base_url: str, run_input: RunAgentInput, count: int
) -> str:
    """Read ``count`` SSE events of one run, then drop the connection."""
    body = run_input.model_dump_json(by_alias=True, exclude_none=True)
    received = ""
    headers = {"content-type": "application/json"}
    with client.stream("POST", f"{base_url}/agent", content=body, headers=headers) as response:
        assert response.status_code == 200
        for chunk in response.iter_text():
            received += chunk
            if received.count("\n\n") >= count:
                break
    return received


def _wait(condition: Callable[[], bool], timeout: float) -> bool:
    pause = threading.Event()
    steps = int(timeout / 0.01)
    while steps > 0 and not condition():
        pause.wait(0.01)
        steps -= 1
    return condition()


def leave_after(
    served: Served, client: httpx.Client, base_url: str, run_input: RunAgentInput, count: int
) -> list[str]:
    """Read ``count`` events of one run and leave; return what went wrong on the server."""
    idle = served.tasks()
    received = _read_then_leave(client, base_url, run_input, count)
    streamed_at_leave = served.model.yielded
    events = parse_sse(received[: received.rfind("\n\n") + 2])[:count]
    check_prefix(events, run_input)
    problems: list[str] = []
    if not _wait(lambda: served.tasks() <= idle, 3.0):
        problems.append(f"event {count}: tasks left: {served.tasks() - idle}")
    after = served.model.yielded - streamed_at_leave
    if after > SLACK_EVENTS:
        problems.append(f"event {count}: the model streamed {after} events after the client left")
    return problems
