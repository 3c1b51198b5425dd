"""Streamed Responses API bodies, event by event, as the API sends them over HTTP.

Written from the API reference and the `openai.types.responses` models, independently of the
scripted model: each output item kind has a builder returning a `WireItem` (the item as
`output_item.added` shows it, the events between, the item of `output_item.done` and the one
inside `response.completed`). `responses_body` turns a list of them into an SSE body.

    body = responses_body("resp_1", [
        reasoning("rs_1", ["Plan", "Check"], encrypted=("gA-added", "gA-done", "gA-final")),
        message("msg_1", "Looking it up.", phase="commentary"),
        function_call("fc_1", "call_1", "lookup", '{"q": "x"}'),
    ])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "WireItem",
    "code_interpreter_call",
    "compaction",
    "file_search_call",
    "function_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    "message",
    "reasoning",
    "responses_body",
    "web_search_call",
]


@dataclass
class WireItem:
    """One output item of a streamed response."""

    added: dict[str, Any]
    """The item on `response.output_item.added` (in progress)."""
    done: dict[str, Any]
    """The item on `response.output_item.done`."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The events between added and done, without `output_index` / `sequence_number`."""
    completed: dict[str, Any] | None = None
    """The item inside `response.completed`, when it differs from `done`."""


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or []


def reasoning(
    item_id: str,
    summary: list[str],
    *,
    encrypted: tuple[str, str, str] | None = None,
    text: list[str] | None = None,
) -> WireItem:
    """A reasoning item with summary parts (and reasoning text parts); `encrypted` is the
    (added, done, completed) encrypted content: in progress, then two different final values."""
    added: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    done: dict[str, Any] = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in summary],
    }
    if text is not None:
        done["content"] = [{"type": "reasoning_text", "text": t} for t in text]
    completed = dict(done)
    if encrypted is not None:
        added["encrypted_content"] = encrypted[0]
        done["encrypted_content"] = encrypted[1]
        completed["encrypted_content"] = encrypted[2]
    events: list[dict[str, Any]] = []
    for index, part in enumerate(summary):
        where = {"item_id": item_id, "summary_index": index}
        empty = {"type": "summary_text", "text": ""}
        events.append({"type": "response.reasoning_summary_part.added", **where, "part": empty})
        for piece in _pieces(part):
            events.append(
                {"type": "response.reasoning_summary_text.delta", **where, "delta": piece}
            )
        events.append({"type": "response.reasoning_summary_text.done", **where, "text": part})
        events.append(
            {
                "type": "response.reasoning_summary_part.done",
                **where,
                "part": {"type": "summary_text", "text": part},
            }
        )
    for index, part in enumerate(text or []):
        where = {"item_id": item_id, "content_index": index}
        for piece in _pieces(part):
            events.append({"type": "response.reasoning_text.delta", **where, "delta": piece})
        events.append({"type": "response.reasoning_text.done", **where, "text": part})
    return WireItem(added, done, events, completed)


def message(item_id: str, text: str, *, phase: str | None = None) -> WireItem:
    """An assistant message with one output_text part (GPT-5.x messages carry `phase`)."""
    base: dict[str, Any] = {"id": item_id, "type": "message", "role": "assistant"}
    if phase is not None:
        base["phase"] = phase
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    where = {"item_id": item_id, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
        *(
            {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []}
            for piece in _pieces(text)
        ),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
    ]
    return WireItem(
        {**base, "status": "in_progress", "content": []},
        {**base, "status": "completed", "content": [part]},
        events,
    )


def function_call(item_id: str, call_id: str, name: str, arguments: str) -> WireItem:
    """A function call whose arguments stream as deltas."""
    base = {"id": item_id, "type": "function_call", "call_id": call_id, "name": name}
    events: list[dict[str, Any]] = [
        {"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": piece}
        for piece in _pieces(arguments, 4)
    ]
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "item_id": item_id,
            "arguments": arguments,
        }
    )
    return WireItem(
        {**base, "arguments": "", "status": "in_progress"},
        {**base, "arguments": arguments, "status": "completed"},
        events,
    )


def _progress(kind: str, item_id: str, *steps: str) -> list[dict[str, Any]]:
    return [{"type": f"response.{kind}.{step}", "item_id": item_id} for step in steps]


def web_search_call(item_id: str, query: str) -> WireItem:
    """A hosted web search."""
    base = {"id": item_id, "type": "web_search_call"}
    return WireItem(
        {**base, "status": "in_progress", "action": {"type": "search"}},
        {
            **base,
            "status": "completed",
            "action": {
                "type": "search",
                "query": query,
                "sources": [{"type": "url", "url": "https://example.org/"}],
            },
        },
        _progress("web_search_call", item_id, "in_progress", "searching", "completed"),
    )


def code_interpreter_call(item_id: str, code: str, logs: str) -> WireItem:
    """A hosted code interpreter run with its code streamed and a logs output."""
    base = {"id": item_id, "type": "code_interpreter_call", "container_id": "cntr_1"}
    events = _progress("code_interpreter_call", item_id, "in_progress")
    events += [
        {"type": "response.code_interpreter_call_code.delta", "item_id": item_id, "delta": piece}
        for piece in _pieces(code)
    ]
    events.append(
        {"type": "response.code_interpreter_call_code.done", "item_id": item_id, "code": code}
    )
    events += _progress("code_interpreter_call", item_id, "interpreting", "completed")
    return WireItem(
        {**base, "status": "in_progress", "code": "", "outputs": None},
        {**base, "status": "completed", "code": code, "outputs": [{"type": "logs", "logs": logs}]},
        events,
    )


def file_search_call(item_id: str, queries: list[str], results: list[dict[str, Any]]) -> WireItem:
    """A hosted file search; `results` are there when the request included them."""
    base = {"id": item_id, "type": "file_search_call"}
    return WireItem(
        {**base, "status": "in_progress", "queries": []},
        {**base, "status": "completed", "queries": queries, "results": results or None},
        _progress("file_search_call", item_id, "in_progress", "searching", "completed"),
    )


def image_generation_call(item_id: str, partials: list[str], result: str) -> WireItem:
    """A hosted image generation streaming partial images (base64), then its image."""
    base = {"id": item_id, "type": "image_generation_call"}
    events = _progress("image_generation_call", item_id, "in_progress", "generating")
    events += [
        {
            "type": "response.image_generation_call.partial_image",
            "item_id": item_id,
            "partial_image_index": index,
            "partial_image_b64": partial,
            "output_format": "png",
            "size": "1024x1024",
        }
        for index, partial in enumerate(partials)
    ]
    events += _progress("image_generation_call", item_id, "completed")
    done = {**base, "status": "completed", "result": result, "output_format": "png"}
    return WireItem({**base, "status": "in_progress", "result": None}, done, events)


def mcp_list_tools(item_id: str, server_label: str, tools: list[str]) -> WireItem:
    """A hosted MCP server's tool listing."""
    base = {"id": item_id, "type": "mcp_list_tools", "server_label": server_label}
    listed = [
        {"name": name, "input_schema": {"type": "object", "properties": {}}, "description": name}
        for name in tools
    ]
    return WireItem(
        {**base, "tools": []},
        {**base, "tools": listed},
        _progress("mcp_list_tools", item_id, "in_progress", "completed"),
    )


def mcp_call(item_id: str, server_label: str, name: str, arguments: str, output: str) -> WireItem:
    """A hosted MCP tool call with its arguments streamed and its output."""
    base = {"id": item_id, "type": "mcp_call", "server_label": server_label, "name": name}
    events = _progress("mcp_call", item_id, "in_progress")
    events += [
        {"type": "response.mcp_call_arguments.delta", "item_id": item_id, "delta": piece}
        for piece in _pieces(arguments, 4)
    ]
    events.append(
        {"type": "response.mcp_call_arguments.done", "item_id": item_id, "arguments": arguments}
    )
    events += _progress("mcp_call", item_id, "completed")
    return WireItem(
        {**base, "arguments": "", "status": "in_progress"},
        {**base, "arguments": arguments, "status": "completed", "output": output, "error": None},
        events,
    )


def compaction(item_id: str, encrypted_content: str) -> WireItem:
    """A context compaction item."""
    item = {"id": item_id, "type": "compaction", "encrypted_content": encrypted_content}
    return WireItem(dict(item), dict(item))


def _response(
    response_id: str, model: str, status: str, output: list[dict[str, Any]], usage: Any
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1_764_000_000,
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "store": False,
        "usage": usage,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
    }


def responses_body(
    response_id: str,
    items: list[WireItem],
    *,
    model: str = "gpt-5.5-2026-04-23",
    usage: tuple[int, int, int] = (20, 10, 4),
) -> bytes:
    """The SSE body of one streamed response: created, in_progress, each item, completed."""
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": _response(response_id, model, "in_progress", [], None),
        },
        {
            "type": "response.in_progress",
            "response": _response(response_id, model, "in_progress", [], None),
        },
    ]
    for index, item in enumerate(items):
        events.append(
            {"type": "response.output_item.added", "output_index": index, "item": item.added}
        )
        events += [{**event, "output_index": index} for event in item.events]
        events.append(
            {"type": "response.output_item.done", "output_index": index, "item": item.done}
        )
    input_tokens, output_tokens, reasoning_tokens = usage
    totals = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }
    final = [item.completed or item.done for item in items]
    events.append(
        {
            "type": "response.completed",
            "response": _response(response_id, model, "completed", final, totals),
        }
    )
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps({**event, 'sequence_number': n})}\n\n".encode()
        for n, event in enumerate(events)
    )
