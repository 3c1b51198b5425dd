"""A local stand-in for the OpenAI HTTP API, for the SDK's real model classes.

`WireServer` is a respx router behind an `AsyncOpenAI` client: `POST /v1/responses` and
`POST /v1/chat/completions` answer with queued SSE bodies and record every request body. Each
Responses request's `input` goes through the request checker (`responses_input.check_input`),
and each streamed response's output is recorded so the checker knows which item followed which
reasoning item. `run_wire` drives one AG-UI request through the package and the real
`Runner.run_streamed` on such a model, with the invariant checker on the stream.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any

import httpx
import respx
from ag_ui.core import RunAgentInput
from agents import Agent, RunConfig, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from ag_ui_openai_agents import AGUITranslator
from support.responses_input import OUTPUTS, check_input
from support.runs import AguiRun, _drain

__all__ = ["WireServer", "chat_body", "run_wire"]

BASE_URL = "http://api.openai.test/v1"


@dataclass
class ChatToolCall:
    """One streamed Chat Completions tool call."""

    call_id: str
    name: str
    arguments: str


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_764_000_000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def chat_body(
    text: str = "",
    calls: tuple[ChatToolCall, ...] = (),
    *,
    model: str = "gpt-4.1-2025-04-14",
    usage: tuple[int, int] = (30, 12),
) -> bytes:
    """A streamed Chat Completions answer: text deltas, tool call deltas, the finish chunk,
    then the usage chunk (no choices), then `[DONE]`."""
    chunks = [_chunk(model, {"role": "assistant", "content": ""})]
    chunks += [_chunk(model, {"content": text[i : i + 4]}) for i in range(0, len(text), 4)]
    for index, call in enumerate(calls):
        opening = {"index": index, "id": call.call_id, "type": "function"}
        chunks.append(
            _chunk(
                model,
                {"tool_calls": [{**opening, "function": {"name": call.name, "arguments": ""}}]},
            )
        )
        for start in range(0, len(call.arguments), 3):
            piece = call.arguments[start : start + 3]
            chunks.append(
                _chunk(model, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    chunks.append(_chunk(model, {}, "tool_calls" if calls else "stop"))
    prompt, completion = usage
    chunks.append(
        {
            **_chunk(model, {}),
            "choices": [],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def _outputs(body: bytes) -> list[dict[str, Any]]:
    """The output items inside the `response.completed` event of an SSE body."""
    for block in body.decode().split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data: ") and '"response.completed"' in line:
                return list(json.loads(line[6:])["response"]["output"])
    return []


class WireServer:
    """Queued SSE answers on a respx router; every request body recorded (and checked)."""

    def __init__(self) -> None:
        self.router = respx.Router(base_url=BASE_URL, assert_all_mocked=True)
        self.router.post("/responses").mock(side_effect=self._responses)
        self.router.post("/chat/completions").mock(side_effect=self._chat)
        self.bodies: deque[bytes] = deque()
        self.requests: list[dict[str, Any]] = []
        """Every request body, in order."""
        self.outputs: list[list[dict[str, Any]]] = []
        """The output items of every Responses answer, in order."""
        set_tracing_disabled(True)

    def client(self) -> AsyncOpenAI:
        """An `AsyncOpenAI` whose HTTP goes to this server."""
        http = httpx.AsyncClient(transport=httpx.MockTransport(self.router.async_handler))
        return AsyncOpenAI(base_url=BASE_URL, api_key="sk-test", http_client=http, max_retries=0)

    def queue(self, *bodies: bytes) -> None:
        """Answer the next requests with these bodies, in order."""
        self.bodies.extend(bodies)

    def _answer(self, request: httpx.Request) -> bytes:
        self.requests.append(json.loads(request.content))
        if not self.bodies:
            raise AssertionError(f"no answer queued for request #{len(self.requests)}")
        return self.bodies.popleft()

    def _responses(self, request: httpx.Request) -> httpx.Response:
        body = self._answer(request)
        check_input(self.requests[-1]["input"])
        output = _outputs(body)
        self.outputs.append(output)
        OUTPUTS.record(output)
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    def _chat(self, request: httpx.Request) -> httpx.Response:
        body = self._answer(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


async def run_wire(
    agent: Agent[Any], run_input: RunAgentInput, *, run_config: RunConfig | None = None
) -> AguiRun:
    """One AG-UI request through `to_openai`, the real runner on `agent`'s model, `to_agui`."""
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    config = run_config or RunConfig(tracing_disabled=True)
    result = Runner.run_streamed(agent, translated.messages, run_config=config)
    stream = translator.to_agui(result, run_input)
    events, error = await _drain(stream, run_input, False, True)
    return AguiRun(events, None, result, error)
