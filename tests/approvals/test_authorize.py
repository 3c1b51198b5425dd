"""The application's last word on approvals: edits only for the tools named editable, and an
``authorize`` hook that sees the HTTP request before any approved call runs.

Through the FastAPI shortcut (real HTTP requests, with and without a thread store) and through
``resume_tool_calls`` (the translator path), on both request kinds; every stream is checked by
the invariant checker and every model request by the Responses input checker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    UserMessage,
)
from agents import set_tracing_disabled

from ag_ui_openai_agents import ApprovalRequest, Approvals, resume_tool_calls
from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.verify import APPROVAL_DENIED_CODE
from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.http import app_with, asgi_client
from support.invariants import check_stream, parse_sse
from support.runs import RunEvents
from support.threads import PROTOCOLS, TOOL_NAME, Shop, shop

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])


@dataclass
class Posted(RunEvents):
    events: list[BaseEvent]


@dataclass
class HttpChat:
    """One browser tab on one thread, over real HTTP requests to the shortcut's route."""

    client: Any
    version: str | None
    shown: list[Any] = field(default_factory=list)
    runs: int = 0

    async def post(
        self,
        messages: list[Any],
        *,
        resume: list[ResumeEntry] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Posted:
        self.runs += 1
        run_input = RunAgentInput(
            thread_id="thread-authorize",
            run_id=f"run-{self.runs}",
            protocol_version=self.version,
            messages=messages,
            tools=[],
            context=[],
            state={},
            forwarded_props={},
            resume=resume,
        )
        body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
        response = await self.client.post("/agent", json=body, headers=headers or {})
        assert response.status_code == 200, response.text
        events = parse_sse(response.content)
        shown = {m.id for m in self.shown}
        history = [*self.shown, *(m for m in messages if m.id not in shown)]
        trusted = run_input.model_copy(update={"messages": history})
        check_stream(events, run_input=trusted, pre_1_0=self.version is None)
        snapshots = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
        if snapshots:
            self.shown = list(snapshots[-1].messages)
        return Posted(events)


def approve(interrupt_id: str, **payload: Any) -> list[ResumeEntry]:
    decision = {"approved": True, **payload}
    return [ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload=decision)]


def by_role(seen: list[ApprovalRequest]) -> Any:
    """An ``authorize`` hook: managers may approve refunds; it records what it was shown."""

    def authorize(req: ApprovalRequest) -> bool:
        seen.append(req)
        return bool(req.request.headers.get("x-role") == "manager")

    return authorize


def wrapper(s: Shop, tmp_path: Path, stored: bool, approvals: Approvals) -> Any:
    store = SQLiteThreadStore(tmp_path / "threads.db") if stored else None
    return s.wrapper(store, approvals=approvals)


@pytest.mark.parametrize("stored", [False, True], ids=["stateless", "thread-store"])
async def test_an_authorize_hook_refuses_on_the_requests_headers(
    tmp_path: Path, version: str | None, stored: bool
) -> None:
    s, seen = shop(), []
    approvals = Approvals(unsigned=True, authorize=by_role(seen))
    async with asgi_client(app_with(wrapper(s, tmp_path, stored, approvals))) as client:
        chat = HttpChat(client, version)
        paused = await chat.post([UserMessage(id="user-1", content="Refund order 7")])
        [interrupt] = paused.interrupts
        resend = [] if stored else chat.shown

        refused = await chat.post(resend, resume=approve(interrupt.id), headers={"x-role": "clerk"})
        refunds_after_refusal = list(s.refunds)
        reloaded = await chat.post(resend) if stored else None
        allowed = await chat.post(
            resend, resume=approve(interrupt.id), headers={"x-role": "manager"}
        )

    assert refused.types == ["RUN_STARTED", "RUN_ERROR"]
    assert refused.run_error.code == APPROVAL_DENIED_CODE and refunds_after_refusal == []
    if reloaded is not None:  # the interrupt stayed open and unclaimed
        assert [i.tool_call_id for i in reloaded.interrupts] == [interrupt.tool_call_id]
    assert s.refunds == [(interrupt.tool_call_id, "7")]
    assert allowed.types[-1] == "RUN_FINISHED"
    first = seen[0]
    assert (first.tool_name, json.loads(first.arguments), first.edited) == (
        TOOL_NAME,
        {"order_id": "7"},
        False,
    )
    assert first.run_input.thread_id == "thread-authorize" and len(seen) == 2


async def test_an_async_hook_sees_the_edited_arguments_of_an_editable_tool(
    tmp_path: Path, version: str | None
) -> None:
    s, seen = shop(), []

    async def authorize(req: ApprovalRequest) -> bool:
        seen.append(req)
        return True

    approvals = Approvals(unsigned=True, editable=[TOOL_NAME], authorize=authorize)
    async with asgi_client(app_with(wrapper(s, tmp_path, False, approvals))) as client:
        chat = HttpChat(client, version)
        paused = await chat.post([UserMessage(id="user-1", content="Refund order 7")])
        [interrupt] = paused.interrupts
        edits = {"editedArgs": {"order_id": "8"}}
        await chat.post(chat.shown, resume=approve(interrupt.id, **edits))

    schema = interrupt.response_schema or {}
    assert "editedArgs" in schema["properties"]
    assert [(json.loads(r.arguments), r.edited) for r in seen] == [({"order_id": "8"}, True)]
    assert s.refunds == [(interrupt.tool_call_id, "8")]


@pytest.mark.parametrize("stored", [False, True], ids=["stateless", "thread-store"])
async def test_an_edit_of_a_tool_not_named_editable_runs_nothing(
    tmp_path: Path, version: str | None, stored: bool
) -> None:
    s = shop()
    approvals = Approvals(unsigned=True, editable=["another_tool"])
    async with asgi_client(app_with(wrapper(s, tmp_path, stored, approvals))) as client:
        chat = HttpChat(client, version)
        paused = await chat.post([UserMessage(id="user-1", content="Refund order 7")])
        [interrupt] = paused.interrupts
        resend = [] if stored else chat.shown
        edited = approve(interrupt.id, editedArgs={"order_id": "999"})

        refused = await chat.post(resend, resume=edited)
        refunds_after_refusal = list(s.refunds)
        plain = await chat.post(resend, resume=approve(interrupt.id))

    assert "editedArgs" not in (interrupt.response_schema or {})["properties"]
    assert refused.run_error.code == INVALID_APPROVAL_CODE and refunds_after_refusal == []
    assert "cannot be edited" in refused.run_error.message
    assert s.refunds == [(interrupt.tool_call_id, "7")] and plain.types[-1] == "RUN_FINISHED"


async def test_the_translator_path_passes_no_request(version: str | None) -> None:
    s, seen = shop(), []

    def authorize(req: ApprovalRequest) -> bool:
        seen.append(req)
        return req.request is not None

    wrapped = s.wrapper(None, approvals=Approvals(unsigned=True))
    first = RunAgentInput(
        thread_id="t",
        run_id="r1",
        protocol_version=version,
        messages=[UserMessage(id="user-1", content="Refund order 7")],
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    )
    events = [e async for e in wrapped.run_streamed(first)]
    [snapshot] = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
    [interrupt] = Posted(events).interrupts
    answer = first.model_copy(
        update={"messages": snapshot.messages, "resume": approve(interrupt.id)}
    )

    resumed = await resume_tool_calls(
        s.agent, answer, approvals=Approvals(unsigned=True, authorize=authorize)
    )

    assert resumed.refusal_code == APPROVAL_DENIED_CODE and s.refunds == []
    assert [r.request for r in seen] == [None]
    assert [i.tool_call_id for i in resumed.open_interrupts] == [interrupt.tool_call_id]
