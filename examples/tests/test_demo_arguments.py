"""How the demo model fills a tool's arguments from its JSON schema and the conversation."""

from __future__ import annotations

from demo_arguments import fill_arguments
from demo_conversation import Conversation, PastCall


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
    assert [step["order"] for step in steps] == list(range(1, len(steps) + 1))
    descriptions = [step["description"] for step in steps]
    assert descriptions[0] == "Preheat the oven to 180 °C"
    assert "Bake for 30 minutes" in descriptions


def test_string_taken_from_an_earlier_output() -> None:
    listed = PastCall("list_readme_sections", "c1", "Installation\nShared state\nExamples")
    conversation = Conversation("What does the README say about shared state?", "", (listed,))
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    assert fill_arguments(schema, conversation) == {"title": "Shared state"}


def test_optional_property_with_a_default_needs_an_explicit_topic() -> None:
    schema = {"type": "object", "properties": {"heading": {"type": "string", "default": ""}}}
    assert fill_arguments(schema, Conversation("List the headings of the docs", "")) == {}
    asked = Conversation("What do the docs say about shared state?", "")
    assert fill_arguments(schema, asked) == {"heading": "shared state"}
    required = {**schema, "required": ["heading"]}
    assert "heading" in fill_arguments(required, Conversation("List the headings", ""))


def test_whole_text_fields_keep_their_lines() -> None:
    schema = {"type": "object", "properties": {"notes": {"type": "string"}}}
    conversation = Conversation("- one  fact\n\n-   two", "")
    assert fill_arguments(schema, conversation) == {"notes": "- one fact\n- two"}
