"""A few real haiku, so the offline demo model writes one when a tool asks for a haiku.

When a tool's arguments hold ``japanese`` and ``english`` lines (the tool-based generative UI
example's ``generate_haiku``), the demo model fills them from the haiku here whose theme the
user's words name (autumn leaves, the sea, mountains, cherry blossom, rain, the moon, snow),
else the first one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from demo_conversation import significant_words

__all__ = ["Haiku", "haiku_for", "is_haiku"]


@dataclass(frozen=True)
class Haiku:
    """A haiku: its three lines in Japanese, their English, and the words of its theme."""

    theme: frozenset[str]
    japanese: tuple[str, str, str]
    english: tuple[str, str, str]


_BOOK = (
    Haiku(
        frozenset({"autumn", "leaves", "leaf", "fall", "maple"}),
        ("紅葉散る", "静かな庭に", "風の音"),
        ("Red maple leaves fall", "into the quiet garden", "the sound of the wind"),
    ),
    Haiku(
        frozenset({"sea", "ocean", "waves", "wave", "beach", "summer"}),
        ("青い海", "波の音だけ", "夏の午後"),
        ("The deep blue sea", "nothing but the sound of waves", "a summer afternoon"),
    ),
    Haiku(
        frozenset({"mountain", "mountains", "fuji", "hill", "mist"}),
        ("山の朝", "霧の向こうに", "鳥の声"),
        ("Morning on the mountain", "somewhere beyond the mist", "a bird is singing"),
    ),
    Haiku(
        frozenset({"cherry", "blossom", "blossoms", "sakura", "spring", "flowers"}),
        ("桜咲く", "川のほとりに", "春の風"),
        ("Cherry trees in bloom", "all along the riverbank", "the soft wind of spring"),
    ),
    Haiku(
        frozenset({"rain", "rainy", "storm", "cat"}),
        ("雨の音", "屋根をたたいて", "眠る猫"),
        ("The sound of the rain", "drumming softly on the roof", "a cat fast asleep"),
    ),
    Haiku(
        frozenset({"moon", "night", "stars", "moonlight"}),
        ("月明かり", "池にうつって", "夜静か"),
        ("The light of the moon", "lying still upon the pond", "a quiet night"),
    ),
    Haiku(
        frozenset({"snow", "winter", "cold", "ice"}),
        ("初雪や", "白い小道に", "足の跡"),
        (
            "The first snow of the year",
            "on the white path through the woods",
            "a trail of footprints",
        ),
    ),
)


def is_haiku(properties: Iterable[str]) -> bool:
    """Whether an object with these properties is a haiku."""
    return {"japanese", "english"} <= set(properties)


def haiku_for(request: str) -> Haiku:
    """The haiku whose theme the request's words name most; the first one when none does."""
    words = set(significant_words(request))
    best = max(_BOOK, key=lambda haiku: len(haiku.theme & words))
    return best if best.theme & words else _BOOK[0]
