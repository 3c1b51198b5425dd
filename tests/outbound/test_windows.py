"""The window book on its own: the id and window invariants its module docstring states.

The engine tests drive the book through real SDK streams; these pin the bookkeeping rules
directly, so that a change to one of them fails next to the rule rather than deep in a stream.
"""

from __future__ import annotations

from agents.models.fake_id import FAKE_RESPONSES_ID

from ag_ui_openai_agents.outbound.windows import (
    AssistantGroup,
    ReasoningPart,
    ReasoningWindow,
    TextWindow,
    ToolCallWindow,
    ToolResult,
    WindowBook,
)
from ag_ui_openai_agents.protocol import real_id, result_message_id


def test_only_non_empty_strings_other_than_the_placeholder_are_real_ids() -> None:
    assert real_id("msg_1") == "msg_1"
    assert real_id(FAKE_RESPONSES_ID) is None
    assert real_id("") is None
    assert real_id(None) is None
    assert real_id(7) is None


def test_a_real_sdk_id_wins_and_a_missing_one_is_generated_once() -> None:
    book = WindowBook()
    assert book.resolve_id("msg_sdk", "msg") == "msg_sdk"
    made = {book.resolve_id(FAKE_RESPONSES_ID, "msg") for _ in range(50)}
    assert len(made) == 50
    assert all(value.startswith("msg_") and len(value) == len("msg_") + 24 for value in made)
    assert book.resolve_id(None, "call").startswith("call_")


def test_result_message_ids_step_past_the_ids_already_taken() -> None:
    taken = {"call_1-result", "call_1-result-2"}
    assert result_message_id("call_1", taken) == "call_1-result-3"
    assert result_message_id("call_2", taken) == "call_2-result"
    assert {"call_1-result-3", "call_2-result"} <= taken
    assert result_message_id("call_2", taken) == "call_2-result-2"


def test_output_indexes_belong_to_the_current_response_only() -> None:
    book = WindowBook()
    first = TextWindow("msg_a")
    book.add(first, "text", 0, "msg_a")
    book.early_args[1] = ['{"a"']
    assert book.at(0) is first
    book.new_response()
    assert book.at(0) is None
    assert book.take_early_args(1) == []
    assert book.match("text", FAKE_RESPONSES_ID) is None
    # A real id still finds the window of an earlier response.
    assert book.match("text", "msg_a") is first


def test_early_arguments_are_handed_over_once() -> None:
    book = WindowBook()
    book.early_args[2] = ['{"city":', '"Paris"}']
    assert book.take_early_args(2) == ['{"city":', '"Paris"}']
    assert book.take_early_args(2) == []


def test_committed_items_match_by_real_id_else_in_order_of_creation() -> None:
    book = WindowBook()
    one, two, three = TextWindow("msg_1"), TextWindow("msg_2"), TextWindow("msg_3")
    book.add(one, "text", 0, FAKE_RESPONSES_ID)
    book.add(two, "text", 1, "msg_2")
    book.add(three, "text", 2, FAKE_RESPONSES_ID)
    assert book.match("text", "msg_2") is two
    assert book.match("text", FAKE_RESPONSES_ID) is one
    assert book.match("text", None) is three
    assert book.match("text", None) is None
    assert book.match("tool", None) is None


def test_a_forgotten_window_is_no_longer_matched_by_order() -> None:
    book = WindowBook()
    first, second = TextWindow("msg_1"), TextWindow("msg_2")
    book.add(first, "text", 0, None)
    book.add(second, "text", 1, None)
    book.forget("text", first)
    book.forget("text", first)
    assert book.match("text", None) is second


def test_calls_are_registered_by_tool_call_id() -> None:
    book = WindowBook()
    call = ToolCallWindow("call_1", "get_weather")
    book.add(call, "tool", 0, "fc_1")
    assert book.calls == {"call_1": call}
    assert book.match("tool", "fc_1") is call


def test_calls_join_the_open_assistant_message_until_something_ends_it() -> None:
    book = WindowBook()
    text = TextWindow("msg_text")
    book.start_text_group(text)
    first, second = ToolCallWindow("call_1", "a"), ToolCallWindow("call_2", "b")
    assert book.join_group(first) == "msg_text"
    assert book.join_group(second) == "msg_text"
    book.add_result(ToolResult("call_1-result", "call_1", "done"))
    third = ToolCallWindow("call_3", "c")
    parent = book.join_group(third)
    assert parent != "msg_text" and parent.startswith("msg_")
    group = book.produced[0]
    assert isinstance(group, AssistantGroup)
    assert group.text is text and group.calls == [first, second]
    assert [type(entry) for entry in book.produced] == [AssistantGroup, ToolResult, AssistantGroup]


def test_a_reasoning_window_ends_the_assistant_message_and_is_produced() -> None:
    book = WindowBook()
    book.join_group(ToolCallWindow("call_1", "a"))
    reasoning = ReasoningWindow("rs_1")
    book.add(reasoning, "reasoning", 1, "rs_1")
    assert book.group is None
    assert book.produced[-1] is reasoning
    book.join_group(ToolCallWindow("call_2", "b"))
    assert len([entry for entry in book.produced if isinstance(entry, AssistantGroup)]) == 2


def test_an_agent_change_ends_the_assistant_message() -> None:
    book = WindowBook()
    first = book.join_group(ToolCallWindow("call_1", "a"))
    book.end_group()
    assert book.join_group(ToolCallWindow("call_2", "b")) != first


def test_open_windows_lists_each_open_window_once_in_creation_order() -> None:
    book = WindowBook()
    text = TextWindow("msg_1", opened=True)
    book.start_text_group(text)
    started = ToolCallWindow("call_1", "a", started=True)
    ended = ToolCallWindow("call_2", "b", started=True, ended=True)
    never_started = ToolCallWindow("call_3", "c")
    for call in (started, ended, never_started):
        book.join_group(call)
    reasoning = ReasoningWindow("rs_1", parts=[ReasoningPart("rs_1")], span_open=True)
    book.add(reasoning, "reasoning", 3, "rs_1")
    closed_text = TextWindow("msg_2", opened=True, closed=True)
    book.start_text_group(closed_text)
    assert book.open_windows() == [text, started, reasoning]
    text.closed = started.ended = reasoning.closed = True
    assert book.open_windows() == []


def test_the_open_part_is_the_last_part_until_it_closes() -> None:
    window = ReasoningWindow("rs_1")
    assert window.open_part is None
    first, second = ReasoningPart("rs_1"), ReasoningPart("rs_1-1", index=1)
    window.parts += [first, second]
    assert window.open_part is second
    second.closed = True
    assert window.open_part is None
