"""Log lines are bounded, and a warning a request repeats is logged once for it.

What a client sends is quoted in warnings: a request that repeats one mistake thousands of
times logs one line with the count, and a megabyte MIME type or thread id is cut in every line
that names it. Each test serves a request through the endpoint and the real Runner, and counts
and measures the lines.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agents import Agent, set_tracing_disabled
from fastapi import FastAPI

from ag_ui_openai_agents.log_lines import MAX_ID_TEXT, MAX_LINE_TEXT
from ag_ui_openai_agents.server.logs import FALLBACK_FORMAT, PACKAGE_LOGGER, RunIdsFilter
from support.http import app_with, wrapper_for
from support.invariants import check_stream, parse_sse
from support.scripted import ScriptedResponsesModel, Text, Turn

set_tracing_disabled(True)

PARTS = 20_000
"""Parts of an unknown MIME type in one request (the probe sent 200,000: one line each)."""


def bad_part(mime: str = "bogus") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": mime}}


def body(parts: list[dict[str, Any]], thread_id: str = "thread-1") -> dict[str, Any]:
    content = [{"type": "text", "text": "What is in these pictures?"}, *parts]
    return {
        "threadId": thread_id,
        "runId": "run-1",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": content}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


class Lines(logging.Handler):
    """The package's records, as the fallback handler's format writes them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.addFilter(RunIdsFilter())
        self.setFormatter(logging.Formatter("%(thread_id)s %(run_id)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(PACKAGE_LOGGER):
            self.records.append(record)

    def lines(self, containing: str = "") -> list[str]:
        written = [self.format(record) for record in self.records]
        return [line for line in written if containing in line]


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    package = logging.getLogger(PACKAGE_LOGGER)
    level = package.level
    package.addHandler(handler)
    package.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        package.removeHandler(handler)
        package.setLevel(level)


async def serve(data: dict[str, Any]) -> ScriptedResponsesModel:
    model = ScriptedResponsesModel([Turn([Text("I cannot see them.")])])
    agent: Agent[Any] = Agent(name="viewer", instructions="Describe pictures.")
    app: FastAPI = app_with(wrapper_for(agent, model), max_request_bytes=None)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/agent", content=json.dumps(data))
    assert response.status_code == 200
    check_stream(parse_sse(response.text))
    model.assert_consumed()
    return model


async def test_parts_of_an_unknown_mime_type_are_one_line_with_their_count(lines: Lines) -> None:
    model = await serve(body([bad_part() for _ in range(PARTS)]))

    (sent,) = [item for item in model.calls[0].input if item.get("role") == "user"]
    assert sent["content"] == [{"type": "input_text", "text": "What is in these pictures?"}]
    (line,) = lines.lines("unknown MIME type")
    assert line.endswith(
        "Skipping image part: unknown MIME type 'bogus'. "
        f"({PARTS - 1} more like it in this request)"
    )
    assert len(lines.records) < 20  # the run's own lines, and the one summary


async def test_a_megabyte_mime_type_is_cut_in_its_line(lines: Lines) -> None:
    huge = "x" * 1_000_000
    await serve(body([bad_part(huge), bad_part(huge + "y"), bad_part("bogus")]))

    (line,) = lines.lines("unknown MIME type")
    assert "(2 more like it in this request)" in line
    assert len(line) < MAX_LINE_TEXT + 100  # the message, and the ids in front of it
    assert max(len(text) for text in lines.lines()) < MAX_LINE_TEXT + 100


async def test_a_megabyte_thread_id_is_cut_in_every_line(lines: Lines) -> None:
    thread_id = "t" * 6_000_000
    await serve(body([bad_part()], thread_id=thread_id))

    assert lines.records  # the run's start and end, its warning
    for record in lines.records:
        assert len(record.thread_id) <= MAX_ID_TEXT
    assert lines.records[0].thread_id.startswith("tttt")
    assert "6000000 characters" in lines.records[0].thread_id
    assert max(len(text) for text in lines.lines()) < MAX_LINE_TEXT + 2 * MAX_ID_TEXT
    # The fallback format shows the same ids.
    assert "%(run_ids)s" in FALLBACK_FORMAT
