"""Short documents the offline demo model writes and edits, for the document-editor example.

When a tool asks for a ``document`` string, the demo model writes a short story from the
user's words ("a story about a pirate named Candy Beard", "a dragon called Atlantis"), or edits
the document the agent's instructions carry (after the line ``The current document:``): it
renames the hero ("Change dragon name to Lola"), adds a character ("Add a character named
Courage"), or adds a short section on anything else the user asks for.
"""

from __future__ import annotations

import re

__all__ = ["CURRENT_DOCUMENT", "current_document", "write_document"]

CURRENT_DOCUMENT = "The current document:"
_EMPTY = "(empty)"
_NAME = r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
_STORY = re.compile(
    r"\b(?:an?|the)\s+([a-z]+(?:\s+[a-z]+)?)\s+(?:named|called)\s+" + _NAME, re.IGNORECASE
)
_RENAME = re.compile(r"\b(?i:change|rename)\b.*?\b(?i:to)\s+" + _NAME)
_NEW_CHARACTER = re.compile(r"\bcharacter\s+(?:named|called)\s+" + _NAME, re.IGNORECASE)
_HERO = re.compile(r"\b(?:named|called)\s+" + _NAME)

_TRAITS: dict[str, tuple[str, str]] = {
    "pirate": (
        "a laugh that rolled across the harbour and a ship with sails the colour of candy",
        "sailed past the lighthouse in search of the island no map would show",
    ),
    "dragon": (
        "shimmering scales that reflected the light of a thousand stars",
        "soared above the mountains, breathing fire that lit up the night sky",
    ),
    "mermaid": (
        "a voice that could calm the wildest storm",
        "swam through coral forests to visit the sunken city of glass",
    ),
}
_DEFAULT_TRAIT = (
    "a kind heart and a curious mind",
    "set out before dawn to see what lay beyond the hills",
)


def current_document(instructions: str) -> str | None:
    """The document the agent's instructions carry, or None when it is empty."""
    if CURRENT_DOCUMENT not in instructions:
        return None
    text = instructions.split(CURRENT_DOCUMENT, 1)[1].strip()
    return None if not text or text == _EMPTY else text


def write_document(request: str, current: str | None) -> str:
    """The whole document after ``request``: a new story, or ``current`` edited."""
    story = _STORY.search(request)
    if current is None or (story and re.search(r"\b(?:write|story|tale)\b", request, re.I)):
        if story:
            return _story(story.group(1).lower(), story.group(2))
        return _story("traveller", "Luna", topic=request)
    hero = _HERO.search(current)
    rename = _RENAME.search(request)
    if rename and hero:
        return re.sub(rf"\b{re.escape(hero.group(1))}\b", rename.group(1), current)
    newcomer = _NEW_CHARACTER.search(request)
    if newcomer:
        friend = hero.group(1) if hero else "everyone"
        return (
            f"{current}\n\nOne stormy evening a stranger named {newcomer.group(1)} arrived, "
            f"soaked and smiling. {newcomer.group(1)} was brave where others hesitated, and "
            f"before long {friend} and {newcomer.group(1)} were the best of friends."
        )
    topic = " ".join(request.strip().rstrip(".!?").split())
    return f"{current}\n\n## Added on request\n\n{topic[:1].upper()}{topic[1:]}: done, in brief."


def _story(creature: str, name: str, *, topic: str | None = None) -> str:
    trait, deed = _TRAITS.get(creature.split()[-1], _DEFAULT_TRAIT)
    about = f" It is a story about {topic.strip().rstrip('.')}." if topic else ""
    return (
        f"# {name} the {creature.title()}\n\n"
        f"Once upon a time, in a land far away, there lived a {creature} named {name}. "
        f"{name} was known throughout the realm for {trait}.{about}\n\n"
        f"Every morning {name} {deed}, and every evening came home with a new tale to tell.\n\n"
        f"And so the people of the realm learned that courage, like {name}, never sleeps."
    )
