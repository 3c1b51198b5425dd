"""Memory per open stream: N runs at once, each stopped mid-stream, traced with `tracemalloc`.

Three runs, each N times at once, of an agent whose model answers in `turns` model calls of
`tokens` text tokens each (every call but the last ends by calling a tool that does nothing):

- `sdk_bare`: `Runner.run_streamed`, `stream_events()` consumed;
- `sdk_adapted`: the AG-UI request through `to_openai` and `to_agui`, every event encoded;
- `sdk_adapted_state`: the same with a `SharedState`, as `OpenAIAgentsAgent` runs every request
  (the SDK's stream then reaches the loop through the run's bounded queue).

Two ways of stopping mid-stream, both half-way through the first model call:

- *model paused*: the model stops (a model thinking, a tool running); the client has read
  everything and waits for the next event;
- *client stalled*: the model streams on at full speed; the client stops reading (a client on
  a slow network). What the run produces meanwhile waits for it: the SDK keeps a turn's events
  in its own queue and starts the next turn only once its consumer has taken them, unless
  something reads ahead of the client.

Once every client has stopped (and, for a stalled client, once every model streamed all its
tokens or the runs stood still for as long as the clients took to stop), the memory traced
above what it was before the first run started, divided by N, is what one open stream holds.
Then the streams are let go and run to their end. One unmeasured run of each side comes first
(what a first run caches is not a stream's).
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import EventType
from agents import Agent, RawResponsesStreamEvent, RunConfig, Runner, function_tool
from agents.models.interface import Model, ModelProvider
from openai.types import responses as api
from openai.types.responses import ResponseTextDeltaEvent

from ag_ui_openai_agents import AGUITranslator, SharedState, use_shared_state

from ._encode import encode_event
from .models import TokenModel, _response, token_text
from .sides import request

__all__ = ["RUNS", "SCENARIOS", "OpenStreamsReport", "measure_open_streams"]

SCENARIOS = ("model paused", "client stalled")
_QUIET_SECONDS = 1.0
"""The least time a stalled load must stand still to count as stopped."""
_tool_runs = 0


@function_tool
def noop() -> str:
    """Do nothing (but count the call: a run moving on between model calls)."""
    global _tool_runs
    _tool_runs += 1
    return "ok"


_AGENT: Agent[Any] = Agent(name="assistant", instructions="Answer.", tools=[noop])
_TRANSLATOR = AGUITranslator()


@dataclass
class OpenStreamsReport:
    """Bytes per open stream, by scenario and run."""

    streams: int
    tokens: int
    """Text tokens per model call; the clients stop half-way through the first."""
    turns: int
    bytes_per_stream: dict[str, dict[str, float]] = field(default_factory=dict)


class _Stop:
    """Where N runs stop mid-stream, and the release that lets them end."""

    def __init__(self, streams: int, tokens: int, turns: int, scenario: str) -> None:
        self.tokens, self.turns = tokens, turns
        self.half = tokens // 2
        self.paused_model = scenario == "model paused"
        self.release = asyncio.Event()
        self.streamed = 0
        """Tokens every model has streamed so far."""
        self.model_calls = 0
        self._started = asyncio.get_running_loop().time()
        self._all_tokens = streams * tokens * turns
        self._waiting = streams
        self._all_waiting = asyncio.Event()

    async def client_at_half(self) -> None:
        """A client has read half the first call's tokens; a stalled one waits there."""
        self._waiting -= 1
        if self._waiting == 0:
            self._all_waiting.set()
        if not self.paused_model:
            await self.release.wait()

    def _moves(self) -> tuple[int, int, int]:
        return self.streamed, self.model_calls, _tool_runs

    async def everyone_stopped(self) -> None:
        """Once every client stopped; with stalled clients, also every run: all its tokens
        streamed, or no token, model call or tool call for as long as the clients took to
        stop (at least ``_QUIET_SECONDS``; a run between two model calls can be slow)."""
        await self._all_waiting.wait()
        if self.paused_model:
            return
        loop = asyncio.get_running_loop()
        quiet = max(_QUIET_SECONDS, loop.time() - self._started)
        last, since = self._moves(), loop.time()
        while self.streamed < self._all_tokens and loop.time() - since < quiet:
            await asyncio.sleep(0.01)
            if self._moves() != last:
                last, since = self._moves(), loop.time()


class _TurnsModel(TokenModel):
    """One model call of a run: `tokens` text deltas, then (all calls but the last) a call of
    the `noop` tool. With a paused model, the first call waits for the release half-way."""

    def __init__(self, stop: _Stop) -> None:
        super().__init__(stop.tokens)
        self.stop = stop
        self.call = 0

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.stop.model_calls += 1
        given = args[1] if len(args) > 1 else kwargs.get("input")
        items = given if isinstance(given, list) else []
        self.call = sum(1 for item in items if _is_call_output(item))
        async for event in super().stream_response(*args, **kwargs):
            if isinstance(event, api.ResponseCompletedEvent) and self.call < self.stop.turns - 1:
                async for call_event in self._tool_call(event):
                    yield call_event
            else:
                yield event

    async def _deltas(self, first: int) -> AsyncIterator[tuple[int, str]]:
        stop = self.stop
        for index in range(self.tokens):
            if stop.paused_model and self.call == 0 and index == stop.half:
                await stop.release.wait()
            await asyncio.sleep(0)
            stop.streamed += 1
            yield first + index, token_text(index)

    async def _tool_call(self, completed: api.ResponseCompletedEvent) -> AsyncIterator[Any]:
        seq = completed.sequence_number
        call = api.ResponseFunctionToolCall(
            type="function_call", id=f"fc_{self.call}", call_id=f"call_{self.call}",
            name="noop", arguments="{}", status="completed",
        )  # fmt: skip
        yield api.ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=seq, output_index=1, item=call
        )
        yield api.ResponseOutputItemDoneEvent(
            type="response.output_item.done", sequence_number=seq + 1, output_index=1, item=call
        )
        response = _response("completed", None)
        response.output = [*completed.response.output, call]
        yield api.ResponseCompletedEvent(
            type="response.completed", sequence_number=seq + 2, response=response
        )


def _is_call_output(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "function_call_output"


class _Provider(ModelProvider):
    def __init__(self, stop: _Stop) -> None:
        self.stop = stop

    def get_model(self, model_name: str | None) -> Model:
        return _TurnsModel(self.stop)


async def _bare(stop: _Stop) -> None:
    config = RunConfig(model_provider=_Provider(stop), tracing_disabled=True)
    result = Runner.run_streamed(_AGENT, "Hi", run_config=config)
    seen = 0
    async for event in result.stream_events():
        if isinstance(event, RawResponsesStreamEvent) and isinstance(
            event.data, ResponseTextDeltaEvent
        ):
            seen += 1
            if seen == stop.half:
                await stop.client_at_half()


async def _adapted(stop: _Stop, *, with_state: bool) -> None:
    run_input = request()
    messages = _TRANSLATOR.to_openai(run_input).messages
    config = RunConfig(model_provider=_Provider(stop), tracing_disabled=True)
    state = SharedState(run_input.state) if with_state else None
    if state is None:
        result = Runner.run_streamed(_AGENT, messages, run_config=config)
    else:
        with use_shared_state(state):
            result = Runner.run_streamed(_AGENT, messages, run_config=config)
    seen = 0
    async for event in _TRANSLATOR.to_agui(result, run_input, shared_state=state):
        encode_event(event)
        if event.type == EventType.TEXT_MESSAGE_CONTENT:
            seen += 1
            if seen == stop.half:
                await stop.client_at_half()


async def _adapted_plain(stop: _Stop) -> None:
    await _adapted(stop, with_state=False)


async def _adapted_state(stop: _Stop) -> None:
    await _adapted(stop, with_state=True)


RUNS: dict[str, Callable[[_Stop], Awaitable[None]]] = {
    "sdk_bare": _bare,
    "sdk_adapted": _adapted_plain,
    "sdk_adapted_state": _adapted_state,
}


async def _per_stream(name: str, streams: int, stop: _Stop) -> float:
    """Bytes traced per open stream while `streams` runs of `name` are stopped mid-stream."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        runs = [asyncio.ensure_future(RUNS[name](stop)) for _ in range(streams)]
        await stop.everyone_stopped()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        stop.release.set()
        await asyncio.gather(*runs)
    finally:
        tracemalloc.stop()
    return held / streams


def measure_open_streams(streams: int, tokens: int, turns: int = 3) -> OpenStreamsReport:
    """Each scenario for each run: `streams` runs of `turns` model calls of `tokens` tokens,
    stopped half-way through the first call."""

    async def run() -> OpenStreamsReport:
        report = OpenStreamsReport(streams=streams, tokens=tokens, turns=turns)
        for name in RUNS:
            warmup = _Stop(1, 4, turns, "model paused")
            warmup.release.set()
            await RUNS[name](warmup)
        for scenario in SCENARIOS:
            report.bytes_per_stream[scenario] = {
                name: await _per_stream(name, streams, _Stop(streams, tokens, turns, scenario))
                for name in RUNS
            }
        return report

    return asyncio.run(run())
