"""Shared state: a recipe the page and the agent edit together.

The page keeps ``{"recipe": {...}}`` in ``RunAgentInput.state`` (title, skill level, cooking
time, special preferences, ingredients and instructions, as the AG-UI Dojo's recipe page shapes
it) and sends it with every request. The agent's instructions are written from that state on
every model call, so the model always works on the recipe the person sees. To change the recipe
the model calls ``updateWorkingMemory`` (the tool name and ``{"memory": {"recipe": {...}}}``
arguments of the Dojo's fixtures); the tool merges the new recipe into the shared state, and the
page receives it before the tool's result: as a ``STATE_SNAPSHOT`` the first time in a run, as a
``STATE_DELTA`` (an RFC 6902 patch, ``state=StateUpdates(deltas=True)``) when that is smaller.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    StateUpdates,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from agents import Agent, RunContextWrapper, function_tool
from fastapi import FastAPI
from pydantic import BaseModel, Field

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "A recipe shared by the page and the agent (state in, snapshot or delta out)."
KEEPS_THREADS = True
"""With a thread store the server keeps the thread, the shared recipe included."""
TOOL_NAME = "updateWorkingMemory"

SkillLevel = Literal["Beginner", "Intermediate", "Advanced"]
CookingTime = Literal["5 min", "15 min", "30 min", "45 min", "60+ min"]
Preference = Literal[
    "High Protein", "Low Carb", "Spicy", "Budget-Friendly", "One-Pot Meal", "Vegetarian", "Vegan"
]


class Ingredient(BaseModel):
    """One ingredient of the recipe."""

    icon: str = Field(description="One emoji for the ingredient, like 🥕.")
    name: str = Field(description="The ingredient's name.")
    amount: str = Field(description="How much of it, like '2 cups'.")


class Recipe(BaseModel):
    """The whole recipe: every ingredient and every step, not only the changes."""

    title: str | None = Field(
        default=None, description="The recipe's title; null keeps the current one."
    )
    skill_level: SkillLevel = Field(description="The skill the recipe needs.")
    cooking_time: CookingTime = Field(description="How long it takes.")
    special_preferences: list[Preference] = Field(description="Dietary and other preferences.")
    ingredients: list[Ingredient] = Field(description="All the ingredients, old and new.")
    instructions: list[str] = Field(description="All the steps, old and new, in order.")


class WorkingMemory(BaseModel):
    """What the page and the agent share."""

    recipe: Recipe


@function_tool(name_override=TOOL_NAME)
def update_working_memory(memory: WorkingMemory) -> str:
    """Create, improve or change the recipe the user sees (a new dish, variations, a healthier
    or quicker version): the new recipe replaces the one on the page.

    Args:
        memory: The new recipe, complete: every ingredient and instruction, kept and new.
    """
    state = shared_state()
    current = state.value.get("recipe") if isinstance(state.value, dict) else None
    new = memory.recipe.model_dump(exclude_none=True)
    recipe = {**(current if isinstance(current, dict) else {}), **new}
    state.update(recipe=recipe)
    title = recipe.get("title")
    named = f"The recipe “{title}”" if title else "The recipe"
    return (
        f"{named} now has {len(recipe['ingredients'])} ingredients and "
        f"{len(recipe['instructions'])} steps."
    )


def recipe_instructions(wrapper: RunContextWrapper[Any], agent: Agent[Any]) -> str:
    """The prompt, with the recipe the page sent (as it is now, after any change in this run)."""
    value = shared_state().value
    recipe = value.get("recipe") if isinstance(value, dict) else None
    current = json.dumps(recipe, ensure_ascii=False, indent=2) if recipe else "No recipe yet."
    return (
        "You are a cooking assistant working on the recipe the user sees on the page. To change "
        f"it, call {TOOL_NAME} once with the whole recipe: keep the user's ingredients and "
        "steps unless they ask otherwise, append new ones, respect their skill level, cooking "
        "time and preferences, and use a real emoji as each ingredient's icon. Then say in one "
        "sentence what you changed, without repeating the recipe. Answer questions about the "
        f"recipe from it without calling the tool.\n\nThe current recipe:\n{current}"
    )


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A cook whose instructions carry the shared recipe."""
    return Agent(
        name="Recipe assistant",
        instructions=recipe_instructions,
        tools=[update_working_memory],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="shared_state",
        description=DESCRIPTION,
        run_config=settings.run_config,
        state=StateUpdates(deltas=True),
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
