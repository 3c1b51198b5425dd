"""A small recipe book, so the offline demo model writes a real recipe when a tool asks for one.

When a tool's arguments hold an object with ``ingredients`` and ``instructions`` (the
shared_state example's recipe), the demo model fills it from the recipe here that matches the
user's words best, instead of repeating the request in every field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from demo_conversation import significant_words

__all__ = ["book_recipe", "is_recipe", "recipe_in", "recipe_prose"]

_RECIPE_KEYS = frozenset({"ingredients", "instructions"})

_BOOK: tuple[tuple[frozenset[str], dict[str, Any]], ...] = (
    (
        frozenset({"pasta", "spaghetti", "italian", "noodles", "tomato"}),
        {
            "title": "Garlic Tomato Pasta",
            "skill_level": "Beginner",
            "cooking_time": "30 min",
            "special_preferences": ["Vegetarian"],
            "ingredients": [
                {"icon": "🍝", "name": "Spaghetti", "amount": "400 g"},
                {"icon": "🍅", "name": "Cherry tomatoes", "amount": "2 cups"},
                {"icon": "🧄", "name": "Garlic", "amount": "4 cloves, sliced"},
                {"icon": "🫒", "name": "Olive oil", "amount": "4 tbsp"},
                {"icon": "🌿", "name": "Basil", "amount": "1 handful"},
                {"icon": "🧂", "name": "Salt", "amount": "to taste"},
            ],
            "instructions": [
                "Boil the spaghetti in salted water until al dente",
                "Warm the olive oil and soften the garlic without browning it",
                "Add the tomatoes and cook until they burst",
                "Toss the pasta with the sauce and a splash of its water",
                "Tear in the basil, season and serve",
            ],
        },
    ),
    (
        frozenset({"curry", "chicken", "indian"}),
        {
            "title": "Quick Chicken Curry",
            "skill_level": "Intermediate",
            "cooking_time": "45 min",
            "special_preferences": ["High Protein", "Spicy"],
            "ingredients": [
                {"icon": "🍗", "name": "Chicken thighs", "amount": "500 g, diced"},
                {"icon": "🧅", "name": "Onion", "amount": "1 large"},
                {"icon": "🌶️", "name": "Curry paste", "amount": "3 tbsp"},
                {"icon": "🥥", "name": "Coconut milk", "amount": "400 ml"},
                {"icon": "🍚", "name": "Rice", "amount": "2 cups"},
            ],
            "instructions": [
                "Start the rice",
                "Fry the onion until golden, then stir in the curry paste",
                "Brown the chicken in the paste",
                "Pour in the coconut milk and simmer for 20 minutes",
                "Serve over the rice",
            ],
        },
    ),
    (
        frozenset({"soup", "stew", "warm", "winter"}),
        {
            "title": "Carrot and Lentil Soup",
            "skill_level": "Beginner",
            "cooking_time": "45 min",
            "special_preferences": ["Vegan", "One-Pot Meal", "Budget-Friendly"],
            "ingredients": [
                {"icon": "🥕", "name": "Carrots", "amount": "4, chopped"},
                {"icon": "🫘", "name": "Red lentils", "amount": "1 cup"},
                {"icon": "🧅", "name": "Onion", "amount": "1"},
                {"icon": "🥣", "name": "Vegetable stock", "amount": "1 litre"},
                {"icon": "🍋", "name": "Lemon", "amount": "half"},
            ],
            "instructions": [
                "Soften the onion in a large pot",
                "Add the carrots, lentils and stock and simmer for 25 minutes",
                "Blend until smooth",
                "Season and finish with a squeeze of lemon",
            ],
        },
    ),
    (
        frozenset({"pancakes", "pancake", "breakfast", "brunch", "sweet"}),
        {
            "title": "Fluffy Pancakes",
            "skill_level": "Beginner",
            "cooking_time": "15 min",
            "special_preferences": ["Vegetarian"],
            "ingredients": [
                {"icon": "🌾", "name": "Flour", "amount": "1½ cups"},
                {"icon": "🥛", "name": "Milk", "amount": "1¼ cups"},
                {"icon": "🥚", "name": "Egg", "amount": "1"},
                {"icon": "🧈", "name": "Butter", "amount": "3 tbsp, melted"},
                {"icon": "🍯", "name": "Maple syrup", "amount": "to serve"},
            ],
            "instructions": [
                "Whisk the flour with a pinch of salt and a spoon of sugar",
                "Beat in the milk, egg and melted butter until just combined",
                "Cook ladlefuls on a hot pan until bubbles form, then flip",
                "Serve warm with maple syrup",
            ],
        },
    ),
)

_DEFAULT: dict[str, Any] = {
    "title": "Vegetable Stir-Fry",
    "skill_level": "Beginner",
    "cooking_time": "15 min",
    "special_preferences": ["Vegan", "Low Carb"],
    "ingredients": [
        {"icon": "🥦", "name": "Broccoli", "amount": "1 head, in florets"},
        {"icon": "🫑", "name": "Bell pepper", "amount": "1, sliced"},
        {"icon": "🥕", "name": "Carrot", "amount": "1, in batons"},
        {"icon": "🧄", "name": "Garlic", "amount": "2 cloves"},
        {"icon": "🥢", "name": "Soy sauce", "amount": "2 tbsp"},
    ],
    "instructions": [
        "Heat a wok until very hot",
        "Stir-fry the carrot and broccoli for 3 minutes",
        "Add the pepper and garlic for 2 more minutes",
        "Season with the soy sauce and serve at once",
    ],
}


def is_recipe(properties: Iterable[str]) -> bool:
    """Whether an object with these properties is a recipe."""
    return set(properties) >= _RECIPE_KEYS


def book_recipe(request: str, context: str = "") -> Mapping[str, Any]:
    """The recipe whose keywords the request mentions most, then the context (the recipe the
    instructions show, so "improve the recipe" keeps the dish); a stir-fry when none does."""
    asked, known = set(significant_words(request)), set(significant_words(context))

    def score(entry: tuple[frozenset[str], dict[str, Any]]) -> tuple[int, int]:
        return len(entry[0] & asked), len(entry[0] & known)

    best = max(_BOOK, key=score)
    return best[1] if any(score(best)) else _DEFAULT


def recipe_in(text: str) -> dict[str, Any] | None:
    """The first recipe (a JSON object with ingredients and instructions) written in ``text``,
    such as the one the shared_state example's instructions carry; None when there is none."""
    decoder = json.JSONDecoder()
    for start in (i for i, char in enumerate(text) if char == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("recipe"), dict):
            value = value["recipe"]
        if isinstance(value, dict) and is_recipe(value):
            return value
    return None


def _listed(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _ingredient(item: Any) -> str:
    if not isinstance(item, Mapping) or not str(item.get("name") or "").strip():
        return ""
    name = str(item["name"]).strip()
    name = name if name[:2].isupper() else name[:1].lower() + name[1:]
    amount = str(item.get("amount") or "").strip()
    return f"{name} ({amount})" if amount else name


def _method(steps: list[str]) -> str:
    """The steps as one or two sentences: "Do this, then that, and finally the last."."""
    steps = [step.strip().rstrip(".") for step in steps if step.strip()]
    if not steps:
        return ""
    lowered = [steps[0], *(step[:1].lower() + step[1:] for step in steps[1:])]
    if len(lowered) == 1:
        return f"{lowered[0]}."
    return f"{', then '.join(lowered[:-1])}, and finally {lowered[-1]}."


def recipe_prose(recipe: Mapping[str, Any]) -> str:
    """The recipe told in a few sentences: what it is, what it needs, how it is made."""
    title = str(recipe.get("title") or "This recipe").strip()
    level = str(recipe.get("skill_level") or "").lower()
    preferences = [str(p).lower() for p in recipe.get("special_preferences") or []]
    kind = " ".join(filter(None, [f"{level}-level" if level else "", *preferences[:2]]))
    time = str(recipe.get("cooking_time") or "").strip()
    opening = f"“{title}” is a{'n' if kind[:1] in 'aeiou' else ''} {kind} dish".replace("  ", " ")
    opening += f", ready in about {time}." if time else "."
    needs = [text for text in map(_ingredient, recipe.get("ingredients") or []) if text]
    lines = [opening]
    if needs:
        lines.append(f"You will need {_listed(needs)}.")
    method = _method([str(step) for step in recipe.get("instructions") or []])
    if method:
        lines.append(method)
    return " ".join(lines)
