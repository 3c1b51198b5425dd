"""Drift: every discriminator the engine dispatches on exists in the installed SDKs, and every
discriminator the installed SDKs can send is decided (handled or deliberately ignored).

A new Responses stream event, run item or stream event name in a future openai /
openai-agents release fails here until the engine decides what to do with it.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, get_args

import pytest
from agents import Agent
from agents.items import MessageOutputItem, RunItem
from agents.stream_events import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    StreamEvent,
)
from openai.types.responses import (
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
)

from ag_ui_openai_agents.outbound.engine import (
    _ITEM_ADDED,
    _ITEM_DONE,
    IGNORED_RAW_EVENT_TYPES,
    IGNORED_RUN_ITEM_TYPES,
    RAW_EVENT_HANDLERS,
    RUN_ITEM_HANDLERS,
    OpenAIToAGUITranslator,
)
from ag_ui_openai_agents.protocol import HOSTED_CALL_TYPES, PROVIDER_RUN_CALL_TYPES
from support.runs import request


def _members(union: Any) -> list[Any]:
    """The classes of a (possibly ``Annotated``) union."""
    args = get_args(union)
    if args and typing.get_origin(union) is typing.Annotated:
        args = get_args(args[0])
    return list(args)


def _pydantic_type(cls: Any) -> str:
    (value,) = get_args(cls.model_fields["type"].annotation)
    return str(value)


def _dataclass_type(cls: Any) -> str:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    return str(fields["type"].default)


RESPONSE_EVENT_TYPES = sorted(_pydantic_type(cls) for cls in _members(ResponseStreamEvent))
OUTPUT_ITEM_TYPES = sorted(_pydantic_type(cls) for cls in _members(ResponseOutputItem))
RUN_ITEM_TYPES = sorted(_dataclass_type(cls) for cls in _members(RunItem))
STREAM_EVENT_TYPES = sorted(_dataclass_type(cls) for cls in _members(StreamEvent))
RUN_ITEM_EVENT_NAMES = sorted(get_args(typing.get_type_hints(RunItemStreamEvent)["name"]))

# Which run item each RunItemStreamEvent name carries (agents/run_internal/streaming.py).
RUN_ITEM_EVENT_ITEMS: dict[str, str] = {
    "message_output_created": "message_output_item",
    "handoff_requested": "handoff_call_item",
    "handoff_occured": "handoff_output_item",
    "tool_called": "tool_call_item",
    "tool_search_called": "tool_search_call_item",
    "tool_search_output_created": "tool_search_output_item",
    "tool_output": "tool_call_output_item",
    "reasoning_item_created": "reasoning_item",
    "mcp_approval_requested": "mcp_approval_request_item",
    "mcp_approval_response": "mcp_approval_response_item",
    "mcp_list_tools": "mcp_list_tools_item",
}

# Output items that never open a tool call or message window of their own: results of calls,
# MCP bookkeeping (translated from run items) and context items.
NOT_WINDOWED_OUTPUT_ITEMS: frozenset[str] = frozenset(
    {
        "function_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "custom_tool_call_output",
        "program_output",
        "tool_search_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "compaction",
        "additional_tools",
    }
)

# --------------------------------------------------------------------------- Responses events


@pytest.mark.parametrize("kind", sorted({*RAW_EVENT_HANDLERS, *IGNORED_RAW_EVENT_TYPES}))
def test_every_raw_event_type_the_engine_names_exists(kind: str) -> None:
    assert kind in RESPONSE_EVENT_TYPES


@pytest.mark.parametrize("kind", RESPONSE_EVENT_TYPES)
def test_every_installed_responses_event_type_is_handled_or_ignored(kind: str) -> None:
    assert kind in RAW_EVENT_HANDLERS or kind in IGNORED_RAW_EVENT_TYPES


def test_the_installed_unions_were_read() -> None:
    assert len(RESPONSE_EVENT_TYPES) > 40
    assert "response.output_text.delta" in RESPONSE_EVENT_TYPES
    assert {"message", "function_call", "reasoning"} <= set(OUTPUT_ITEM_TYPES)
    assert {"message_output_item", "tool_call_item"} <= set(RUN_ITEM_TYPES)
    assert {"tool_called", "tool_output"} <= set(RUN_ITEM_EVENT_NAMES)


# --------------------------------------------------------------------------- output items


@pytest.mark.parametrize("kind", sorted({*_ITEM_ADDED, *_ITEM_DONE, *HOSTED_CALL_TYPES}))
def test_every_output_item_type_the_engine_names_exists(kind: str) -> None:
    assert kind in OUTPUT_ITEM_TYPES


@pytest.mark.parametrize("kind", OUTPUT_ITEM_TYPES)
def test_every_installed_output_item_type_is_decided(kind: str) -> None:
    windowed = kind in _ITEM_ADDED and kind in _ITEM_DONE
    assert windowed != (kind in NOT_WINDOWED_OUTPUT_ITEMS)


def test_provider_run_calls_are_hosted_calls() -> None:
    assert PROVIDER_RUN_CALL_TYPES <= HOSTED_CALL_TYPES


# --------------------------------------------------------------------------- run items


@pytest.mark.parametrize("kind", sorted({*RUN_ITEM_HANDLERS, *IGNORED_RUN_ITEM_TYPES}))
def test_every_run_item_type_the_engine_names_exists(kind: str) -> None:
    assert kind in RUN_ITEM_TYPES


@pytest.mark.parametrize("kind", RUN_ITEM_TYPES)
def test_every_installed_run_item_type_is_handled_or_ignored(kind: str) -> None:
    assert kind in RUN_ITEM_HANDLERS or kind in IGNORED_RUN_ITEM_TYPES


@pytest.mark.parametrize("name", RUN_ITEM_EVENT_NAMES)
def test_every_run_item_event_name_carries_a_handled_item(name: str) -> None:
    assert name in RUN_ITEM_EVENT_ITEMS, f"new RunItemStreamEvent name {name!r}"
    assert RUN_ITEM_EVENT_ITEMS[name] in RUN_ITEM_TYPES
    assert RUN_ITEM_EVENT_ITEMS[name] in RUN_ITEM_HANDLERS or (
        RUN_ITEM_EVENT_ITEMS[name] in IGNORED_RUN_ITEM_TYPES
    )


# --------------------------------------------------------------------------- stream events


def _one_event_of_each_kind() -> dict[str, StreamEvent]:
    agent: Agent[Any] = Agent(name="writer")
    message = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text="Hi", annotations=[])],
    )
    delta = ResponseTextDeltaEvent(
        type="response.output_text.delta",
        item_id="msg_2",
        output_index=0,
        content_index=0,
        delta="Hi",
        logprobs=[],
        sequence_number=1,
    )
    return {
        "agent_updated_stream_event": AgentUpdatedStreamEvent(new_agent=agent),
        "raw_response_event": RawResponsesStreamEvent(data=delta),
        "run_item_stream_event": RunItemStreamEvent(
            name="message_output_created", item=MessageOutputItem(agent=agent, raw_item=message)
        ),
    }


def test_the_engine_translates_every_sdk_stream_event_type() -> None:
    engine = OpenAIToAGUITranslator(request())
    events = _one_event_of_each_kind()

    assert sorted(events) == STREAM_EVENT_TYPES
    for kind, event in events.items():
        assert engine.translate(event), f"{kind} produced nothing"
    assert STREAM_EVENT_TYPES == [
        "agent_updated_stream_event",
        "raw_response_event",
        "run_item_stream_event",
    ]
