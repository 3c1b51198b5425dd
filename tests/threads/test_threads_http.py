"""Threads behind the FastAPI shortcut: the application's ``thread_key`` scopes thread ids by
the authenticated user (the HTTP request reaches it), the capabilities route says the state
persists, and a client that sends only its new messages gets the whole conversation back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunAgentInput, UserMessage
from fastapi import HTTPException, Request
from fastapi.params import Depends

from ag_ui_openai_agents.threads import SQLiteThreadStore
from ag_ui_openai_agents.threads.runs import THREAD_KEY_CODE
from support.http import app_with, asgi_client
from support.invariants import check_stream, parse_sse
from support.threads import PROTOCOLS, shop

BOTH_KINDS = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

THREAD = "support-chat"  # a guessable id: the key hook makes it safe


def user_of(request: Request) -> str:
    """The authenticated user (here: a header the test's own gateway would have checked)."""
    user = request.headers.get("x-user")
    if not user:
        raise HTTPException(status_code=401)
    return user


def thread_key(thread_id: str, request: Any) -> str:
    return f"{user_of(request)}:{thread_id}"


def body(version: str | None, run_id: str, *messages: Any) -> dict[str, Any]:
    return RunAgentInput(
        thread_id=THREAD,
        run_id=run_id,
        protocol_version=version,
        messages=list(messages),
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    ).model_dump(mode="json", by_alias=True, exclude_none=True)


async def post(client: Any, user: str, payload: dict[str, Any], history: list[Any]) -> Any:
    response = await client.post("/agent", json=payload, headers={"x-user": user})
    assert response.status_code == 200, response.text
    events: list[BaseEvent] = parse_sse(response.content)
    run_input = RunAgentInput.model_validate(payload).model_copy(update={"messages": history})
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    (snapshot,) = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
    return snapshot.messages


@BOTH_KINDS
async def test_the_key_hook_keeps_each_users_threads_apart(
    tmp_path: Path, version: str | None
) -> None:
    s = shop()
    wrapper = s.wrapper(SQLiteThreadStore(tmp_path / "threads.db"), thread_key=thread_key)
    app = app_with(wrapper, dependencies=[Depends(user_of)])
    alice_hello = UserMessage(id="user-1", content="I am Alice")
    async with asgi_client(app) as client:
        alice = await post(client, "alice", body(version, "r1", alice_hello), [alice_hello])
        # Bob sends Alice's thread id: he gets a thread of his own, empty.
        bob = await post(client, "bob", body(version, "r2"), [])
        again = await post(client, "alice", body(version, "r3"), alice)
        anonymous = await client.post("/agent", json=body(version, "r4"))

    assert bob == []
    assert again == alice and len(alice) == 2
    assert anonymous.status_code == 401


async def test_the_capabilities_route_says_the_state_persists(tmp_path: Path) -> None:
    s = shop()
    app = app_with(s.wrapper(SQLiteThreadStore(tmp_path / "threads.db")))
    async with asgi_client(app) as client:
        document = (await client.get("/agent/capabilities")).json()

    assert document["state"]["persistentState"] is True


@BOTH_KINDS
async def test_a_failing_key_hook_opens_no_thread(tmp_path: Path, version: str | None) -> None:
    s = shop()
    wrapper = s.wrapper(SQLiteThreadStore(tmp_path / "threads.db"), thread_key=thread_key)
    payload = RunAgentInput.model_validate(body(version, "r1", UserMessage(id="u", content="hi")))
    events: list[BaseEvent] = []

    with pytest.raises(AttributeError):  # no HTTP request: the hook cannot read a user
        async for event in wrapper.run_streamed(payload):
            events.append(event)

    check_stream(events, run_input=payload, pre_1_0=version is None)
    assert [e.type.value for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert getattr(events[-1], "code", None) == THREAD_KEY_CODE
    assert s.model.call_count == 0
