"""Turns whose client goes away midway: a model that stalls where a scenario says, the tools
of the scenarios, and the client that leaves.

:class:`StallingModel` streams its scripted turns through the real runner and, at the point a
:class:`Scenario` names (the ``count``-th raw event of a type, in one model call), stops for
good: the run can only be cancelled from there. The client reads the run's events until the
scenario's leaving point, then goes away, so what the run streamed is known exactly and nothing
depends on timing.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from ag_ui.core import BaseEvent, Message, RunAgentInput, UserMessage
from agents import Agent, RunConfig, function_tool

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import ThreadStore
from ag_ui_openai_agents.threads.store import hold_lock
from support.invariants import parse_sse
from support.scripted import Call, Reasoning, ScriptedProvider, ScriptedResponsesModel, Text, Turn
from support.threads import by_thread_id

GUARD_SECONDS = 30.0


async def opened(gate: threading.Event, seconds: float = GUARD_SECONDS) -> None:
    """Wait until the test opens ``gate`` (a run cancelled meanwhile stops waiting at once, so
    the server it runs in can shut down)."""
    deadline = time.monotonic() + seconds
    while not gate.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


"""Bounds a broken test only (a run that never reaches its leaving point)."""


@dataclass(frozen=True)
class Stall:
    """Where the model stops for good: after the ``count``-th raw event of type ``kind`` of
    model call ``call`` (0-based)."""

    call: int
    kind: str
    count: int


class StallingModel(ScriptedResponsesModel):
    """A scripted model that stops streaming for good at its :class:`Stall`."""

    def __init__(
        self, turns: Sequence[Turn], stall: Stall | None, model_name: str = "stalling"
    ) -> None:
        super().__init__(turns, model_name=model_name)
        self.stall = stall
        self.stalled = asyncio.Event()
        """Set once the model has stopped (it stops once at most)."""

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        seen = 0
        async for event in super().stream_response(*args, **kwargs):
            yield event
            stall = self.stall
            if stall is None or len(self.calls) - 1 != stall.call or event.type != stall.kind:
                continue
            seen += 1
            if seen == stall.count and not self.stalled.is_set():
                self.stalled.set()
                await self.hold()

    async def hold(self) -> None:
        """What the model does at its stall: wait until the run is cancelled."""
        await asyncio.Event().wait()


@dataclass
class Tools:
    """What the scenarios' tools did."""

    lookups: list[str] = field(default_factory=list)
    """Every run of ``lookup`` (it answers at once)."""
    slow_lookups: list[str] = field(default_factory=list)
    """Every start of ``slow_lookup`` (it never answers)."""

    def agent(self) -> Agent[Any]:
        @function_tool
        def lookup(q: str) -> str:
            """Look an order up."""
            self.lookups.append(q)
            return f"Found {q}: shipped yesterday"

        @function_tool
        async def slow_lookup(q: str) -> str:
            """Look an order up in the archive (slow)."""
            self.slow_lookups.append(q)
            await asyncio.Event().wait()
            return "never"

        return Agent(name="orders", instructions="Help.", tools=[lookup, slow_lookup])


@dataclass(frozen=True)
class Scenario:
    """A turn the client leaves midway, and the model calls of the turn after it."""

    turns: tuple[Turn, ...]
    """The model calls of the cut turn, then those of the next turn."""
    stall: Stall | None
    """Where the cut turn's model stops (None: a tool holds the run)."""
    leave_after: str
    """The AG-UI event type the client waits for ..."""
    leave_count: int = 1
    """... this many times, then goes away."""


ANSWER = "The answer is forty two."
MID_TEXT = Scenario(
    (Turn([Text(ANSWER, id="msg_answer")]), Turn([Text("Going on.", id="msg_next")])),
    Stall(0, "response.output_text.delta", 2),
    "TEXT_MESSAGE_CONTENT",
    2,
)
"""The answer stops after two words ("The answer"): the client saw both, then left."""

AFTER_TOOL = Scenario(
    (
        Turn([Call("lookup", {"q": "order 7"}, call_id="call_lookup", id="fc_lookup")]),
        Turn([Text("Order 7 shipped yesterday.", id="msg_shipped")]),
        Turn([Text("You are welcome.", id="msg_welcome")]),
    ),
    Stall(1, "response.output_text.delta", 1),
    "TEXT_MESSAGE_CONTENT",
)
"""``lookup`` ran and its result was streamed; the answer stopped after its first word."""

OPEN_CALL = Scenario(
    (
        Turn([Call("slow_lookup", {"q": "order 7"}, call_id="call_slow", id="fc_slow")]),
        Turn([Text("Ask me again later.", id="msg_later")]),
    ),
    None,
    "TOOL_CALL_END",
)
"""The client left while ``slow_lookup``'s call was open (the tool never answers)."""

MID_ARGUMENTS = Scenario(
    (
        Turn([Call("lookup", {"q": "order 7"}, call_id="call_cut", id="fc_cut", chunks=3)]),
        Turn([Text("Ask me again later.", id="msg_later")]),
    ),
    Stall(0, "response.function_call_arguments.delta", 1),
    "TOOL_CALL_ARGS",
)
"""The call's arguments stopped a third of the way through (a JSON fragment)."""

MID_REASONING = Scenario(
    (
        Turn(
            [
                Reasoning(summary=["Weighing the options."], encrypted="enc-1", id="rs_weigh"),
                Text("Take the train.", id="msg_train"),
            ]
        ),
        Turn([Text("Still the train.", id="msg_still")]),
    ),
    Stall(0, "response.reasoning_summary_text.delta", 1),
    "REASONING_MESSAGE_CONTENT",
)
"""The client left while the model was reasoning."""

AFTER_REASONING = Scenario(
    MID_REASONING.turns,
    Stall(0, "response.output_text.delta", 1),
    "TEXT_MESSAGE_CONTENT",
)
"""The reasoning ended and the answer stopped after its first word."""


def wrapper_of(
    scenario: Scenario, tools: Tools, store: ThreadStore
) -> tuple[OpenAIAgentsAgent, StallingModel]:
    model = StallingModel(scenario.turns, scenario.stall)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    wrapper = OpenAIAgentsAgent(
        tools.agent(), run_config=config, threads=store, thread_key=by_thread_id
    )
    return wrapper, model


def request(
    thread_id: str, run_id: str, version: str | None, messages: Sequence[Message]
) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        protocol_version=version,
        messages=list(messages),
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    )


def body(run_input: RunAgentInput) -> dict[str, Any]:
    return run_input.model_dump(mode="json", by_alias=True, exclude_none=True)


def left(events: Sequence[BaseEvent], scenario: Scenario) -> bool:
    """Whether the client has seen enough to leave."""
    seen = [event for event in events if event.type.value == scenario.leave_after]
    return len(seen) >= scenario.leave_count


async def leave_midway(
    wrapper: OpenAIAgentsAgent, run_input: RunAgentInput, scenario: Scenario
) -> list[BaseEvent]:
    """Read the run's events up to the scenario's leaving point, then close the stream."""

    async def read() -> list[BaseEvent]:
        events: list[BaseEvent] = []
        stream = wrapper.run_streamed(run_input)
        try:
            async for event in stream:
                events.append(event)
                if left(events, scenario):
                    break
        finally:
            await stream.aclose()
        return events

    return await asyncio.wait_for(read(), GUARD_SECONDS)


async def leave_midway_over_http(
    client: httpx.AsyncClient, run_input: RunAgentInput, scenario: Scenario
) -> list[BaseEvent]:
    """POST the run, read its SSE events up to the leaving point, then drop the connection."""
    events: list[BaseEvent] = []
    async with client.stream("POST", "/agent", json=body(run_input)) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events += parse_sse(f"{line}\n\n")
            if left(events, scenario):
                break
    return events


async def settled(store: ThreadStore, key: str) -> None:
    """Wait until no run holds the thread's lock: a run cut short has saved what it got."""
    async with hold_lock(store, key, "settled-probe", wait=GUARD_SECONDS):
        pass


def user(text: str, id: str) -> UserMessage:
    return UserMessage(id=id, content=text)


def outputs_of(call_input: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``call_id`` -> output of each ``function_call_output`` of a model request."""
    return {
        item["call_id"]: item["output"]
        for item in call_input
        if item.get("type") == "function_call_output"
    }


def calls_of(call_input: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``call_id`` -> parsed arguments of each ``function_call`` of a model request."""
    return {
        item["call_id"]: json.loads(item["arguments"])
        for item in call_input
        if item.get("type") == "function_call"
    }
