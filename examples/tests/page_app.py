"""The example server as the browser tests serve it: every example, plus four test-only ones.

- ``shopping_list``: a real agent on the demo model whose tool changes the shared state (no
  shipped example does), so the page's state view has something to show;
- ``failing_model``: a real agent whose model fails, so the run ends with RUN_ERROR;
- ``subagent_stream``: a fixed, checked AG-UI stream with nested subagents (SUBAGENT_STARTED,
  work tagged with ``subagentRunId``, SUBAGENT_FINISHED and SUBAGENT_ERROR) and a state
  changed by STATE_SNAPSHOT then STATE_DELTA, sent with keepalive comments, CRLF line ends
  and events split in two: for the page's subagent panels, state view and stream reader;
- ``two_approvals``: a fixed run pausing on two approvals at once, whose interrupt ids look
  like signed ones, and the resumed run that reports the entries it received.

They are added to ``EXAMPLES`` so that ``/health`` lists them and the page offers them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Interrupt,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from ag_ui.encoder import EventEncoder
from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint, shared_state
from agents import Agent, function_tool
from agents.models.interface import Model
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from support.invariants import check_stream

from agents_examples import EXAMPLES, Example, ExampleSettings
from agents_examples.settings import browser_thread_key
from server import create_app


@function_tool
def add_to_shopping_list(item: str) -> str:
    """Add an item to the shopping list shown on the page.

    Args:
        item: The item to add, for example "oat milk".
    """
    state = shared_state()
    state.update(items=[*state.value.get("items", []), item])
    return f"Added {item}."


def _shopping_agent(settings: ExampleSettings) -> Agent[Any]:
    return Agent(
        name="Shopping assistant",
        instructions="Add what the user asks for to the shopping list.",
        tools=[add_to_shopping_list],
        model=settings.model,
    )


def _mount_shopping(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    wrapped = OpenAIAgentsAgent(
        _shopping_agent(settings),
        run_config=settings.run_config,
        threads=settings.threads,
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)


class BrokenModel(Model):
    """A model whose every call fails, as an unreachable provider would."""

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("model provider unreachable")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise ConnectionError("model provider unreachable")
        yield  # pragma: no cover - makes this an async generator


def _failing_agent(settings: ExampleSettings) -> Agent[Any]:
    return Agent(name="Unlucky assistant", instructions="Answer.", model=BrokenModel())


def _mount_failing(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    add_openai_agents_fastapi_endpoint(app, OpenAIAgentsAgent(_failing_agent(settings)), path)


def _text(message_id: str, text: str, subagent: str | None = None) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant", subagent_run_id=subagent),
        TextMessageContentEvent(message_id=message_id, delta=text, subagent_run_id=subagent),
        TextMessageEndEvent(message_id=message_id, subagent_run_id=subagent),
    ]


def _call(
    call_id: str, name: str, args: str, parent: str, subagent: str | None = None
) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(
            tool_call_id=call_id,
            tool_call_name=name,
            parent_message_id=parent,
            subagent_run_id=subagent,
        ),
        ToolCallArgsEvent(tool_call_id=call_id, delta=args, subagent_run_id=subagent),
        ToolCallEndEvent(tool_call_id=call_id, subagent_run_id=subagent),
    ]


def _result(call_id: str, content: str, subagent: str | None = None) -> ToolCallResultEvent:
    return ToolCallResultEvent(
        message_id=f"{call_id}-result",
        tool_call_id=call_id,
        content=content,
        role="tool",
        subagent_run_id=subagent,
    )


RESEARCH = "Solar panels turn sunlight into electricity."
FACT_CHECK = "Checked: the claim holds."


def subagent_events(body: RunAgentInput) -> list[BaseEvent]:
    """A manager calls a researcher (which calls a fact checker) and a writer that fails."""
    args = '{"input": "solar panels"}'
    work: list[BaseEvent] = [
        *_call("call_research", "research_topic", args, "msg_manager"),
        SubagentStartedEvent(
            subagent_run_id="sub-research",
            name="Researcher",
            description="Research a topic and return key facts.",
            parent_tool_call_id="call_research",
            parent_message_id="msg_manager",
        ),
        StateSnapshotEvent(snapshot={"stage": "research", "done": []}),
        *_text("msg_research", RESEARCH, "sub-research"),
        *_call("call_check", "check_facts", args, "msg_research_call", "sub-research"),
        SubagentStartedEvent(
            subagent_run_id="sub-check",
            name="Fact checker",
            description="Check one claim.",
            parent_tool_call_id="call_check",
            parent_subagent_run_id="sub-research",
            parent_message_id="msg_research_call",
        ),
        *_text("msg_check", FACT_CHECK, "sub-check"),
        SubagentFinishedEvent(subagent_run_id="sub-check"),
        _result("call_check", FACT_CHECK, "sub-research"),
        SubagentFinishedEvent(subagent_run_id="sub-research"),
        _result("call_research", RESEARCH),
        StateDeltaEvent.model_validate(
            {
                "delta": [
                    {"op": "replace", "path": "/stage", "value": "write"},
                    {"op": "add", "path": "/done/-", "value": "research"},
                ]
            }
        ),
        *_call("call_write", "write_prose", args, "msg_manager_2"),
        SubagentStartedEvent(
            subagent_run_id="sub-write",
            name="Writer",
            description="Write prose from notes.",
            parent_tool_call_id="call_write",
            parent_message_id="msg_manager_2",
        ),
        SubagentErrorEvent(subagent_run_id="sub-write", message="The writer could not finish."),
        _result("call_write", "An error occurred while running the tool."),
        *_text("msg_answer", "The research is in; the draft failed."),
    ]
    return [
        RunStartedEvent(
            thread_id=body.thread_id, run_id=body.run_id, protocol_version=PROTOCOL_VERSION
        ),
        *work,
        MessagesSnapshotEvent(messages=[*body.messages, *_snapshot_messages()]),
        RunFinishedEvent(thread_id=body.thread_id, run_id=body.run_id),
    ]


def _assistant_call(message_id: str, call_id: str, name: str, sub: str | None) -> AssistantMessage:
    call = ToolCall(
        id=call_id, function=FunctionCall(name=name, arguments='{"input": "solar panels"}')
    )
    return AssistantMessage(id=message_id, tool_calls=[call], subagent_run_id=sub)


def _snapshot_messages() -> list[Any]:
    def tool(call_id: str, content: str, sub: str | None = None) -> ToolMessage:
        return ToolMessage(
            id=f"{call_id}-result", tool_call_id=call_id, content=content, subagent_run_id=sub
        )

    return [
        _assistant_call("msg_manager", "call_research", "research_topic", None),
        AssistantMessage(id="msg_research", content=RESEARCH, subagent_run_id="sub-research"),
        _assistant_call("msg_research_call", "call_check", "check_facts", "sub-research"),
        AssistantMessage(id="msg_check", content=FACT_CHECK, subagent_run_id="sub-check"),
        tool("call_check", FACT_CHECK, "sub-research"),
        tool("call_research", RESEARCH),
        _assistant_call("msg_manager_2", "call_write", "write_prose", None),
        tool("call_write", "An error occurred while running the tool."),
        AssistantMessage(id="msg_answer", content="The research is in; the draft failed."),
    ]


def _mount_subagent_stream(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    @app.post(path)
    async def replay(body: RunAgentInput) -> StreamingResponse:
        events = subagent_events(body)
        check_stream(events, run_input=body)  # the fixed stream is itself a valid AG-UI run
        encoder = EventEncoder()

        async def stream() -> AsyncIterator[str]:
            # Keepalive comments between events, CRLF line ends, and events cut across
            # chunks: what a proxy or a slow run may deliver, which the page must read.
            for event in events:
                yield ": keepalive\r\n\r\n"
                encoded = encoder.encode(event).replace("\n", "\r\n")
                middle = len(encoded) // 2
                yield encoded[:middle]
                yield encoded[middle:]

        return StreamingResponse(stream(), media_type=encoder.get_content_type())


# Interrupt ids as a signing server may send them: the page must echo them byte for byte.
APPROVAL_IDS = {"call_a": "call_a.v1.Zm9v+/=", "call_b": "call_b.v1.YmFy-_~"}


def _refund_call(call_id: str, order: str) -> list[BaseEvent]:
    args = f'{{"order_id": "{order}", "amount": 5}}'
    return _call(call_id, "issue_refund", args, f"msg_{call_id}")


def two_approvals_events(body: RunAgentInput) -> list[BaseEvent]:
    """Two refunds paused at once; the resumed run reports each decision as the tool's result."""
    started = RunStartedEvent(
        thread_id=body.thread_id, run_id=body.run_id, protocol_version=PROTOCOL_VERSION
    )
    work, messages, outcome = _decided(body) if body.resume else _paused()
    return [
        started,
        *work,
        MessagesSnapshotEvent(messages=[*body.messages, *messages]),
        RunFinishedEvent(thread_id=body.thread_id, run_id=body.run_id, outcome=outcome),
    ]


def _paused() -> tuple[list[BaseEvent], list[Any], RunFinishedInterruptOutcome]:
    orders = {"call_a": "A-1", "call_b": "B-2"}
    work = [event for call, order in orders.items() for event in _refund_call(call, order)]
    calls = [
        AssistantMessage(
            id=f"msg_{call}",
            tool_calls=[ToolCall(id=call, function=FunctionCall(name="issue_refund", arguments=a))],
        )
        for call, a in ((c, f'{{"order_id": "{o}", "amount": 5}}') for c, o in orders.items())
    ]
    interrupts = [
        Interrupt(id=APPROVAL_IDS[call], reason="tool_approval", tool_call_id=call)
        for call in orders
    ]
    return work, calls, RunFinishedInterruptOutcome(type="interrupt", interrupts=interrupts)


def _decided(body: RunAgentInput) -> tuple[list[BaseEvent], list[Any], None]:
    by_id = {entry.interrupt_id: entry for entry in body.resume or []}
    results = [
        _result(call, f"decision: {_entry_text(by_id.get(interrupt_id))}")
        for call, interrupt_id in APPROVAL_IDS.items()
    ]
    tools = [
        ToolMessage(id=r.message_id, tool_call_id=r.tool_call_id, content=r.content)
        for r in results
    ]
    answer = "Both refunds are decided."
    messages = [*tools, AssistantMessage(id="msg_decided", content=answer)]
    return [*results, *_text("msg_decided", answer)], messages, None


def _entry_text(entry: Any) -> str:
    return "missing" if entry is None else json.dumps(entry.model_dump(mode="json"))


def _mount_two_approvals(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    @app.post(path)
    async def replay(body: RunAgentInput) -> StreamingResponse:
        events = two_approvals_events(body)
        check_stream(events, run_input=body)
        encoder = EventEncoder()

        async def stream() -> AsyncIterator[str]:
            for event in events:
                yield encoder.encode(event)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())


TEST_EXAMPLES = {
    "shopping_list": Example(
        "shopping_list",
        "Test only: a tool that changes the shared state.",
        _shopping_agent,
        _mount_shopping,
        keeps_threads=True,
    ),
    "failing_model": Example(
        "failing_model", "Test only: a model that fails.", _failing_agent, _mount_failing
    ),
    "subagent_stream": Example(
        "subagent_stream",
        "Test only: a fixed stream with nested subagents.",
        _shopping_agent,
        _mount_subagent_stream,
    ),
    "two_approvals": Example(
        "two_approvals",
        "Test only: two refunds paused at once, with signed-looking interrupt ids.",
        _shopping_agent,
        _mount_two_approvals,
    ),
}


@contextmanager
def page_test_app(settings: ExampleSettings | None = None) -> Iterator[FastAPI]:
    """The example app on the demo model (or ``settings``), with the test-only examples listed
    and mounted."""
    with pytest.MonkeyPatch.context() as patch:
        for name, example in TEST_EXAMPLES.items():
            patch.setitem(EXAMPLES, name, example)
        yield create_app(settings or ExampleSettings.offline_demo())
