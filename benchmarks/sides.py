"""The four runs the per-token benchmark compares, each started from nothing and consumed.

- `sdk_bare`: `Runner.run_streamed` on the token model, `stream_events()` consumed.
- `sdk_adapted`: the AG-UI request translated (`to_openai`), the same run through
  `AGUITranslator.to_agui`, every event encoded for SSE.
- `sdk_adapted_state`: the same with a `SharedState`, as `OpenAIAgentsAgent` runs every
  request (the SDK's stream then reaches `to_agui`'s loop through the run's bounded queue).
- `pai_bare`: a pydantic-ai agent on a `FunctionModel` streaming the same tokens, its
  `run_stream_events()` consumed.
- `pai_adapted`: the same agent through pydantic-ai's `AGUIAdapter`, `run_stream()` encoded
  for SSE by its `encode_stream()`.

Each run reports to a `Probe`: the time of its first output (an SDK event, or an encoded
event for the adapted runs) and of its first token.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ag_ui.core import EventType, RunAgentInput, UserMessage
from agents import Agent, RawResponsesStreamEvent, Runner
from openai.types.responses import ResponseTextDeltaEvent

from ag_ui_openai_agents import AGUITranslator, SharedState, use_shared_state

from ._encode import encode_event
from .models import run_config, token_text

__all__ = ["SIDES", "Probe", "Side", "pydantic_ai_version", "request"]

SSE = "text/event-stream"


@dataclass
class Probe:
    """When a run started, and when its first output and first token came."""

    start: float = 0.0
    first_output: float | None = None
    first_token: float | None = None
    outputs: int = 0
    tokens: int = 0

    def begin(self) -> None:
        """Mark the request."""
        self.start = time.perf_counter()

    def output(self, is_token: bool) -> None:
        """Count one output; note the first one and the first token."""
        self.outputs += 1
        if self.first_output is None:
            self.first_output = time.perf_counter() - self.start
        if is_token:
            self.tokens += 1
            if self.first_token is None:
                self.first_token = time.perf_counter() - self.start


Side = Callable[[int, Probe], Awaitable[None]]


def request() -> RunAgentInput:
    """A one-message AG-UI request, as a client sends it."""
    return RunAgentInput(
        thread_id="thread_1", run_id="run_1", state=None, tools=[], context=[],
        forwarded_props=None, messages=[UserMessage(id="user_1", role="user", content="Hi")],
    )  # fmt: skip


_AGENT: Agent[Any] = Agent(name="assistant", instructions="Answer.")
_TRANSLATOR = AGUITranslator()


async def sdk_bare(tokens: int, probe: Probe) -> None:
    """The SDK's run alone."""
    probe.begin()
    result = Runner.run_streamed(_AGENT, "Hi", run_config=run_config(tokens))
    async for event in result.stream_events():
        probe.output(
            isinstance(event, RawResponsesStreamEvent)
            and isinstance(event.data, ResponseTextDeltaEvent)
        )


async def sdk_adapted(tokens: int, probe: Probe) -> None:
    """The same run from an AG-UI request to encoded SSE events, through this package."""
    probe.begin()
    run_input = request()
    translated = _TRANSLATOR.to_openai(run_input)
    result = Runner.run_streamed(_AGENT, translated.messages, run_config=run_config(tokens))
    async for event in _TRANSLATOR.to_agui(result, run_input):
        encode_event(event)
        probe.output(event.type == EventType.TEXT_MESSAGE_CONTENT)


async def sdk_adapted_state(tokens: int, probe: Probe) -> None:
    """The same run with a shared state, as `OpenAIAgentsAgent` runs every request."""
    probe.begin()
    run_input = request()
    translated = _TRANSLATOR.to_openai(run_input)
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result = Runner.run_streamed(_AGENT, translated.messages, run_config=run_config(tokens))
    async for event in _TRANSLATOR.to_agui(result, run_input, shared_state=state):
        encode_event(event)
        probe.output(event.type == EventType.TEXT_MESSAGE_CONTENT)


def pydantic_ai_version() -> str | None:
    """The installed pydantic-ai version, or None when it is not installed."""
    try:
        from pydantic_ai import __version__
    except ImportError:
        return None
    return str(__version__)


def _pai_agent(tokens: int) -> Any:
    from pydantic_ai import Agent as PaiAgent
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for index in range(tokens):
            await asyncio.sleep(0)
            yield token_text(index)

    return PaiAgent(FunctionModel(stream_function=stream), instructions="Answer.")


async def pai_bare(tokens: int, probe: Probe) -> None:
    """pydantic-ai's run alone."""
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    probe.begin()
    agent = _pai_agent(tokens)
    async with agent.run_stream_events("Hi") as events:
        async for event in events:
            probe.output(
                (isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta))
                or (isinstance(event, PartStartEvent) and isinstance(event.part, TextPart))
            )


async def pai_adapted(tokens: int, probe: Probe) -> None:
    """The same run from an AG-UI request to encoded SSE events, through `AGUIAdapter`."""
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    probe.begin()
    adapter = AGUIAdapter(_pai_agent(tokens), request(), accept=SSE)
    async for chunk in adapter.encode_stream(adapter.run_stream()):
        probe.output('"TEXT_MESSAGE_CONTENT"' in chunk)


SIDES: dict[str, Side] = {
    "sdk_bare": sdk_bare,
    "sdk_adapted": sdk_adapted,
    "sdk_adapted_state": sdk_adapted_state,
    "pai_bare": pai_bare,
    "pai_adapted": pai_adapted,
}
