"""Steps that fit a goal, so the offline demo model plans like an assistant.

When a tool asks for a list of steps (an array of objects with a ``description``, as the
human-in-the-loop and agentic generative UI examples' tools do), the demo model takes them from
the plan here that matches the user's words ("bake a cake", "go to Mars", "plan a trip"), else
builds steps around the goal itself. Steps are imperative ("Preheat the oven"), or in gerund
form ("Preheating the oven") when the tool's schema asks for that.
"""

from __future__ import annotations

import re

from demo_conversation import significant_words

__all__ = ["goal_of", "plan_steps", "to_gerund"]

_PLANS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (
        frozenset({"cake", "bake", "baking", "birthday"}),
        (
            "Preheat the oven to 180 °C",
            "Grease and line the cake tin",
            "Cream the butter and sugar",
            "Beat in the eggs one at a time",
            "Fold in the flour",
            "Bake for 30 minutes",
            "Let the cake cool, then ice it",
        ),
    ),
    (
        frozenset({"brownies", "brownie", "cookies", "cookie"}),
        (
            "Preheat the oven to 175 °C",
            "Melt the butter with the chocolate",
            "Whisk in the sugar and eggs",
            "Fold in the flour and cocoa",
            "Bake for 25 minutes",
            "Cool and cut into squares",
        ),
    ),
    (
        frozenset({"mars", "space", "rocket", "moon", "planet"}),
        (
            "Design a reusable rocket",
            "Train the crew for the journey",
            "Launch from Earth",
            "Cruise to Mars for seven months",
            "Land near the base site",
            "Set up the habitat",
        ),
    ),
    (
        frozenset({"trip", "travel", "vacation", "holiday", "journey"}),
        (
            "Choose the dates",
            "Book the flights",
            "Book a place to stay",
            "Plan what to see each day",
            "Pack the bags",
        ),
    ),
    (
        frozenset({"party", "wedding", "celebration", "event"}),
        (
            "Set the date and budget",
            "Write the guest list",
            "Book the venue",
            "Send the invitations",
            "Order the food and drinks",
            "Decorate the room",
        ),
    ),
    (
        frozenset({"garden", "plant", "plants", "vegetables", "grow"}),
        (
            "Pick a sunny spot",
            "Dig over and feed the soil",
            "Sow the seeds",
            "Water them every morning",
            "Thin out the seedlings",
        ),
    ),
    (
        frozenset({"website", "app", "application", "software", "program"}),
        (
            "Write down what it must do",
            "Sketch the screens",
            "Build the first version",
            "Test it with a few people",
            "Fix what they found",
            "Launch it",
        ),
    ),
    (
        frozenset({"learn", "language", "study", "exam"}),
        (
            "Set a daily goal",
            "Learn the basics",
            "Practise a little every day",
            "Review what you got wrong",
            "Test yourself",
        ),
    ),
)

_DOUBLED = frozenset(
    {"set", "let", "get", "put", "cut", "plan", "shop", "stop", "run", "sit", "dig", "thin", "swim"}
)
_GOAL = re.compile(
    r"\b(?:to|for|about)\s+(.+?)(?:\s+in\s+\d{1,2}\s+\w+)?\s*[.?!]*$", flags=re.IGNORECASE
)


def to_gerund(step: str) -> str:
    """``step`` with its first verb in gerund form ("Bake for 30 minutes" gives "Baking for
    30 minutes")."""
    verb, _, rest = step.partition(" ")
    lower = verb.lower()
    if lower in _DOUBLED:
        gerund = lower + lower[-1] + "ing"
    elif lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")) and len(lower) > 2:
        gerund = lower[:-1] + "ing"
    else:
        gerund = lower + "ing"
    gerund = gerund[:1].upper() + gerund[1:] if verb[:1].isupper() else gerund
    return f"{gerund} {rest}".strip()


def goal_of(request: str) -> str:
    """What a request asks to do: "Plan the steps to bake a cake" gives "bake a cake"."""
    flat = " ".join(request.split())
    match = _GOAL.search(flat)
    goal = match.group(1) if match else flat.rstrip(".?! ")
    goal = re.sub(r"\bmy\b", "your", re.sub(r"\bme\b", "you", goal))
    return goal or "the task"


def _generic(goal: str) -> tuple[str, ...]:
    return (
        f"Work out what it takes to {goal}",
        "Gather what you need",
        "Make a start on the main part",
        "Check how it is going",
        "Finish off and tidy up",
        f"Celebrate: you managed to {goal}",
    )


def plan_steps(request: str, count: int | None, *, gerund: bool = False) -> list[str]:
    """``count`` steps (the plan's own length when None) for the goal of ``request``."""
    words = set(significant_words(request))
    found = max(_PLANS, key=lambda plan: len(plan[0] & words))
    steps = list(found[1] if found[0] & words else _generic(goal_of(request)))
    wanted = len(steps) if count is None else count
    if wanted > len(steps):
        extra = ("Review how it went", "Note what to do better", "Share the result")
        steps += [extra[n % len(extra)] for n in range(wanted - len(steps))]
    if wanted < len(steps) and wanted > 1:
        steps = [*steps[: wanted - 1], steps[-1]]  # keep the last step: the goal is reached
    steps = steps[:wanted]
    return [to_gerund(step) for step in steps] if gerund else steps
