"""The demo model's phrases in a few languages, and how instructions pick one."""

from __future__ import annotations

import pytest

from demo_phrases import ENGLISH, phrases_for, reply_language


def test_reply_language_is_read_from_the_instructions() -> None:
    assert reply_language("Be kind. Always reply in French, whatever happens.") == "French"
    assert reply_language("always REPLY IN español.") == "español"
    assert reply_language("Reply briefly.") is None


@pytest.mark.parametrize(
    ("asked", "language"),
    [
        ("French", "French"),
        ("fr", "French"),
        ("Français", "French"),
        ("spanish", "Spanish"),
        ("Español", "Spanish"),
        ("Deutsch", "German"),
        ("de", "German"),
        ("Italiano", "Italian"),
        ("Português", "Portuguese"),
        ("English", "English"),
    ],
)
def test_languages_by_name_native_name_or_code(asked: str, language: str) -> None:
    phrases = phrases_for(asked)
    assert phrases.language == language
    assert phrases.missing_note == ""


def test_other_languages_fall_back_to_english_with_a_note() -> None:
    assert phrases_for(None) == ENGLISH
    klingon = phrases_for("Klingon")
    assert klingon.you_said == ENGLISH.you_said
    assert klingon.missing_note == (
        "(The offline demo model has no Klingon phrases, so it replies in English.)"
    )


def test_every_language_fills_the_same_fields() -> None:
    for language in ("French", "Spanish", "German", "Italian", "Portuguese"):
        phrases = phrases_for(language)
        assert phrases.you_said.count("{}") == phrases.instructions_start.count("{}") == 1
        assert phrases.did_not_run.count("{}") == 2
        assert "OPENAI_API_KEY" in phrases.offline_note
