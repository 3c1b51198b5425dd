"""The demo model's documents: a story from the user's words, edited in place afterwards."""

from __future__ import annotations

from agents_examples.predictive_state_updates import write_document_local
from demo_arguments import fill_arguments
from demo_conversation import Conversation
from demo_documents import CURRENT_DOCUMENT, current_document, write_document


def test_a_story_is_written_from_the_users_words() -> None:
    story = write_document("Please write a story about a pirate named Candy Beard.", None)
    assert story.startswith("# Candy Beard the Pirate\n\n")
    assert "there lived a pirate named Candy Beard" in story
    dragon = write_document("Write a story about a dragon called Atlantis", None)
    assert dragon.startswith("# Atlantis the Dragon")
    assert write_document("Something about the sea", None).startswith("# Luna the Traveller")


def test_the_current_document_is_edited_not_replaced() -> None:
    story = write_document("A story about a mermaid named Luna", None)
    renamed = write_document("Change mermaid name to Marina", story)
    assert renamed == story.replace("Luna", "Marina")
    added = write_document("Please add a character named Courage.", story)
    assert added.startswith(story) and "a stranger named Courage arrived" in added
    other = write_document("Make it more formal", story)
    assert other.startswith(story) and other.endswith("Make it more formal: done, in brief.")


def test_the_document_comes_from_the_instructions() -> None:
    assert current_document(f"Edit it.\n\n{CURRENT_DOCUMENT}\n(empty)") is None
    assert current_document(f"Edit it.\n\n{CURRENT_DOCUMENT}\n# Title\n\nText") == "# Title\n\nText"
    assert current_document("No document here") is None
    story = write_document("A story about a dragon called Ember", None)
    instructions = f"You edit documents.\n\n{CURRENT_DOCUMENT}\n{story}"
    value = fill_arguments(
        write_document_local.params_json_schema,
        Conversation("Change dragon name to Ash", instructions),
    )
    assert value == {"document": story.replace("Ember", "Ash")}
