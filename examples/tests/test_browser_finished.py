"""The examples page as a person reads it, in a real browser: every frontend tool the page
declares is answered (no chat is left with Send disabled), the shared recipe is edited on the
page and the agent works on the edit, the A2UI recovery page shows each attempt with its
errors, an edited refund reports its own amount in every conversation, and a reload keeps
every example's chat (on the server where the example keeps threads, in the browser where it
does not).

Each test fails on any console error or request to another host, and keeps a screenshot of each
step under ``tests/artifacts/browser/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui_openai_agents.threads import SQLiteThreadStore

from agents_examples import EXAMPLES, ExampleSettings
from browser_page import PageSession, page_session

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kept_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example server with its threads in an SQLite file, on a free local port."""
    from support.e2e import serve_app

    from page_app import page_test_app

    store = SQLiteThreadStore(Path(tmp_path_factory.mktemp("threads")) / "threads.db")
    with page_test_app(ExampleSettings.offline_demo(threads=store)) as app, serve_app(app) as url:
        yield url


@pytest.fixture
def kept(browser: Any, kept_url: str, request: pytest.FixtureRequest) -> Iterator[PageSession]:
    with page_session(browser, kept_url, request.node.name) as session:
        yield session


def state(session: PageSession) -> Any:
    return json.loads(session.page.get_by_label("Shared state JSON").text_content() or "null")


def said(session: PageSession) -> list[str]:
    """What the conversation shows in words: the person's messages and the assistant's text."""
    texts = session.transcript().locator(".message.user .text, .message.assistant .markdown")
    return [text.strip() for text in texts.all_inner_texts()]


# --- frontend tools ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["agentic_chat_reasoning", "agentic_chat_multimodal"])
def test_change_background_is_answered_and_the_chat_goes_on(
    session: PageSession, name: str
) -> None:
    session.open(name)
    session.say("Change the background to blue")
    session.wait_for_runs(2)  # the call, then the run the page's answer started
    call = session.page.get_by_role("group", name="Tool call change_background")
    expected = "linear-gradient(135deg, blue 0%, white 100%)"
    assert call.locator(".background-change").inner_text() == f"Background changed to {expected}."
    answer = session.runs[1]["messages"][-1]
    assert answer["role"] == "tool" and answer["content"] == f"Background changed to {expected}."
    background = session.transcript().evaluate("node => node.style.background")
    assert "linear-gradient" in background and "blue" in background
    assert said(session)[-1] == f"Done: the chat's background is now {expected}."
    assert session.page.get_by_role("button", name="Send").is_enabled()
    session.shot("background-changed")
    session.say("Thanks!")  # not stuck: the next message goes out
    session.wait_for_runs(3)
    assert session.runs[2]["messages"][-1]["content"] == "Thanks!"


# --- the shared recipe ------------------------------------------------------------------------


def test_the_recipe_is_edited_on_the_page_and_the_agent_sees_the_edit(
    session: PageSession,
) -> None:
    session.open("shared_state")
    recipe = session.page.get_by_role("region", name="Recipe")
    recipe.get_by_label("Recipe title").fill("Grandma's Carrot Cake")
    recipe.get_by_label("Skill level").select_option("Beginner")
    recipe.get_by_role("button", name="Add ingredient").click()
    recipe.get_by_label("Ingredient 3 name").fill("Walnuts")
    recipe.get_by_label("Ingredient 3 amount").fill("1 cup")
    recipe.get_by_label("Step 1", exact=True).fill("Preheat the oven to 180 °C")
    assert state(session)["recipe"]["title"] == "Grandma's Carrot Cake"
    session.shot("recipe-edited")

    session.say("What is in the recipe?")
    session.wait_for_runs(1)
    sent = session.runs[0]["state"]["recipe"]
    assert sent["title"] == "Grandma's Carrot Cake" and sent["skill_level"] == "Beginner"
    assert sent["ingredients"][2] == {"icon": "🍴", "name": "Walnuts", "amount": "1 cup"}
    reply = said(session)[-1]
    assert "“Grandma's Carrot Cake” is a beginner-level dish" in reply
    assert "walnuts (1 cup)" in reply and "Preheat the oven to 180 °C" in reply
    session.shot("recipe-answered")

    session.say("Create a delicious Italian pasta recipe.")
    session.wait_for_runs(2)
    recipe.get_by_role("heading", name="Garlic Tomato Pasta").wait_for()
    assert recipe.get_by_label("Recipe title").input_value() == "Garlic Tomato Pasta"
    assert said(session)[-1].startswith("Here is your recipe. “Garlic Tomato Pasta” is a")


# --- A2UI recovery ----------------------------------------------------------------------------


def test_the_recovery_page_shows_each_attempt_and_its_errors(session: PageSession) -> None:
    session.open("a2ui_recovery")
    session.say("Compare 3 luxury hotels with ratings and prices.")
    session.wait_for_runs(1)
    attempts = session.page.locator(".a2ui-attempt")
    assert attempts.all_inner_texts()[0].startswith("Attempt 1: invalid.")
    failed = session.page.get_by_role("group", name="Attempt 1 failed")
    assert "Child reference 'card' does not match any component id" in failed.inner_text()
    assert attempts.nth(1).inner_text() == "Attempt 2: valid, painted."
    assert session.transcript().get_by_text("The surface was rendered.").count() == 0
    assert session.page.locator(".a2ui-hotel").count() == 3
    session.shot("recovered")

    session.say("Compare 3 broken hotels with ratings and prices.")
    session.wait_for_runs(2)
    texts = attempts.all_inner_texts()[2:]
    assert [text.split(":")[0] for text in texts] == ["Attempt 1", "Attempt 2", "Attempt 3"]
    assert all(": invalid." in text for text in texts)
    alert = session.page.get_by_role("alert", name="Surface failed").inner_text()
    assert "Attempt 3: Child reference" in alert
    assert said(session)[-1].startswith("I could not build a valid interface after 3 attempts")
    session.shot("exhausted")


# --- the edited refund ------------------------------------------------------------------------


def _refund(session: PageSession, runs: int, amount: str | None) -> str:
    """Ask for the page's refund, approve it (with ``amount`` when given), return its result;
    ``runs`` is the number of the conversation's run that asks."""
    session.say("Please refund 30 dollars on order A-17")
    session.wait_for_runs(runs)
    card = session.page.locator(".interrupt")
    if amount is None:
        card.get_by_role("button", name="Approve", exact=True).click()
    else:
        card.get_by_role("button", name="Edit", exact=True).click()
        form = session.page.get_by_role("form", name="Edit the arguments of issue_refund")
        form.get_by_label("Amount").fill(amount)
        form.get_by_role("button", name="Approve with edits").click()
    session.wait_for_runs(runs + 1)
    result = session.page.get_by_role("group", name="Tool call issue_refund").locator(
        ".tool-result"
    )
    return result.inner_text()


def test_an_edited_refund_reports_its_own_amount_in_a_new_conversation(
    kept: PageSession,
) -> None:
    kept.open("human_in_the_loop_approval")
    assert _refund(kept, 1, None) == "Refunded 30.00 USD on order A-17."
    kept.page.get_by_role("button", name="New conversation").click()
    kept.page.get_by_text("No messages yet").wait_for()
    assert _refund(kept, 1, "45.5") == "Refunded 45.50 USD on order A-17."  # a new chat
    assert kept.runs[-1]["threadId"] != kept.runs[0]["threadId"]
    assert said(kept)[-1] == "Refunded 45.50 USD on order A-17."
    kept.shot("edited-refund")


# --- every chat across a reload ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_keeps_its_chat_across_a_reload(kept: PageSession, name: str) -> None:
    kept.open(name)
    kept.page.locator("#suggested button").click()
    kept.page.get_by_role("textbox", name="Message").press("Enter")
    kept.wait_for_runs(1)
    kept.page.locator(".run-card.running").wait_for(state="detached")
    before = said(kept)
    assert len(before) >= 1
    keeps = kept.page.locator("#example-route").inner_text().endswith("on the server")

    kept.page.reload()
    kept.page.get_by_role("heading", name=name, exact=True).wait_for()
    if keeps:  # the page asks the server for the thread with no message
        kept.wait_for_runs(1)
        assert kept.runs[-1]["messages"] == []
    kept.transcript().locator(".message.user").first.wait_for()
    assert said(kept) == before
    kept.shot("reloaded")


def test_assistant_text_never_shows_a_tool_s_json(session: PageSession) -> None:
    """A tool whose result is JSON (the weather report) is told in words."""
    session.open("backend_tool_rendering")
    session.say("What's the weather in Paris?")
    session.wait_for_runs(1)
    reply = said(session)[-1]
    assert re.fullmatch(r"The weather in Paris: [a-z ]+, -?\d+ °C \(feels like .*\)\.", reply)
    assert not re.search(r"[{\[]\s*\"", reply)
