"""The multi-turn run the fault tests break at every position, and the tools to break it.

The clean run: turn 1 reasons, says a sentence and calls ``weather`` and ``clock`` in
parallel; both tools answer; turn 2 gives the final text. Every id is fixed, so the SDK
stream (46 events on openai-agents 0.24) is the same on every run.

* :class:`FaultModel` replays the scripted turns and, at one raw event of one call, raises
  or ends the turn with ``response.incomplete`` instead: a fault at an exact stream position.
* :class:`Pacer` wraps ``RunResultStreaming.stream_events`` to see what the consumer has
  been delivered, run a hook before a given position, and let code wait for a position.
* :class:`Tools` builds the two tools (``failure_error_function=None``) with a fault plan.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from agents import Agent, FunctionTool, RunConfig, RunResultStreaming, function_tool
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models._response_terminal import response_terminal_failure_error
from agents.models.interface import ModelTracing
from agents.stream_events import RawResponsesStreamEvent, StreamEvent
from agents.tool import Tool
from openai.types import responses as api
from openai.types.responses.response_prompt_param import ResponsePromptParam

from support.scripted import (
    Call,
    Reasoning,
    Refusal,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnSource,
    TurnUsage,
)

__all__ = [
    "MODEL_NAME",
    "TURN_USAGE",
    "FaultModel",
    "ModelFault",
    "Pacer",
    "Tools",
    "clean_turns",
    "delivered_usage",
    "refusal_turns",
    "run_config",
]

MODEL_NAME = "scripted-model"
TURN_USAGE = (TurnUsage(20, 8, reasoning=3), TurnUsage(30, 5))
"""Usage of turn 1 and turn 2."""


def clean_turns() -> list[Turn]:
    """The two turns of the clean run."""
    return [
        Turn(
            [
                Reasoning(summary=["Weather and time are needed."], encrypted="enc-1", id="rs_1"),
                Text("Let me check both.", id="msg_intro"),
                Call("weather", {"city": "Paris"}, call_id="call_weather", id="fc_weather"),
                Call("clock", {"zone": "CET"}, call_id="call_clock", id="fc_clock"),
            ],
            usage=TURN_USAGE[0],
        ),
        Turn([Text("Sunny in Paris at noon.", id="msg_final")], usage=TURN_USAGE[1]),
    ]


def refusal_turns(turn: int, boundary: int) -> list[Turn]:
    """The clean turns with turn ``turn`` cut after ``boundary`` items and ending in a refusal."""
    turns = clean_turns()
    cut = turns[turn]
    items = [*list(cut.items)[:boundary], Refusal("I will not help with that.", id="msg_refusal")]
    turns[turn] = Turn(items, usage=cut.usage)
    return turns


def run_config(model: ScriptedResponsesModel) -> RunConfig:
    """A run config using ``model`` for every agent, tracing off."""
    return RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)


# --------------------------------------------------------------------------- model faults


class InjectedModelError(RuntimeError):
    """What :class:`FaultModel` raises."""


@dataclass(frozen=True)
class ModelFault:
    """Break model call ``call`` (0-based) before its raw event ``index``."""

    call: int
    index: int
    kind: Literal["raise", "incomplete"]
    message: str = "the model failed"


class FaultModel(ScriptedResponsesModel):
    """A scripted model that breaks one call at one raw event (see :class:`ModelFault`)."""

    def __init__(self, turns: TurnSource, fault: ModelFault | None = None, **kw: Any) -> None:
        super().__init__(turns, **kw)
        self.fault = fault
        self.yielded = 0
        """Raw events streamed so far, over all calls."""
        self.gate: Callable[[int, int], Awaitable[None]] | None = None
        """Awaited before raw event ``index`` of call ``call`` (to keep pace with a consumer)."""

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream the next turn, breaking it where the fault says."""
        turn, events = self._start(
            True, system_instructions, input, model_settings, tools, output_schema, handoffs,
            previous_response_id, conversation_id,
        )  # fmt: skip
        fault = self.fault
        if fault is None or fault.call != len(self.calls) - 1:
            fault = None
        delay = self.delay if turn.delay is None else turn.delay
        done_items: list[Any] = []
        call = len(self.calls) - 1
        for index, event in enumerate(events):
            if self.gate is not None:
                await self.gate(call, index)
            if fault is not None and index == fault.index:
                if fault.kind == "raise":
                    raise InjectedModelError(fault.message)
                incomplete = self._incomplete(index, done_items)
                yield incomplete
                raise response_terminal_failure_error("response.incomplete", incomplete.response)
            if delay:
                await asyncio.sleep(delay)
            if isinstance(event, api.ResponseOutputItemDoneEvent):
                done_items.append(event.item)
            self.yielded += 1
            yield event

    def _incomplete(self, index: int, output: list[Any]) -> api.ResponseIncompleteEvent:
        final = self.responses[-1]
        response = final.model_copy(
            update={
                "status": "incomplete",
                "output": list(output),
                "incomplete_details": api.response.IncompleteDetails(reason="max_output_tokens"),
            }
        )
        return api.ResponseIncompleteEvent(
            type="response.incomplete", sequence_number=index, response=response
        )


# --------------------------------------------------------------------------- pacing


@dataclass
class Pacer:
    """Watches the SDK events a consumer is delivered, by position."""

    delivered: list[StreamEvent] = field(default_factory=list)
    hooks: dict[int, Callable[[], None]] = field(default_factory=dict)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def attach(self, result: RunResultStreaming) -> RunResultStreaming:
        """Route ``result.stream_events()`` through this pacer; return ``result``."""
        original = result.stream_events

        async def paced() -> AsyncIterator[StreamEvent]:
            inner = original()
            try:
                async for event in inner:
                    hook = self.hooks.get(len(self.delivered))
                    if hook is not None:
                        hook()
                    self.delivered.append(event)
                    self._changed.set()
                    yield event
            finally:
                await cast(AsyncGenerator[StreamEvent, None], inner).aclose()

        result.stream_events = paced  # type: ignore[method-assign]
        return result

    async def reached(self, count: int) -> None:
        """Wait until ``count`` events have been delivered."""
        while len(self.delivered) < count:
            self._changed.clear()
            await self._changed.wait()


def delivered_usage(events: Sequence[StreamEvent]) -> tuple[int, int]:
    """Input and output tokens of the responses whose terminal event was delivered."""
    given = made = 0
    for event in events:
        if not isinstance(event, RawResponsesStreamEvent):
            continue
        if event.data.type in ("response.completed", "response.incomplete", "response.failed"):
            usage = event.data.response.usage
            if usage is not None:
                given += usage.input_tokens
                made += usage.output_tokens
    return given, made


# --------------------------------------------------------------------------- tools


class InjectedToolError(RuntimeError):
    """What a failing tool raises."""


@dataclass
class Tools:
    """The scenario's two tools; ``failing`` ones raise, ``hanging`` ones never return."""

    failing: frozenset[str] = frozenset()
    hanging: frozenset[str] = frozenset()
    message: str = "the tool failed"
    position: Callable[[], int] | None = None
    started: list[tuple[str, int]] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)

    async def _act(self, name: str, answer: str) -> str:
        self.started.append((name, self.position() if self.position is not None else -1))
        if name in self.hanging:
            await asyncio.sleep(3600)
        if name in self.failing:
            raise InjectedToolError(self.message)
        self.finished.append(name)
        return answer

    def build(self) -> list[FunctionTool]:
        """Both tools, raising their errors (no failure handler)."""

        @function_tool(failure_error_function=None)
        async def weather(city: str) -> str:
            """The weather of a city."""
            return await self._act("weather", f"Sunny in {city}.")

        @function_tool(failure_error_function=None)
        async def clock(zone: str) -> str:
            """The time in a zone."""
            return await self._act("clock", f"Noon in {zone}.")

        return [weather, clock]

    def agent(self, **changes: Any) -> Agent[Any]:
        """The scenario's agent with these tools."""
        return Agent(name="assistant", instructions="Help.", tools=list(self.build()), **changes)
