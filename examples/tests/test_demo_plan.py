"""The demo model's decisions: which tool, which arguments, which words."""

from __future__ import annotations

import json

from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

from demo_plan import (
    Conversation,
    PastCall,
    ToolSpec,
    fill_arguments,
    plan_turn,
    read_conversation,
    related,
    significant_words,
)

WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
REFUND = ToolSpec(
    "issue_refund",
    "Refund money on a customer order.",
    {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    },
)


def test_words_and_matching() -> None:
    assert significant_words("What's the weather in Paris?") == ["weather", "paris"]
    assert related("write", "writer") and related("steps", "step")
    assert not related("cat", "category")  # Too short to count as a prefix.


def test_reads_the_last_user_message_and_what_followed() -> None:
    items = [
        {"role": "user", "content": "old question"},
        {"type": "function_call", "call_id": "c0", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c0", "output": "old answer"},
        {"role": "user", "content": [{"type": "input_text", "text": "new question"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [{"type": "input_text", "text": "sunny"}],
        },
        {"type": "function_call", "call_id": "c2", "name": "issue_refund", "arguments": "{}"},
    ]
    conversation = read_conversation("Be brief.", items)
    assert conversation.user_text == "new question"
    assert conversation.calls == (
        PastCall("get_weather", "c1", "sunny"),
        PastCall("issue_refund", "c2", None),
    )
    assert [call.call_id for call in conversation.answered] == ["c1"]
    assert read_conversation(None, "just text") == Conversation("just text", "")


def test_calls_the_tool_whose_name_matches() -> None:
    plan = plan_turn(Conversation("What's the weather in Paris?", ""), [REFUND, WEATHER])
    assert plan.text is None
    [call] = plan.calls
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert "weather" in plan.reasoning


def test_one_description_word_is_not_enough() -> None:
    plan = plan_turn(Conversation("What is my order status?", ""), [REFUND])
    assert plan.calls == ()
    assert plan.text is not None and "What is my order status?" in plan.text


def test_answers_from_outputs_once_each_tool_ran() -> None:
    ran = PastCall("get_weather", "c1", '{"conditions": "Sunny"}')
    plan = plan_turn(Conversation("weather in Paris", "", (ran,)), [WEATHER])
    assert plan.calls == ()
    assert plan.text is not None and '{"conditions": "Sunny"}' in plan.text


def test_rejected_call_is_reported_as_not_run() -> None:
    rejected = PastCall("issue_refund", "c1", DEFAULT_APPROVAL_REJECTION_MESSAGE)
    plan = plan_turn(Conversation("refund order A-1", "", (rejected,)), [REFUND])
    expected = f"- issue_refund did not run: {DEFAULT_APPROVAL_REJECTION_MESSAGE}"
    assert plan.text == f"Here is what I found:\n{expected}"


def test_plain_answer_quotes_instructions_and_context() -> None:
    instructions = "You are terse. Really.\n\nContext from the application:\nUser: Ada\nPage: Home"
    plan = plan_turn(Conversation("hi there", instructions), [])
    assert plan.text is not None
    assert "“hi there”" in plan.text
    assert "“You are terse.”" in plan.text
    assert "The page shared: User: Ada; Page: Home." in plan.text


def test_structured_answer_follows_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    }
    plan = plan_turn(Conversation("Forecast for Rome over 3 days", ""), [], output_schema=schema)
    assert plan.text is not None
    assert json.loads(plan.text) == {"city": "Rome", "days": 3}


def test_arguments_from_words_ids_numbers_and_enums() -> None:
    schema = {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "amount": {"type": "number", "maximum": 100},
            "speed": {"type": "string", "enum": ["standard", "express"]},
            "notify": {"type": "boolean"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }
    conversation = Conversation(
        "Refund 30 dollars on order A-17, express, about the broken lid", ""
    )
    assert fill_arguments(schema, conversation) == {
        "order_id": "A-17",
        "amount": 30.0,
        "speed": "express",
        "notify": True,
        "note": "the broken lid",
    }
    assert (
        fill_arguments(schema, Conversation("do not notify about order 4521", ""))["notify"]
        is False
    )


def test_arrays_and_nested_definitions() -> None:
    schema = {
        "type": "object",
        "properties": {"steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}}},
        "$defs": {
            "Step": {
                "type": "object",
                "properties": {"description": {"type": "string"}, "order": {"type": "integer"}},
            }
        },
    }
    steps = fill_arguments(schema, Conversation("Plan the steps to bake a cake", ""))["steps"]
    assert steps == [
        {"description": "First: bake a cake", "order": 1},
        {"description": "Next: bake a cake", "order": 2},
        {"description": "Finally: bake a cake", "order": 3},
    ]


def test_string_taken_from_an_earlier_output() -> None:
    listed = PastCall("list_readme_sections", "c1", "Installation\nShared state\nExamples")
    conversation = Conversation("What does the README say about shared state?", "", (listed,))
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    assert fill_arguments(schema, conversation) == {"title": "Shared state"}


def test_same_conversation_same_plan() -> None:
    conversation = Conversation("weather in Oslo", "Be brief.")
    assert plan_turn(conversation, [WEATHER]) == plan_turn(conversation, [WEATHER])
