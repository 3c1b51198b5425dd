"""The demo model's recipe book: a recipe for a recipe-shaped tool, with the user's choices."""

from __future__ import annotations

from agents_examples.shared_state import update_working_memory
from demo_arguments import fill_arguments
from demo_conversation import Conversation
from demo_recipes import book_recipe, is_recipe


def test_the_request_picks_the_dish_then_the_recipe_shown() -> None:
    assert book_recipe("A quick pasta dinner")["title"] == "Garlic Tomato Pasta"
    assert book_recipe("Something warm for winter")["title"] == "Carrot and Lentil Soup"
    assert book_recipe("Improve it", "Current recipe: Quick Chicken Curry")["title"] == (
        "Quick Chicken Curry"
    )
    assert book_recipe("Surprise me")["title"] == "Vegetable Stir-Fry"
    assert is_recipe(["title", "ingredients", "instructions"])
    assert not is_recipe(["ingredients"])


def test_the_shared_state_tool_gets_a_whole_recipe_within_its_schema() -> None:
    schema = update_working_memory.params_json_schema
    request = "Pancakes for a beginner, vegan and budget-friendly please"
    value = fill_arguments(schema, Conversation(request, ""))
    recipe = value["memory"]["recipe"]
    assert recipe["title"] == "Fluffy Pancakes"
    assert recipe["skill_level"] == "Beginner"
    assert recipe["special_preferences"] == ["Budget-Friendly", "Vegan"]
    assert recipe["cooking_time"] == "15 min"
    assert [i["name"] for i in recipe["ingredients"]][:2] == ["Flour", "Milk"]
    assert all(set(i) == {"icon", "name", "amount"} for i in recipe["ingredients"])


def test_item_counts_follow_the_request() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    steps = {"type": "object", "properties": {"steps": schema}}
    five = fill_arguments(steps, Conversation("Build a plan to go to mars in 5 steps", ""))
    assert five["steps"] == [
        "First: go to mars",
        "Next: go to mars",
        "Then: go to mars",
        "After that: go to mars",
        "Finally: go to mars",
    ]
    many = fill_arguments(steps, Conversation("A plan for pizza in 40 steps", ""))
    assert len(many["steps"]) == 10
    capped = {"type": "object", "properties": {"steps": {**schema, "maxItems": 2}}}
    assert len(fill_arguments(capped, Conversation("Give me 5 steps", ""))["steps"]) == 2
