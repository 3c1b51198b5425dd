"""The examples page in a real browser: the list, the chat, what each example shows, errors.

Each test drives the page as a person would (click, type, press Enter) on the offline demo
model, fails on any console error or request to another host, and keeps a screenshot of each
step under ``tests/artifacts/browser/``.
"""

from __future__ import annotations

import json
import re

import pytest

from agents_examples import EXAMPLES
from browser_page import PageSession
from page_app import FACT_CHECK, RESEARCH

pytestmark = pytest.mark.slow

SHIPPED = dict(EXAMPLES)  # before the test-only examples are added


def snapshot_ids(session: PageSession) -> list[str]:
    """Message ids of the last run's MESSAGES_SNAPSHOT, read from the event log panel."""
    entry = session.page.locator('#event-log li[data-type="MESSAGES_SNAPSHOT"] pre')
    return [m["id"] for m in json.loads(entry.text_content() or "{}")["messages"]]


def test_page_lists_every_example_with_its_prompt(session: PageSession) -> None:
    session.open()
    nav = session.page.get_by_role("navigation", name="Examples")
    names = nav.locator(".example-name").all_text_contents()
    assert names[: len(SHIPPED)] == list(SHIPPED)
    for name, example in SHIPPED.items():
        button = nav.get_by_role("button", name=re.compile(rf"^{name}\b"))
        assert example.description in (button.text_content() or "")
        assert "“" in (button.text_content() or ""), f"{name} shows no suggested prompt"
    session.shot("examples-listed")


def test_chat_streams_reasoning_text_usage_and_keeps_snapshot_ids(session: PageSession) -> None:
    session.open("agentic_chat")
    session.page.get_by_role("button", name="Say hello in one sentence.", exact=True).click()
    session.page.get_by_role("textbox", name="Message").press("Enter")
    card = session.wait_for_runs(1)
    session.shot("first-reply")
    reply = session.transcript().locator(".message.assistant .text").last
    assert reply.inner_text().strip() == "Hello! I'm glad you're here. What can I do for you today?"
    types = session.event_types()
    assert types[:2] == ["REQUEST", "RUN_STARTED"] and types[-1] == "RUN_FINISHED"
    assert types.count("TEXT_MESSAGE_CONTENT") > 1, "the reply arrives in several deltas"
    assert "success" in (card.text_content() or "")
    assert "Chat assistant ✓" in (card.text_content() or "")
    assert re.search(r"gpt-4\.1-mini: in \d+, out \d+, total \d+", card.text_content() or "")
    assert session.runs[0]["protocolVersion"] == "1.0"

    reasoning = session.transcript().locator("details.reasoning").first
    assert reasoning.get_attribute("open") is None, "finished reasoning starts collapsed"
    reasoning.locator("summary").click()
    reasoning.locator(".reasoning-text").wait_for(state="visible")
    session.shot("reasoning-open")

    first_ids = snapshot_ids(session)
    session.say("And now in French?")
    session.wait_for_runs(2)
    sent = session.runs[1]["messages"]
    assert [m["id"] for m in sent[:-1]] == first_ids, "history is the snapshot, ids kept"
    assert sent[-1]["role"] == "user" and sent[-1]["content"] == "And now in French?"
    assert snapshot_ids(session)[: len(first_ids)] == first_ids
    assert len(session.transcript().locator(".message.user").all()) == 2
    session.shot("second-reply")


def test_backend_tool_result_is_drawn_as_a_weather_card(session: PageSession) -> None:
    session.open("backend_tool_rendering")
    session.say("What's the weather in Paris?")
    session.wait_for_runs(1)
    call = session.page.get_by_role("group", name="Tool call get_weather")
    assert json.loads(call.get_by_label("Arguments of get_weather").text_content() or "") == {
        "city": "Paris"
    }
    card = call.get_by_role("group", name="Weather in Paris")
    assert "°C" in (card.text_content() or "")
    assert call.locator(".tool-status").text_content() == "done"
    session.shot("weather-card")


def test_custom_lifecycle_events_appear_on_the_run(session: PageSession) -> None:
    session.open("custom_lifecycle_events")
    session.say("Count the words in: the quick brown fox")
    card = session.wait_for_runs(1)
    logged = session.page.locator('#event-log li[data-type="CUSTOM"] pre').all_text_contents()
    names = [json.loads(text)["name"] for text in logged]
    assert names, "the example sends custom events"
    shown = card.locator(".custom-event").evaluate_all("els => els.map(e => e.dataset.name)")
    assert shown == names
    total = len(session.event_types()) - 1  # the log lists the request first
    positions = card.locator(".custom-position").all_text_contents()
    assert positions[0].strip() == f"event 2 of {total}", "the start event follows RUN_STARTED"
    assert positions[-1].strip() == f"event {total - 1} of {total}", (
        "the end event precedes RUN_FINISHED"
    )
    assert "count_words" in (session.transcript().text_content() or "")
    session.shot("custom-events")


def test_context_panel_feeds_the_dynamic_prompt(session: PageSession) -> None:
    session.open("dynamic_system_prompt")
    context = session.page.get_by_label("RunAgentInput.context")
    assert "User name" in context.input_value()
    context.fill(json.dumps([{"description": "User name", "value": "Grace"}]))
    session.say("Who am I?")
    session.wait_for_runs(1)
    assert session.runs[0]["context"] == [{"description": "User name", "value": "Grace"}]
    assert "Grace" in (session.transcript().locator(".message.assistant").last.text_content() or "")
    session.shot("context-reply")


def test_state_view_follows_state_snapshots_and_is_sent_back(session: PageSession) -> None:
    session.open("shopping_list")
    state = session.page.get_by_label("Shared state JSON")
    assert json.loads(state.text_content() or "") == {}
    session.say("Add an item for oat milk")
    session.wait_for_runs(1)
    assert "STATE_SNAPSHOT" in session.event_types()
    assert json.loads(state.text_content() or "") == {"items": ["oat milk"]}
    session.shot("state-after-first")
    session.say("Add an item for rye bread")
    session.wait_for_runs(2)
    assert session.runs[1]["state"] == {"items": ["oat milk"]}
    assert json.loads(state.text_content() or "") == {"items": ["oat milk", "rye bread"]}
    session.shot("state-after-second")


def test_subagents_are_nested_panels(session: PageSession) -> None:
    session.open("subagent_stream")
    session.say("Research solar panels and write a short summary")
    session.wait_for_runs(1)
    research_call = session.page.get_by_role("group", name="Tool call research_topic")
    researcher = research_call.get_by_role("region", name="Subagent Researcher")
    assert RESEARCH in (researcher.text_content() or "")
    assert "finished" in (researcher.locator("header").first.text_content() or "")
    checker = researcher.get_by_role("group", name="Tool call check_facts").get_by_role(
        "region", name="Subagent Fact checker"
    )
    assert FACT_CHECK in (checker.text_content() or "")
    writer = session.page.get_by_role("group", name="Tool call write_prose").get_by_role(
        "region", name="Subagent Writer"
    )
    assert "failed" in (writer.text_content() or "")
    assert "The writer could not finish." in (writer.text_content() or "")
    # Subagent work is shown only inside its panel, not again in the main thread.
    state = json.loads(session.page.get_by_label("Shared state JSON").text_content() or "")
    assert state == {"stage": "write", "done": ["research"]}, "STATE_DELTA applied"
    top_level = session.transcript().locator(".message.assistant:not(.subagent .message) > .text")
    assert RESEARCH not in "".join(top_level.all_text_contents())
    session.shot("subagent-panels")


def test_subagents_example_streams_its_specialists_as_panels(session: PageSession) -> None:
    session.open("subagents")
    session.say("Write a short article about the history of AI")
    session.wait_for_runs(1)
    started = session.page.locator('#event-log li[data-type="SUBAGENT_STARTED"] pre')
    names = [json.loads(text)["name"] for text in started.all_text_contents()]
    assert len(names) == 3
    for tool, name in zip(("research_topic", "write_prose", "critique_draft"), names, strict=True):
        panel = session.page.get_by_role("group", name=f"Tool call {tool}").get_by_role(
            "region", name=f"Subagent {name}"
        )
        assert "finished" in (panel.locator("header").text_content() or "")
        assert panel.locator(".tool-call").count() >= 1, "the specialist's own tool call"
    session.shot("subagents")


def test_run_error_is_shown_on_the_page(session: PageSession) -> None:
    session.open("failing_model")
    session.say("Hello?")
    card = session.wait_for_runs(1)
    alert = session.page.locator("#errors")
    assert "Run failed" in (alert.text_content() or "")
    assert "error" in (card.locator(".run-outcome").text_content() or "")
    assert session.event_types()[-1] == "RUN_ERROR"
    assert session.page.get_by_role("button", name="Send").is_enabled()
    session.shot("run-error")


def test_network_failure_is_shown_on_the_page(session: PageSession) -> None:
    session.allowed_console.append(re.compile(r"Failed to load resource: net::ERR_FAILED"))
    session.open("agentic_chat")
    session.page.route("**/agentic_chat", lambda route: route.abort("failed"))
    session.say("Are you there?")
    session.wait_for_runs(1)
    assert "Network failure" in (session.page.locator("#errors").text_content() or "")
    session.shot("network-failure")


def test_refused_request_is_shown_on_the_page(session: PageSession) -> None:
    session.allowed_console.append(re.compile(r"status of 503"))
    session.open("agentic_chat")
    session.page.route(
        "**/agentic_chat", lambda route: route.fulfill(status=503, body="server busy")
    )
    session.say("Are you there?")
    session.wait_for_runs(1)
    alert = session.page.locator("#errors").text_content() or ""
    assert "Request refused: HTTP 503" in alert and "server busy" in alert
    session.shot("http-error")


@pytest.mark.parametrize("name", list(SHIPPED))
def test_every_example_answers_its_suggested_prompt(session: PageSession, name: str) -> None:
    session.open(name)
    session.page.locator("#suggested button").click()
    session.page.get_by_role("textbox", name="Message").press("Enter")
    card = session.wait_for_runs(1)
    session.shot("answered")
    assert session.page.locator("#errors").text_content() == ""
    assert not card.locator(".run-outcome").text_content().startswith("error")  # type: ignore[union-attr]
    assert session.transcript().locator(".message.assistant, .tool-call").count() > 0
    # The answers read as a person reads them: no tool's JSON, no instructions quoted back.
    texts = session.transcript().locator(".message.assistant .markdown").all_inner_texts()
    for text in texts:
        assert not re.search(r"[{\[]\s*\"", text), f"raw JSON in the assistant's text: {text}"
        assert "My instructions" not in text and "You said:" not in text
