"""HTTP helpers for runs that outlive their requests, against real server processes: requests,
SSE blocks with their ids, streams left midway, reattaches, joins and stops."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from ag_ui.core import BaseEvent, RunAgentInput, TextMessageContentEvent, UserMessage

from support.invariants import parse_sse
from support.processes import Server

__all__ = [
    "Block",
    "body",
    "events_of",
    "leave_after",
    "post_blocks",
    "reattach",
    "stop_run",
    "text_of",
    "user",
]

SSE = {"accept": "text/event-stream"}


@dataclass(frozen=True)
class Block:
    """One SSE event as sent: its ``id:`` (None without one) and its JSON text."""

    id: str | None
    data: str

    @property
    def type(self) -> str:
        kind: str = json.loads(self.data)["type"]
        return kind


def user(text: str, message_id: str) -> UserMessage:
    return UserMessage(id=message_id, content=text)


def body(thread: str, run_id: str, version: str | None, messages: list[Any]) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread,
        run_id=run_id,
        protocol_version=version,
        messages=messages,
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    )


def _json(run_input: RunAgentInput) -> dict[str, Any]:
    return run_input.model_dump(mode="json", by_alias=True, exclude_none=True)


def _blocks(lines: Iterator[str]) -> Iterator[Block]:
    """The SSE events of ``lines`` (comments skipped), each as soon as its blank line came."""
    ident: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield Block(ident, "\n".join(data))
            ident, data = None, []
        elif line.startswith("id:"):
            ident = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


def post_blocks(
    client: httpx.Client,
    server: Server,
    run_input: RunAgentInput,
    headers: dict[str, str] | None = None,
) -> list[Block]:
    """A whole response to ``run_input`` on ``server``, as SSE blocks."""
    with client.stream(
        "POST", f"{server.url}/agent", json=_json(run_input), headers={**SSE, **(headers or {})}
    ) as response:
        assert response.status_code == 200, response.read()
        return list(_blocks(response.iter_lines()))


def leave_after(
    client: httpx.Client, server: Server, run_input: RunAgentInput, contents: int
) -> list[Block]:
    """Start ``run_input`` on ``server`` and drop the connection once ``contents`` text deltas
    came: the blocks received until then."""
    got: list[Block] = []
    with client.stream("POST", f"{server.url}/agent", json=_json(run_input), headers=SSE) as r:
        assert r.status_code == 200, r.read()
        for block in _blocks(r.iter_lines()):
            got.append(block)
            if sum(b.type == "TEXT_MESSAGE_CONTENT" for b in got) >= contents:
                break
    return got


def reattach(
    client: httpx.Client, server: Server, run_input: RunAgentInput, last: Block, header: str
) -> list[Block]:
    """The same request again on ``server``, with the last event's id in ``header``."""
    assert last.id is not None
    return post_blocks(client, server, run_input, {header: last.id})


def stop_run(client: httpx.Client, server: Server, thread: str, run_id: str) -> int:
    """``POST /agent/stop``; its status."""
    response = client.post(f"{server.url}/agent/stop", json={"threadId": thread, "runId": run_id})
    return response.status_code


def events_of(blocks: list[Block]) -> list[BaseEvent]:
    """The typed events of ``blocks``."""
    return parse_sse("".join(f"data: {block.data}\n\n" for block in blocks))


def text_of(blocks: list[Block]) -> str:
    """The text deltas of ``blocks``, joined."""
    return "".join(e.delta for e in events_of(blocks) if isinstance(e, TextMessageContentEvent))
