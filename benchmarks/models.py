"""Offline models for the OpenAI Agents SDK that stream a text answer token by token.

`TokenModel` implements the SDK's `Model` interface: each call streams one assistant message
of `tokens` text deltas with the event sequence of the Responses API (`response.created`,
`output_item.added`, `content_part.added`, the deltas, the done events,
`response.completed`). It sleeps `interval` seconds before each delta, as a model paced by
the network does; the default 0 still gives the event loop a turn between tokens, as tokens
arriving a few milliseconds apart do (else the SDK's runner would queue the whole answer
before its consumer sees the first token). With `stamped` each delta carries the wall-clock
time (ns) at which it was yielded, so a client can tell how long the token took to reach it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, RunConfig, Runner, RunResultStreaming
from agents.items import ModelResponse, TResponseStreamEvent
from agents.models.interface import Model, ModelProvider
from openai.types import responses as api

__all__ = ["TokenModel", "TokenProvider", "run_config", "start_run", "token_text"]

WORDS = ("alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta ")


def token_text(index: int) -> str:
    """The text of token `index` (a short word and a space, as most tokens are)."""
    return WORDS[index % len(WORDS)]


def _response(status: str, text: str | None) -> api.Response:
    output: list[Any] = [] if text is None else [_message(text, "completed")]
    return api.Response(
        id="resp_1", created_at=1_700_000_000, model="token-model", object="response",
        output=output, parallel_tool_calls=True, tool_choice="auto", tools=[],
        status=status,  # type: ignore[arg-type]
    )  # fmt: skip


def _message(text: str | None, status: str) -> api.ResponseOutputMessage:
    content = [] if text is None else [api.ResponseOutputText(
        type="output_text", text=text, annotations=[], logprobs=[]
    )]  # fmt: skip
    return api.ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status=status,  # type: ignore[arg-type]
        content=content,  # type: ignore[arg-type]
    )


class TokenModel(Model):
    """Streams `tokens` text deltas per call; see the module's docstring."""

    def __init__(self, tokens: int, *, interval: float = 0.0, stamped: bool = False) -> None:
        self.tokens, self.interval, self.stamped = tokens, interval, stamped

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Not used: the benchmarks only stream."""
        raise NotImplementedError

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """One streamed assistant message of `tokens` deltas."""
        where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
        seq = 2
        yield api.ResponseCreatedEvent(
            type="response.created", sequence_number=0, response=_response("in_progress", None)
        )
        yield api.ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=1, output_index=0,
            item=_message(None, "in_progress"),
        )  # fmt: skip
        empty = api.ResponseOutputText(type="output_text", text="", annotations=[])
        yield api.ResponseContentPartAddedEvent(
            type="response.content_part.added", sequence_number=2, part=empty, **where
        )
        pieces: list[str] = []
        async for seq, piece in self._deltas(3):
            pieces.append(piece)
            yield api.ResponseTextDeltaEvent(
                type="response.output_text.delta", sequence_number=seq, delta=piece,
                logprobs=[], **where,
            )  # fmt: skip
        async for event in self._closing(seq + 1, "".join(pieces), where):
            yield event

    async def _deltas(self, first: int) -> AsyncIterator[tuple[int, str]]:
        for index in range(self.tokens):
            await asyncio.sleep(self.interval)
            piece = f"{time.time_ns()} " if self.stamped else token_text(index)
            yield first + index, piece

    async def _closing(
        self, seq: int, text: str, where: dict[str, Any]
    ) -> AsyncIterator[TResponseStreamEvent]:
        part = api.ResponseOutputText(type="output_text", text=text, annotations=[])
        yield api.ResponseTextDoneEvent(
            type="response.output_text.done", sequence_number=seq, text=text, logprobs=[],
            **where,
        )  # fmt: skip
        yield api.ResponseContentPartDoneEvent(
            type="response.content_part.done", sequence_number=seq + 1, part=part, **where
        )
        yield api.ResponseOutputItemDoneEvent(
            type="response.output_item.done", sequence_number=seq + 2, output_index=0,
            item=_message(text, "completed"),
        )  # fmt: skip
        yield api.ResponseCompletedEvent(
            type="response.completed", sequence_number=seq + 3,
            response=_response("completed", text),
        )  # fmt: skip


class TokenProvider(ModelProvider):
    """A fresh `TokenModel` for every model call."""

    def __init__(self, tokens: int, *, interval: float = 0.0, stamped: bool = False) -> None:
        self.tokens, self.interval, self.stamped = tokens, interval, stamped

    def get_model(self, model_name: str | None) -> Model:
        """A model streaming `tokens` deltas."""
        return TokenModel(self.tokens, interval=self.interval, stamped=self.stamped)


def run_config(tokens: int, *, interval: float = 0.0, stamped: bool = False) -> RunConfig:
    """A run config whose model streams `tokens` deltas, tracing off."""
    provider = TokenProvider(tokens, interval=interval, stamped=stamped)
    return RunConfig(model_provider=provider, tracing_disabled=True)


def start_run(agent: Agent[Any], input: Any, tokens: int) -> RunResultStreaming:
    """`Runner.run_streamed` on a token model (call inside a running loop)."""
    return Runner.run_streamed(agent, input, run_config=run_config(tokens))
