"""The document editor and the A2UI examples on the page, in a real browser, as a person uses
them: the document drawn from the state while the model writes it (PredictState), confirmed or
rejected; flight cards from a backend tool's fixed surface, one of them selected; a surface
generated for a request marked as the A2UI middleware marks it; and a generation that fails
without breaking the chat.

Each test fails on any console error or request to another host, and keeps a screenshot of each
step under ``tests/artifacts/browser/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from browser_page import PageSession

pytestmark = pytest.mark.slow


def state(session: PageSession) -> Any:
    return json.loads(session.page.get_by_label("Shared state JSON").text_content() or "null")


def test_the_document_is_written_into_the_page_then_confirmed_or_rejected(
    session: PageSession,
) -> None:
    session.open("predictive_state_updates")
    document = session.page.get_by_role("region", name="Document")
    assert "Nothing written yet." in (document.text_content() or "")
    session.say("Please write a story about a pirate named Candy Beard.")
    first = session.wait_for_runs(1)
    # The page copied the streamed argument into its state chunk by chunk (PredictState).
    predicted = first.locator(".run-predicted").text_content() or ""
    assert int(re.search(r"followed (\d+) chunks", predicted).group(1)) > 10  # type: ignore[union-attr]
    document.get_by_role("heading", name="Candy Beard the Pirate").wait_for()
    assert state(session)["document"].startswith("# Candy Beard the Pirate")
    confirm = session.page.get_by_role("group", name="Confirm changes")
    session.shot("document-written")
    confirm.get_by_role("button", name="Confirm").click()
    session.wait_for_runs(2)
    assert json.loads(session.runs[1]["messages"][-1]["content"]) == {"accepted": True}
    session.transcript().get_by_text("✓ Accepted").wait_for()
    session.transcript().get_by_text("You accepted the changes").wait_for()

    session.say("Please add a character named Courage.")
    session.wait_for_runs(3)
    assert "a stranger named Courage arrived" in (document.text_content() or "")
    session.shot("document-edited")
    confirm.get_by_role("button", name="Reject").click()
    session.wait_for_runs(4)
    # The page put its previous document back and sent it with the rejection.
    assert "Courage arrived" not in (document.text_content() or "")
    assert "Courage arrived" not in session.runs[3]["state"]["document"]
    session.transcript().get_by_text("You rejected the changes").wait_for()
    session.shot("document-rejected")


def test_flight_results_are_drawn_as_cards(session: PageSession) -> None:
    session.open("a2ui_fixed_schema")
    session.say("Find flights from SFO to JFK for next Tuesday.")
    session.wait_for_runs(1)
    surface = session.page.get_by_role("region", name="Surface flight-search-results")
    cards = surface.get_by_role("group")
    assert cards.count() == 3
    first = cards.first
    assert "United Airlines UA 123" in (first.text_content() or "")
    assert "SFO → JFK" in (first.text_content() or "")
    session.shot("flights")
    # A click is reported as the A2UI middleware reports it, and the agent answers.
    first.get_by_role("button", name="Select").click()
    session.wait_for_runs(2)
    call, result = session.runs[1]["messages"][-2:]
    assert call["toolCalls"][0]["function"]["name"] == "log_a2ui_event"
    assert json.loads(call["toolCalls"][0]["function"]["arguments"])["context"] == {
        "flightNumber": "UA 123",
        "airline": "United Airlines",
        "price": "$289",
    }
    assert result["content"].startswith('User performed action "select_flight"')
    session.transcript().get_by_text(
        "Done: select flight (UA 123, United Airlines, $289)"
    ).wait_for()
    assert first.get_by_role("button", name="Selected").is_disabled()  # Kept across redraws.
    session.shot("flight-selected")


def test_a_generated_surface_is_drawn(session: PageSession) -> None:
    session.open("a2ui_dynamic_schema")
    session.say("Compare 3 luxury hotels in different cities with ratings and prices.")
    session.wait_for_runs(1)
    request = session.runs[0]
    assert request["forwardedProps"] == {"injectA2UITool": True}
    assert [tool["name"] for tool in request["tools"]] == ["render_a2ui"]
    surface = session.page.get_by_role("region", name="Surface hotel-comparison")
    hotels = surface.get_by_role("group")
    assert hotels.count() == 3
    assert "★" in (hotels.first.text_content() or "")
    # The render call streamed as a subagent of generate_a2ui (this page speaks AG-UI 1.0).
    assert session.page.locator(".subagent [data-tool=render_a2ui]").count() == 1
    session.shot("hotels")


def test_a_failed_generation_is_shown_and_the_chat_goes_on(session: PageSession) -> None:
    session.open("a2ui_recovery")
    session.say("Compare 3 luxury hotels with ratings and prices.")
    session.wait_for_runs(1)
    session.page.get_by_role("region", name="Surface hotel-comparison").wait_for()
    assert session.page.locator(".subagent [data-tool=render_a2ui]").count() == 2  # One retry.
    session.say("Compare 3 broken hotels with ratings and prices.")
    session.wait_for_runs(2)
    failed = session.page.get_by_role("alert", name="Surface failed")
    assert failed.get_by_role("listitem").count() == 3
    session.transcript().get_by_text("I could not build a valid interface").wait_for()
    session.shot("failed")
    session.say("Thanks, tell me in words instead")
    session.wait_for_runs(3)
    assert session.page.locator(".run-card.error").count() == 0
