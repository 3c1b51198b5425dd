"""The newer examples on the page, in a real browser, as a person uses them: the shared recipe
and the plan drawn from the state as it changes, the itinerary a supervisor and its subagents
build, files attached to a message, reasoning shown, assistant Markdown rendered and sanitised,
and what became of each step and tool call the person reviewed.

Each test fails on any console error or request to another host, and keeps a screenshot of each
step under ``tests/artifacts/browser/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import FilePayload

from browser_page import PageSession
from dojo_pages import NOTES, png

pytestmark = pytest.mark.slow


def state(session: PageSession) -> Any:
    """The shared state as the side panel shows it."""
    return json.loads(session.page.get_by_label("Shared state JSON").text_content() or "null")


def test_the_recipe_is_drawn_from_the_state_and_sent_back(session: PageSession) -> None:
    session.open("shared_state")
    recipe = session.page.get_by_role("region", name="Recipe")
    assert recipe.get_by_label("Recipe title").input_value() == "Make Your Recipe"  # The page's.
    assert recipe.get_by_label("Ingredient 1 name").input_value() == "Carrots"
    session.say("Create a delicious Italian pasta recipe.")
    session.wait_for_runs(1)
    assert session.runs[0]["state"]["recipe"]["title"] == "Make Your Recipe"
    recipe.get_by_role("heading", name="Garlic Tomato Pasta").wait_for()
    ingredients = recipe.get_by_role("list", name="Ingredients").get_by_role("listitem")
    assert ingredients.count() == 6
    assert recipe.get_by_label("Ingredient 1 icon").input_value() == "🍝"
    assert recipe.get_by_label("Ingredient 1 name").input_value() == "Spaghetti"
    steps = recipe.get_by_role("list", name="Instructions").get_by_role("listitem")
    assert steps.count() == 5
    assert state(session)["recipe"]["title"] == "Garlic Tomato Pasta"
    session.shot("recipe-updated")

    session.say("What are the ingredients?")
    session.wait_for_runs(2)
    assert session.runs[1]["state"] == state(session), "the page sends its state back"
    session.shot("recipe-question")


def test_plan_steps_complete_while_the_tool_runs(session: PageSession) -> None:
    session.open("agentic_generative_ui")
    session.say("Please build a plan to go to mars in 5 steps.")
    progress = session.page.get_by_role("region", name="Task progress")
    # A step completes while the tool still works on the others.
    progress.get_by_text(re.compile(r"^[1-4]/5 complete$")).wait_for()
    assert session.page.locator(".run-card.running").count() == 1
    session.shot("plan-in-progress")
    session.wait_for_runs(1)
    progress.get_by_text("5/5 complete", exact=True).wait_for()
    statuses = progress.locator(".plan-step").evaluate_all("els => els.map(e => e.dataset.status)")
    assert statuses == ["completed"] * 5
    types = session.event_types()  # One snapshot, then a patch per completed step.
    assert (types.count("STATE_SNAPSHOT"), types.count("STATE_DELTA")) == (1, 5)
    session.shot("plan-done")


def test_the_itinerary_fills_in_as_the_subagents_work(session: PageSession) -> None:
    session.open("subgraphs")
    trip = session.page.get_by_role("region", name="Itinerary")
    assert "no flight yet" in (trip.text_content() or "")
    session.say("Plan a trip to San Francisco")
    session.wait_for_runs(1)
    text = trip.text_content() or ""
    assert "KLM Amsterdam (AMS) → San Francisco (SFO), $650" in text
    assert "Hotel Zoe, Union Square" in text and "Tartine Bakery" in text
    active = trip.get_by_label("Active agent").locator('[aria-current="true"]')
    assert "Supervisor" in (active.text_content() or "")
    panels = session.page.locator("section.subagent .subagent-name").all_text_contents()
    names = ["Flights agent", "Hotels agent", "Experiences agent"]
    assert panels == [f"Subagent {name}" for name in names]
    session.shot("itinerary")


def test_files_are_attached_and_described(session: PageSession) -> None:
    session.open("agentic_chat")
    assert session.page.get_by_role("button", name="Attach files").is_hidden()
    session.pick("agentic_chat_multimodal")
    session.page.get_by_role("button", name="Attach files").wait_for()
    picture = png(64, 48)
    files: list[FilePayload] = [
        {"name": "photo.png", "mimeType": "image/png", "buffer": picture},
        {"name": "notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()},
    ]
    session.page.get_by_label("Files to attach").set_input_files(files)
    waiting = session.page.get_by_role("list", name="Files to send").get_by_role("listitem")
    waiting.nth(1).wait_for()
    session.shot("files-attached")
    session.say("Describe what you see in the image I upload.")
    session.wait_for_runs(1)
    content = session.runs[0]["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image", "document"]
    assert content[1]["source"]["mimeType"] == "image/png"
    assert content[2]["metadata"] == {"filename": "notes.txt"}
    assert waiting.count() == 0, "the files went with the message"
    user = session.transcript().locator(".message.user").last
    assert user.get_by_role("img", name="Attached image photo.png").is_visible()
    assert "notes.txt" in (user.text_content() or "")
    reply = session.transcript().locator(".message.assistant .text").last.text_content() or ""
    assert f"an image (image/png, {len(picture)} bytes, 64 x 48 pixels)" in reply
    assert "“notes.txt”" in reply
    session.shot("files-described")


def test_reasoning_is_shown_before_the_answer(session: PageSession) -> None:
    session.open("agentic_chat_reasoning")
    session.say("What is the best car to buy?")
    session.wait_for_runs(1)
    items = session.transcript().locator("details.reasoning, .message.assistant")
    kinds = items.evaluate_all("els => els.map(e => e.tagName)")
    assert kinds[:2] == ["DETAILS", "DIV"], "the reasoning comes first"
    reasoning = session.transcript().locator("details.reasoning").first
    reasoning.locator("summary").click()
    assert "No tool fits" in (reasoning.locator(".reasoning-text").text_content() or "")
    assert "REASONING_ENCRYPTED_VALUE" in session.event_types()
    session.shot("reasoning")


def test_assistant_markdown_is_rendered_and_sanitised(session: PageSession) -> None:
    session.open("agentic_chat")
    # The demo model quotes the message, so the reply carries this Markdown and HTML.
    session.say(
        "**bold**, `code`, [a link](https://example.com/x), [click](javascript:window.pwned=3) "
        "<script>window.pwned = 1</script><img src=x onerror=window.pwned=2>"
    )
    session.wait_for_runs(1)
    reply = session.transcript().locator(".message.assistant .text.markdown").last
    assert reply.locator("strong").text_content() == "bold"
    assert reply.locator("code").text_content() == "code"
    link = reply.get_by_role("link", name="a link")
    assert link.get_attribute("href") == "https://example.com/x"
    assert link.get_attribute("rel") == "noopener noreferrer"
    assert reply.locator("a", has_text="click").get_attribute("href") is None
    # Raw HTML in the text shows as text; no element of it reaches the page.
    assert "<script>window.pwned = 1</script>" in (reply.text_content() or "")
    assert reply.locator("script, img, [onerror]").count() == 0
    assert session.page.evaluate("() => window.pwned") is None, "nothing ran"
    user = session.transcript().locator(".message.user .text").last
    assert "**bold**" in (user.text_content() or ""), "the person's own text stays as typed"
    session.shot("markdown")


def test_reviewed_steps_show_what_the_person_chose(session: PageSession) -> None:
    session.open("human_in_the_loop")
    session.say("Plan the steps to bake a cake")
    session.wait_for_runs(1)
    steps = session.page.get_by_role("list", name="Proposed steps").get_by_role("checkbox")
    steps.nth(1).uncheck()
    session.page.get_by_role("button", name="Confirm").click()
    session.wait_for_runs(2)
    reviewed = session.page.get_by_role("list", name="Reviewed steps").locator("li")
    choices = reviewed.evaluate_all("els => els.map(e => e.dataset.choice)")
    assert choices == ["kept", "left out", *["kept"] * 5]
    call = session.page.get_by_role("group", name="Tool call generate_task_steps")
    assert call.locator(".tool-status").text_content() == "done"
    session.shot("steps-left-out")

    session.say("Plan the steps to paint a wall")
    session.wait_for_runs(3)
    session.page.get_by_role("button", name="Reject").click()
    session.wait_for_runs(4)
    rejected = session.page.get_by_role("list", name="Rejected steps").locator("li")
    assert set(rejected.evaluate_all("els => els.map(e => e.dataset.choice)")) == {"rejected"}
    assert session.page.get_by_text("You rejected this plan.").is_visible()
    last_call = session.page.get_by_role("group", name="Tool call generate_task_steps").last
    assert last_call.locator(".tool-status").text_content() == "rejected"
    session.shot("steps-rejected")


def test_rejected_and_cancelled_calls_are_not_labelled_done(session: PageSession) -> None:
    session.open("human_in_the_loop_approval")
    for turn, (prompt, button, label) in enumerate(
        [
            ("Please refund 30 dollars on order A-17", "Reject", "rejected"),
            ("Refund 5 dollars on order B-2", "Cancel", "cancelled"),
            ("Refund 7 dollars on order C-3", "Approve", "done"),
        ]
    ):
        session.say(prompt)
        session.wait_for_runs(2 * turn + 1)
        session.page.get_by_role("button", name=button, exact=True).click()
        session.wait_for_runs(2 * turn + 2)
        call = session.page.get_by_role("group", name="Tool call issue_refund").last
        assert call.locator(".tool-status").text_content() == label
    statuses = session.page.locator('[data-tool="issue_refund"] .tool-status')
    assert statuses.all_text_contents() == ["rejected", "cancelled", "done"]
    session.shot("refund-labels")
