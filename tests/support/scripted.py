"""An offline Responses model that streams scripted turns through the real Agents SDK runner.

`ScriptedResponsesModel` implements `agents.models.interface.Model`. Each model call consumes one
`Turn`, a list of output item specs (`Text`, `Refusal`, `Reasoning`, `Call`, `Hosted`), and streams
it with the event sequence and field shapes of the OpenAI Responses API: `response.created`,
`response.in_progress`, per item `output_item.added` / content events / `output_item.done`, then
`response.completed`, `response.incomplete`, `response.failed` or `error`. Every call is recorded
with its input normalised to plain dicts so tests can assert exactly what the model received.

    result, model = run_streamed(agent, "Hi", turns=[
        Turn([Call("get_weather", {"city": "Paris"})]),
        Turn([Reasoning(summary=["Weather known."]), Text("Sunny.")], usage=TurnUsage(12, 4)),
    ])
    events = await collect(result.stream_events())
    assert model.calls[1].input[-1]["type"] == "function_call_output"

The item specs, `Turn`, `RecordedCall` and helpers live in `scripted_specs.py`; the builder
that turns a `Turn` into Responses API events lives in `scripted_turns.py`. Everything tests
use is importable from here.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from agents import Agent, RunConfig, Runner, RunResultStreaming, RunState, set_tracing_disabled
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.interface import Model, ModelProvider, ModelTracing
from agents.tool import Tool
from openai.types import responses as api
from openai.types.responses.response_prompt_param import ResponsePromptParam

from .responses_input import OUTPUTS, check_input, wire_input
from .scripted_specs import (
    Call,
    Hosted,
    ItemSpec,
    Reasoning,
    RecordedCall,
    Refusal,
    ScriptExhausted,
    Text,
    Turn,
    TurnSource,
    TurnStatus,
    TurnUsage,
    collect,
    split_text,
    to_plain,
)
from .scripted_turns import _sdk_usage, _terminal_error, _TurnBuilder

__all__ = [
    "Call",
    "Hosted",
    "ItemSpec",
    "Reasoning",
    "RecordedCall",
    "Refusal",
    "ScriptExhausted",
    "ScriptedProvider",
    "ScriptedResponsesModel",
    "Text",
    "Turn",
    "TurnSource",
    "TurnStatus",
    "TurnUsage",
    "collect",
    "run_streamed",
    "split_text",
    "to_plain",
]


# --- the model and its provider --------------------------------------------------------------


class ScriptedResponsesModel(Model):
    """A `Model` answering each call with the next scripted `Turn`.

    `turns` is a sequence consumed in order, or a callable building a Turn from the recorded
    call. `delay` seconds are slept before each streamed event (for cancellation tests).
    `calls` records every call; `responses` holds each turn's final Response. Every call's input
    is checked against the Responses API's input rules (`responses_input.check_input`) before
    the turn is chosen; `check_requests=False` turns that off for a test of a broken request.
    """

    def __init__(
        self,
        turns: TurnSource = (),
        *,
        model_name: str = "scripted-model",
        delay: float = 0.0,
        check_requests: bool = True,
    ) -> None:
        self._turns: list[Turn] | Callable[[RecordedCall], Turn] = (
            turns if callable(turns) else list(turns)
        )
        self.model_name = model_name
        self.delay = delay
        self.check_requests = check_requests
        self.calls: list[RecordedCall] = []
        self.responses: list[api.Response] = []
        self._counters: dict[str, int] = {}

    @property
    def call_count(self) -> int:
        """How many times the model was called."""
        return len(self.calls)

    @property
    def remaining(self) -> int | None:
        """Turns not consumed yet (None when turns come from a callable)."""
        return None if callable(self._turns) else max(0, len(self._turns) - len(self.calls))

    def assert_consumed(self) -> None:
        """Fail when scripted turns were left unused."""
        if self.remaining:
            raise AssertionError(f"{self.model_name}: {self.remaining} scripted turn(s) unused")

    def next_number(self, prefix: str) -> int:
        """The next 1-based counter for ids with `prefix`."""
        self._counters[prefix] = self._counters.get(prefix, 0) + 1
        return self._counters[prefix]

    def _start(
        self, streamed: bool, instructions: str | None, input: str | list[TResponseInputItem],
        settings: ModelSettings, tools: list[Tool], output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff], previous_response_id: str | None, conversation_id: str | None,
    ) -> tuple[Turn, list[TResponseStreamEvent]]:  # fmt: skip
        """Record the call, pick its turn and build the turn's events."""
        items = [{"content": input, "role": "user"}] if isinstance(input, str) else input
        call = RecordedCall(
            input=to_plain(items), instructions=instructions,
            tool_names=[tool.name for tool in tools],
            handoff_names=[handoff.tool_name for handoff in handoffs],
            model_settings=copy.deepcopy(settings), tools=list(tools),
            output_schema=output_schema, previous_response_id=previous_response_id,
            conversation_id=conversation_id, streamed=streamed,
        )  # fmt: skip
        self.calls.append(call)
        if self.check_requests:
            check_input(wire_input(call.input, id_less=True))
        turn = self._next_turn(call)
        if turn.raise_before is not None:
            raise turn.raise_before
        events, final = _TurnBuilder(self, turn, instructions).build()
        self.responses.append(final)
        OUTPUTS.record(final.output)
        return turn, events

    def _next_turn(self, call: RecordedCall) -> Turn:
        index = len(self.calls) - 1
        if callable(self._turns):
            return self._turns(call)
        if index >= len(self._turns):
            last = call.input[-1] if call.input else None
            raise ScriptExhausted(
                f"{self.model_name}: no scripted turn for call index {index} (call #{index + 1});"
                f" only {len(self._turns)} turn(s) were scripted. Last input item: {last!r}"
            )
        return self._turns[index]

    async def get_response(
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
    ) -> ModelResponse:
        """Answer a non-streaming call with the next turn's final Response."""
        turn, _ = self._start(
            False, system_instructions, input, model_settings, tools, output_schema, handoffs,
            previous_response_id, conversation_id,
        )  # fmt: skip
        final = self.responses[-1]
        delay = self.delay if turn.delay is None else turn.delay
        if delay:
            await asyncio.sleep(delay)
        if turn.raise_after_events is not None or turn.error is not None:
            raise turn.error or RuntimeError("scripted model failure")
        if turn.status != "completed":
            raise _terminal_error(turn, final)
        return ModelResponse(
            output=list(final.output), usage=_sdk_usage(turn.usage), response_id=final.id
        )

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
        """Stream the next turn event by event, as the Responses API does."""
        turn, events = self._start(
            True, system_instructions, input, model_settings, tools, output_schema, handoffs,
            previous_response_id, conversation_id,
        )  # fmt: skip
        limit = turn.raise_after_events
        if limit is None and turn.error is not None:
            limit = len(events)
        delay = self.delay if turn.delay is None else turn.delay
        for event in events if limit is None else events[:limit]:
            if delay:
                await asyncio.sleep(delay)
            yield event
        if limit is not None:
            raise turn.error or RuntimeError("scripted model failure")
        if turn.status != "completed":
            raise _terminal_error(turn, self.responses[-1])


class ScriptedProvider(ModelProvider):
    """A `ModelProvider` returning one model for any name, or a model per name."""

    def __init__(
        self, model_or_models: Model | Mapping[str, Model], *, default: Model | None = None
    ) -> None:
        self._models = model_or_models
        self._default = default
        self.requested: list[str | None] = []

    def get_model(self, model_name: str | None) -> Model:
        """The model for `model_name`; fails clearly when none is scripted for it."""
        self.requested.append(model_name)
        if isinstance(self._models, Model):
            return self._models
        if model_name is not None and model_name in self._models:
            return self._models[model_name]
        if self._default is not None:
            return self._default
        raise AssertionError(f"no scripted model for {model_name!r}; known: {sorted(self._models)}")


def run_streamed(
    agent: Agent[Any],
    input: str | list[TResponseInputItem] | RunState[Any],
    *,
    model: ScriptedResponsesModel | None = None,
    turns: TurnSource | None = None,
    run_config: RunConfig | None = None,
    context: Any = None,
    **kw: Any,
) -> tuple[RunResultStreaming, ScriptedResponsesModel]:
    """Start `Runner.run_streamed` offline on a scripted model (call inside a running loop)."""
    if model is not None and turns is not None:
        raise TypeError("pass either model or turns, not both")
    if model is None:
        model = ScriptedResponsesModel(turns if turns is not None else ())
    set_tracing_disabled(True)
    config = dataclasses.replace(
        run_config or RunConfig(), model_provider=ScriptedProvider(model), tracing_disabled=True
    )
    result = Runner.run_streamed(agent, input, context=context, run_config=config, **kw)
    return result, model
