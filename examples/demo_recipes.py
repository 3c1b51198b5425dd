"""A small recipe book, so the offline demo model writes a real recipe when a tool asks for one.

When a tool's arguments hold an object with ``ingredients`` and ``instructions`` (the
shared_state example's recipe), the demo model fills it from the recipe here that matches the
user's words best, instead of repeating the request in every field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from demo_conversation import significant_words

__all__ = ["book_recipe", "is_recipe"]

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
