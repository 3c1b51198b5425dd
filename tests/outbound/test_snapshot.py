"""MESSAGES_SNAPSHOT: the request's history, then what this run streamed, with the same ids."""

from __future__ import annotations

from typing import Any

import jsonpatch
from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    BaseEvent,
    DeveloperMessage,
    FunctionCall,
    Message,
    MessagesSnapshotEvent,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents.outbound.snapshot import build_messages_snapshot, produced_messages
from support.runs import request, run_agui, user
from support.scripted import Call, Hosted, Reasoning, Text, Turn

set_tracing_disabled(True)


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"Facts about {topic}"


def history() -> list[Message]:
    """A conversation with every kind of message the client may send back."""
    return [
        SystemMessage(id="sys-1", role="system", content="Be brief."),
        DeveloperMessage(id="dev-1", role="developer", content="Use tools."),
        user("What is AG-UI?", id="user-1"),
        ReasoningMessage(id="rs_old", role="reasoning", content="Think", encrypted_value="gAAAA"),
        AssistantMessage(
            id="asst-1",
            role="assistant",
            content="Let me check.",
            tool_calls=[
                ToolCall(
                    id="call_old",
                    type="function",
                    function=FunctionCall(name="lookup", arguments='{"topic":"ag-ui"}'),
                )
            ],
        ),
        ToolMessage(id="call_old-result", role="tool", tool_call_id="call_old", content="Facts"),
        AssistantMessage(id="asst-2", role="assistant", content="It is a protocol."),
        user("Tell me more.", id="user-2"),
    ]


def client_messages(events: list[BaseEvent]) -> list[dict[str, Any]]:
    """The messages a client builds from the stream, as the AG-UI client applies events."""
    messages: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event.type.value
        data = event.model_dump()
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            role = "assistant" if kind == "TEXT_MESSAGE_START" else "reasoning"
            message = {"id": data["message_id"], "role": role, "content": ""}
            messages.append(message)
            by_id[message["id"]] = message
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            by_id[data["message_id"]]["content"] += data["delta"]
        elif kind == "TOOL_CALL_START":
            _start_call(messages, by_id, calls, data)
        elif kind == "TOOL_CALL_ARGS":
            calls[data["tool_call_id"]]["arguments"] += data["delta"]
        elif kind == "TOOL_CALL_RESULT":
            message = {
                "id": data["message_id"],
                "role": "tool",
                "tool_call_id": data["tool_call_id"],
                "content": data["content"],
            }
            messages.append(message)
        elif kind == "REASONING_ENCRYPTED_VALUE":
            by_id[data["entity_id"]]["encrypted_value"] = data["encrypted_value"]
        elif kind in ("ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"):
            _activity(messages, by_id, event.model_dump(mode="json", by_alias=True))
    return messages


def _activity(
    messages: list[dict[str, Any]], by_id: dict[str, dict[str, Any]], data: dict[str, Any]
) -> None:
    """An activity message: pushed by its snapshot, patched by each delta."""
    message = by_id.get(data["messageId"])
    if message is None:
        message = {"id": data["messageId"], "role": "activity", "content": {}}
        message["activity_type"] = data["activityType"]
        messages.append(message)
        by_id[message["id"]] = message
    if data["type"] == "ACTIVITY_SNAPSHOT":
        message["content"] = data["content"]
    else:
        message["content"] = jsonpatch.apply_patch(message["content"], data["patch"])


def _start_call(
    messages: list[dict[str, Any]],
    by_id: dict[str, dict[str, Any]],
    calls: dict[str, dict[str, Any]],
    data: dict[str, Any],
) -> None:
    """TOOL_CALL_START joins the last message when it is the parent, else opens a new one."""
    parent = data.get("parent_message_id")
    if parent and messages and messages[-1]["id"] == parent:
        target = messages[-1]
    else:
        target = {"id": parent or data["tool_call_id"], "role": "assistant", "content": ""}
        messages.append(target)
        by_id[target["id"]] = target
    call = {"id": data["tool_call_id"], "name": data["tool_call_name"], "arguments": ""}
    target.setdefault("tool_calls", []).append(call)
    calls[call["id"]] = call


def plain(message: Message) -> dict[str, Any]:
    """A snapshot message in the shape :func:`client_messages` builds."""
    out: dict[str, Any] = {"id": message.id, "role": message.role}
    if isinstance(message, ActivityMessage):
        out.update(content=message.content, activity_type=message.activity_type)
        return out
    if isinstance(message, ToolMessage):
        out.update(tool_call_id=message.tool_call_id, content=message.content)
        return out
    out["content"] = message.content or ""
    if isinstance(message, AssistantMessage) and message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in message.tool_calls
        ]
    if isinstance(message, ReasoningMessage) and message.encrypted_value is not None:
        out["encrypted_value"] = message.encrypted_value
    return out


async def test_snapshot_restates_the_input_history_untouched_then_the_run() -> None:
    given = history()
    run = await run_agui(
        Agent(name="assistant", tools=[lookup]),
        request(*given),
        [Turn([Text("More facts:", id="msg_more")])],
    )

    snapshot = run.snapshot
    assert [m.model_dump() for m in snapshot[: len(given)]] == [m.model_dump() for m in given]
    assert [(m.id, m.role, m.content) for m in snapshot[len(given) :]] == [
        ("msg_more", "assistant", "More facts:")
    ]


async def test_snapshot_matches_what_the_client_built_from_the_stream() -> None:
    given = history()
    run = await run_agui(
        Agent(name="assistant", tools=[lookup]),
        request(*given),
        [
            Turn(
                [
                    Reasoning(summary=["Plan", "Detail"], encrypted="gAAAA-1"),
                    Text("Looking up two things."),
                    Call("lookup", {"topic": "events"}),
                    Call("lookup", {"topic": "state"}),
                    Hosted("web_search_call", query="ag-ui"),
                ]
            ),
            Turn([Reasoning(encrypted="gAAAA-2"), Call("lookup", {"topic": "tools"})]),
            Turn([Text("Here is what I found.")]),
        ],
    )

    streamed = client_messages(run.events)
    assert [plain(m) for m in run.snapshot[len(given) :]] == streamed
    assert [m["role"] for m in streamed] == [
        "reasoning",
        "reasoning",
        "assistant",
        "activity",  # the web search's progress, pushed when it started
        "tool",
        "tool",
        "tool",
        "reasoning",
        "assistant",
        "tool",
        "assistant",
    ]


async def test_snapshot_with_placeholder_ids_uses_the_streamed_ids() -> None:
    run = await run_agui(
        Agent(name="assistant", tools=[lookup]),
        request(),
        [
            Turn(
                [
                    Reasoning(summary=["Plan"], encrypted="gAAAA"),
                    Text("Checking"),
                    Call("lookup", {"topic": "x"}),
                ],
                fake_ids=True,
            ),
            Turn([Text("Done")], fake_ids=True),
        ],
    )

    assert [plain(m) for m in run.snapshot[1:]] == client_messages(run.events)
    assert all("__fake_id__" not in m.id for m in run.snapshot)


async def test_reasoning_sits_before_the_text_and_calls_that_followed_it() -> None:
    run = await run_agui(
        Agent(name="assistant", tools=[lookup]),
        request(),
        [
            Turn(
                [
                    Reasoning(summary=["first plan"], encrypted="gAAAA-a", id="rs_a"),
                    Text("Let me look.", id="msg_a"),
                    Call("lookup", {"topic": "a"}),
                ]
            ),
            Turn(
                [
                    Reasoning(summary=["second plan", "more"], encrypted="gAAAA-b", id="rs_b"),
                    Call("lookup", {"topic": "b"}),
                ]
            ),
            Turn([Text("Done.", id="msg_done")]),
        ],
    )

    layout = [(m.role, m.id, getattr(m, "encrypted_value", None)) for m in run.snapshot[1:]]
    second_group = layout[5][1]
    assert second_group.startswith("msg_")
    assert layout == [
        ("reasoning", "rs_a", "gAAAA-a"),
        ("assistant", "msg_a", None),
        ("tool", "call_1-result", None),
        ("reasoning", "rs_b", "gAAAA-b"),
        ("reasoning", "rs_b-1", None),
        ("assistant", second_group, None),
        ("tool", "call_2-result", None),
        ("assistant", "msg_done", None),
    ]


async def test_snapshot_can_be_switched_off() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Text("Hi")])],
        emit_messages_snapshot=False,
    )

    assert "MESSAGES_SNAPSHOT" not in run.types
    assert run.types[-2:] == ["STEP_FINISHED", "RUN_FINISHED"]


def test_snapshot_of_a_run_that_produced_nothing_is_the_history() -> None:
    given = history()

    event = build_messages_snapshot(given, [])

    assert isinstance(event, MessagesSnapshotEvent)
    assert event.messages == given
    assert produced_messages([]) == []
