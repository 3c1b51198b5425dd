"""Large media travel by reference: kept in the thread store and served from
``GET {path}/media/{id}`` behind the route's dependencies and the thread's key; a medium that
cannot be served becomes an error part of that result only; media count toward the request and
thread limits. Over HTTP, the real runner, a real SQLite file, both request kinds."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import Event, RunAgentInput, ToolMessage, UserMessage
from agents import (
    Agent,
    RunConfig,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
    set_tracing_disabled,
)
from fastapi import Header, HTTPException
from fastapi.params import Depends
from pydantic import TypeAdapter

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import SQLiteThreadStore, single_user_threads
from ag_ui_openai_agents.threads.media import DEFAULT_INLINE_MEDIA_BYTES, MEDIA_NOT_SERVED
from support.http import app_with, asgi_client
from support.invariants import check_stream
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)

set_tracing_disabled(True)

_EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
# A PNG signature and 300 KiB of bytes: 400 KiB of base64, over the 256 KiB inline limit.
BIG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 1200
BIG_B64 = base64.b64encode(BIG).decode()
SMALL_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x01" * 64).decode()
PDF = b"%PDF-1.4\n" + b"%" * (300 * 1024)
PDF_B64 = base64.b64encode(PDF).decode()
BIG_URL = f"data:image/png;base64,{BIG_B64}"
SMALL_URL = f"data:image/png;base64,{SMALL_B64}"


@function_tool
def draw(topic: str) -> list[ToolOutputText | ToolOutputImage | ToolOutputFileContent]:
    """Draw a chart, a thumbnail and a report."""
    return [
        ToolOutputText(text=f"Chart of {topic}"),
        ToolOutputImage(image_url=BIG_URL, detail="high"),
        ToolOutputImage(image_url=SMALL_URL),
        ToolOutputFileContent(file_data=PDF_B64, filename="report.pdf"),
    ]


def decide(call: RecordedCall) -> Turn:
    users = [i for i, item in enumerate(call.input) if item.get("role") == "user"]
    turn = len(users)
    if any(item.get("type") == "function_call_output" for item in call.input[users[-1] :]):
        return Turn([Text(f"Drawn {turn}.", id=f"msg_{turn}")])
    return Turn([Call("draw", {"topic": "sales"}, call_id=f"call_{turn}", id=f"fc_{turn}")])


def by_user(thread_id: str, request: Any) -> str:
    return f"{request.headers.get('x-user', 'nobody')}:{thread_id}"


def require_token(x_token: str = Header("")) -> None:
    if x_token != "secret":
        raise HTTPException(status_code=401, detail="no token")


def _wrapper(store: SQLiteThreadStore | None) -> tuple[OpenAIAgentsAgent, ScriptedResponsesModel]:
    model = ScriptedResponsesModel(decide, model_name="scripted-media-limits")
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = Agent(name="artist", tools=[draw])
    key = by_user if store is not None else None
    return OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=key), model


def _request(version: str | None, *messages: Any, run_id: str = "run-1") -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-media",
        run_id=run_id,
        protocol_version=version,
        messages=list(messages) or [UserMessage(id="user-1", content="Draw sales")],
        state={},
        tools=[],
        context=[],
        forwarded_props={},
    )


async def _run(client: httpx.AsyncClient, run_input: RunAgentInput) -> list[Any]:
    body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    headers = {"x-user": "alice", "x-token": "secret"}
    response = await client.post("/agent", json=body, headers=headers)
    assert response.status_code == 200
    events = [
        _EVENTS.validate_python(json.loads(line[6:]))
        for line in response.text.splitlines()
        if line.startswith("data: ")
    ]
    pre_1_0 = run_input.protocol_version is None
    check_stream(events, run_input=run_input if run_input.run_id == "run-1" else None,
                 pre_1_0=pre_1_0)  # fmt: skip
    return events


def _result(events: list[Any]) -> list[dict[str, Any]] | str:
    (result,) = [e for e in events if e.type == "TOOL_CALL_RESULT"]
    if isinstance(result.content, str):
        return result.content
    return [part.model_dump(mode="json", by_alias=True) for part in result.content]


def _snapshot_result(events: list[Any], call_id: str) -> Any:
    (snapshot,) = [e for e in events if e.type == "MESSAGES_SNAPSHOT"]
    (tool,) = [m for m in snapshot.messages if isinstance(m, ToolMessage)
               and m.tool_call_id == call_id]  # fmt: skip
    return tool


def _outputs(call: RecordedCall) -> list[Any]:
    return [item["output"] for item in call.input if item.get("type") == "function_call_output"]


SEEN = [
    {"type": "input_text", "text": "Chart of sales"},
    {"type": "input_image", "image_url": BIG_URL, "detail": "high"},
    {"type": "input_image", "image_url": SMALL_URL},
    {"type": "input_file", "file_data": PDF_B64, "filename": "report.pdf"},
]


async def test_large_media_are_served_by_reference_and_replayed_exactly(tmp_path: Path) -> None:
    store = SQLiteThreadStore(tmp_path / "threads.db")
    wrapper, model = _wrapper(store)
    app = app_with(wrapper, dependencies=[Depends(require_token)])
    async with asgi_client(app) as client:
        events = await _run(client, _request("1.0"))
        text, big, small, pdf = _result(events)
        assert text == {"type": "text", "text": "Chart of sales"}
        assert small["source"] == {"type": "data", "value": SMALL_B64, "mimeType": "image/png"}
        assert big["source"]["type"] == "url" and big["source"]["mimeType"] == "image/png"
        media_id = big["metadata"]["openai"]["media"]
        assert big["source"]["value"] == f"/agent/media/{media_id}"
        assert big["metadata"] == {
            "detail": "high",
            "openai": {"v": 1, "media": media_id, "bytes": len(BIG_B64)},
        }
        assert pdf["metadata"]["filename"] == "report.pdf"
        assert pdf["metadata"]["openai"]["bytes"] == len(PDF_B64)
        # The snapshot restates the same references: no event carries the large bytes.
        shown = _snapshot_result(events, "call_1")
        assert [p.model_dump(mode="json", by_alias=True) for p in shown.content] == [
            text, big, small, pdf
        ]  # fmt: skip
        assert max(len(e.model_dump_json()) for e in events) < DEFAULT_INLINE_MEDIA_BYTES

        owner = {"x-user": "alice", "x-token": "secret"}
        got = await client.get(big["source"]["value"], headers=owner)
        assert (got.status_code, got.content) == (200, BIG)
        assert got.headers["content-type"] == "image/png"
        assert got.headers["x-content-type-options"] == "nosniff"
        assert "sandbox" in got.headers["content-security-policy"]
        report = await client.get(pdf["source"]["value"], headers=owner)
        assert report.content == PDF
        assert report.headers["content-disposition"] == "attachment; filename*=UTF-8''report.pdf"
        # Behind the route's dependencies, and the thread's key: another user gets a 404.
        assert (await client.get(big["source"]["value"])).status_code == 401
        other = {"x-user": "mallory", "x-token": "secret"}
        assert (await client.get(big["source"]["value"], headers=other)).status_code == 404
        unknown = "/agent/media/" + "0" * 32
        assert (await client.get(unknown, headers=owner)).status_code == 404

        # The next turn gives the model every item exactly as it first saw them.
        again = _request("1.0", UserMessage(id="user-2", content="Again"), run_id="run-2")
        events = await _run(client, again)
        assert _outputs(model.calls[-1]) == [SEEN, SEEN]
        assert _snapshot_result(events, "call_1") == shown  # the same references, not new ones


async def test_a_client_older_than_1_0_keeps_its_round_trip(tmp_path: Path) -> None:
    wrapper, model = _wrapper(SQLiteThreadStore(tmp_path / "threads.db"))
    async with asgi_client(app_with(wrapper)) as client:
        events = await _run(client, _request(None))
        assert json.loads(str(_result(events))) == SEEN  # today's text, inline
        again = _request(None, UserMessage(id="user-2", content="Again"), run_id="run-2")
        await _run(client, again)
        assert _outputs(model.calls[-1]) == [SEEN, SEEN]


async def test_without_a_store_a_large_medium_is_an_error_of_that_result_only() -> None:
    wrapper, _ = _wrapper(None)
    async with asgi_client(app_with(wrapper)) as client:
        events = await _run(client, _request("1.0"))
        text, big, small, pdf = _result(events)
        assert small["source"]["type"] == "data" and text["text"] == "Chart of sales"
        assert big["type"] == pdf["type"] == "text"
        assert big["text"].startswith("[image not shown: 400 KiB is over this server's inline")
        assert "keeps no thread store" in big["text"]
        assert big["metadata"] == {"openai": {"error": MEDIA_NOT_SERVED}}
        assert pdf["text"].startswith("[file 'report.pdf' not shown: ")
        assert pdf["metadata"]["filename"] == "report.pdf"
        assert [e.type for e in events][-1] == "RUN_FINISHED"  # the stream goes on
        said = "".join(e.delta for e in events if e.type == "TEXT_MESSAGE_CONTENT")
        assert said == "Drawn 1."


async def test_media_count_toward_the_thread_limit(tmp_path: Path) -> None:
    # The thread holds 600 KB: the chart (400 KiB) fits, the report after it does not.
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=600_000)
    wrapper, _ = _wrapper(store)
    async with asgi_client(app_with(wrapper)) as client:
        events = await _run(client, _request("1.0"))
        _, big, _, pdf = _result(events)
        assert big["source"]["type"] == "url"
        assert pdf["type"] == "text" and "no room left" in pdf["text"]
        assert [e.type for e in events][-1] == "RUN_FINISHED"


async def test_kept_media_count_when_the_next_turn_is_measured(tmp_path: Path) -> None:
    # The chart kept beside the thread fits the thread's limit with a little room to spare, so
    # the first turn is stored whole; the thread (document and chart) is then over the limit,
    # though its document alone is about 1 KB: the next turn is refused.
    chart = 409_612  # bytes the stored chart counts for (metadata.openai.bytes)
    store = SQLiteThreadStore(tmp_path / "threads.db", max_bytes=chart + 1_000)
    wrapper, model = _wrapper(store)
    async with asgi_client(app_with(wrapper)) as client:
        first = await _run(client, _request("1.0"))
        assert [e.type for e in first][-1] == "RUN_FINISHED"
        assert _result(first)[1]["metadata"]["openai"]["bytes"] == chart
        document = await store.load("artist/alice:thread-media")
        assert document is not None and len(document.encode()) < 2_000
        more = UserMessage(id="user-2", content="Once more")
        second = await _run(client, _request("1.0", more, run_id="run-2"))
    (error,) = [e for e in second if e.type == "RUN_ERROR"]
    assert error.code == "THREAD_FULL"
    assert len(model.calls) == 2  # the first turn's two model calls; none for the refused one


async def test_inline_media_count_toward_the_request_limit(tmp_path: Path) -> None:
    wrapper, _ = _wrapper(None)
    app = app_with(wrapper, max_request_bytes=256 * 1024)
    image = {"type": "image", "source": {"type": "data", "value": BIG_B64, "mimeType": "image/png"}}
    message = {"id": "user-1", "role": "user", "content": [image]}
    body = _request("1.0").model_dump(mode="json", by_alias=True, exclude_none=True)
    async with asgi_client(app) as client:
        response = await client.post("/agent", json={**body, "messages": [message]})
    assert response.status_code == 413


@pytest.mark.parametrize("limit", [None, 10**9])
async def test_the_limit_can_be_lifted(limit: int | None, tmp_path: Path) -> None:
    model = ScriptedResponsesModel(decide)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    store = SQLiteThreadStore(tmp_path / "threads.db", inline_media_bytes=limit)
    wrapper = OpenAIAgentsAgent(
        Agent(name="artist", tools=[draw]),
        run_config=config,
        threads=store,
        thread_key=single_user_threads,
    )
    async with asgi_client(app_with(wrapper)) as client:
        _, big, _, _ = _result(await _run(client, _request("1.0")))
    assert big["source"] == {"type": "data", "value": BIG_B64, "mimeType": "image/png"}
