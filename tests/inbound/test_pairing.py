"""Safe degradation: whatever a history lost or gained, the request keeps the API's rules."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from support.responses_input import KnownOutputs, check_input

PAIRING_LOGGER = "ag_ui_openai_agents.inbound.pairing"


def meta(**layout: Any) -> dict[str, Any]:
    return {"openai": {"v": 1, **layout}}


def reasoning(item_id: str, next_id: str, encrypted: str | None = "gA") -> ReasoningMessage:
    return ReasoningMessage(
        id=item_id,
        content="thinking",
        encrypted_value=encrypted,
        metadata=meta(id=item_id, part="summary", next=next_id),
    )


def answer(item_id: str, after: str | None, text: str = "Hello") -> AssistantMessage:
    layout = {"id": item_id, "phase": "final_answer"}
    if after is not None:
        layout["after"] = after
    return AssistantMessage(id=item_id, content=text, metadata=meta(**layout))


def fc_call(call_id: str, item_id: str, after: str | None = None) -> ToolCall:
    layout = {"id": item_id} if after is None else {"id": item_id, "after": after}
    return ToolCall(
        id=call_id, function=FunctionCall(name="f", arguments="{}"), metadata=meta(**layout)
    )


USER = UserMessage(id="u-1", content="Hi")


def translate(messages: list[Message]) -> list[dict[str, Any]]:
    items = [dict(item) for item in AGUIToOpenAITranslator().translate_messages(messages)]
    check_input(items, KnownOutputs())
    return items


def kinds(items: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(item.get("type", item.get("role", "")), item.get("id")) for item in items]


def test_a_whole_pair_goes_back_with_ids() -> None:
    items = translate([USER, reasoning("rs_1", "msg_1"), answer("msg_1", "rs_1")])
    assert kinds(items) == [("user", None), ("reasoning", "rs_1"), ("message", "msg_1")]


def test_a_message_whose_reasoning_was_removed_goes_without_its_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger=PAIRING_LOGGER)
    items = translate([USER, answer("msg_1", "rs_1")])
    assert items[1] == {"role": "assistant", "content": "Hello", "phase": "final_answer"}
    assert "msg_1" in caplog.text


def test_reasoning_whose_following_item_was_removed_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger=PAIRING_LOGGER)
    items = translate([USER, reasoning("rs_1", "msg_1"), USER])
    assert kinds(items) == [("user", None), ("user", None)]
    assert "Dropping reasoning rs_1" in caplog.text


def test_reasoning_without_encrypted_value_is_dropped_and_its_pair_loses_the_id() -> None:
    items = translate([USER, reasoning("rs_1", "msg_1", encrypted=None), answer("msg_1", "rs_1")])
    assert kinds(items) == [("user", None), ("assistant", None)]


def test_reasoning_followed_by_another_item_than_its_own_is_dropped() -> None:
    items = translate([USER, reasoning("rs_1", "msg_1"), answer("msg_2", None)])
    assert kinds(items) == [("user", None), ("message", "msg_2")]


def test_ids_from_elsewhere_are_never_sent() -> None:
    foreign = AssistantMessage(id="msg_from_elsewhere", content="Hi")
    copied = answer("msg_1", None)
    items = translate([USER, foreign, copied, answer("msg_1", None, text="Again")])
    assert kinds(items) == [
        ("user", None),
        ("assistant", None),
        ("message", "msg_1"),
        ("assistant", None),
    ]


def test_a_function_call_keeps_its_item_id_with_its_reasoning_and_loses_it_alone() -> None:
    call = AssistantMessage(id="a-1", tool_calls=[fc_call("call_1", "fc_1", after="rs_1")])
    result = ToolMessage(id="t-1", tool_call_id="call_1", content="ok")
    paired = translate([USER, reasoning("rs_1", "fc_1"), call, result])
    assert kinds(paired) == [
        ("user", None),
        ("reasoning", "rs_1"),
        ("function_call", "fc_1"),
        ("function_call_output", None),
    ]
    alone = translate([USER, call, result])
    assert kinds(alone) == [("user", None), ("function_call", None), ("function_call_output", None)]
    assert alone[1]["call_id"] == "call_1"


def test_unanswered_calls_and_orphan_outputs_are_dropped() -> None:
    call = AssistantMessage(id="a-1", content="Let me see", tool_calls=[fc_call("call_1", "fc_1")])
    orphan = ToolMessage(id="t-2", tool_call_id="call_2", content="ok")
    items = translate([USER, call, orphan, UserMessage(id="u-2", content="Never mind")])
    assert kinds(items) == [("user", None), ("assistant", None), ("user", None)]


def test_a_hosted_call_without_its_artefact_is_not_replayed_nor_its_result() -> None:
    hosted = AssistantMessage(
        id="a-1",
        tool_calls=[
            ToolCall(id="ws_1", function=FunctionCall(name="web_search_call", arguments="{}"))
        ],
    )
    result = ToolMessage(id="ws_1-result", tool_call_id="ws_1", content='{"status": "completed"}')
    assert kinds(translate([USER, hosted, result])) == [("user", None)]


def test_a_chain_of_reasoning_goes_whole_or_not_at_all() -> None:
    chain = [reasoning("rs_1", "rs_2"), ReasoningMessage(
        id="rs_2", content="more", encrypted_value="gB",
        metadata=meta(id="rs_2", part="summary", next="msg_1", after="rs_1"),
    )]  # fmt: skip
    whole = translate([USER, *chain, answer("msg_1", "rs_2")])
    assert kinds(whole) == [
        ("user", None),
        ("reasoning", "rs_1"),
        ("reasoning", "rs_2"),
        ("message", "msg_1"),
    ]
    broken = translate([USER, chain[1], answer("msg_1", "rs_2")])
    assert kinds(broken) == [("user", None), ("assistant", None)]
