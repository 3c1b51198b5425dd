"""Threads kept on the server, in a real browser: a page reloaded mid-conversation gets its
messages and its state back, and one reloaded mid-approval gets the pending approval back and
can decide it. The reload asks with no message at all; the server answers from its store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui_openai_agents.threads import SQLiteThreadStore

from agents_examples import ExampleSettings
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


def reload(session: PageSession) -> None:
    """Reload the page, as a person does, and wait for the server's answer."""
    session.page.reload()
    session.wait_for_runs(1)


def state_of(session: PageSession) -> Any:
    return json.loads(session.page.get_by_label("Shared state JSON").text_content() or "")


def test_a_reload_restores_the_conversation_and_its_state(kept: PageSession) -> None:
    kept.open("shopping_list")
    kept.say("Add an item for oat milk")
    kept.wait_for_runs(1)
    assert state_of(kept) == {"items": ["oat milk"]}
    before = kept.transcript().locator(".message .text").all_text_contents()
    thread = kept.runs[0]["threadId"]

    reload(kept)

    asked = kept.runs[-1]
    assert asked["threadId"] == thread and asked["messages"] == [] and "resume" not in asked
    assert kept.transcript().locator(".message .text").all_text_contents() == before
    assert state_of(kept) == {"items": ["oat milk"]}
    kept.shot("restored")
    kept.say("Add an item for rye bread")
    kept.wait_for_runs(2)
    assert kept.runs[-1]["state"] == {"items": ["oat milk"]}
    assert state_of(kept) == {"items": ["oat milk", "rye bread"]}
    kept.shot("continued")


def test_a_reload_restores_a_pending_approval(kept: PageSession) -> None:
    kept.open("human_in_the_loop_approval")
    kept.say("Please refund 30 dollars on order A-17")
    kept.wait_for_runs(1)
    kept.page.get_by_role("button", name="Approve").wait_for()

    reload(kept)

    card = kept.page.get_by_role("group", name="Interrupt tool_approval")
    assert '"order_id": "A-17"' in (card.text_content() or "")
    call = kept.page.get_by_role("group", name="Tool call issue_refund")
    assert call.locator(".tool-status").text_content() == "waiting for approval"
    kept.shot("approval-restored")
    kept.page.get_by_role("button", name="Approve", exact=True).click()
    kept.wait_for_runs(2)
    result = call.locator(".tool-result")
    assert result.text_content() == "Refunded 30.00 USD on order A-17."
    assert kept.runs[-1]["resume"][0]["payload"] == {"approved": True}

    reload(kept)

    assert kept.page.get_by_role("button", name="Approve").count() == 0
    restored = kept.page.get_by_role("group", name="Tool call issue_refund")
    assert restored.locator(".tool-result").text_content() == "Refunded 30.00 USD on order A-17."
    kept.shot("approval-decided-and-restored")


def test_a_reload_restores_a_frontend_tool_waiting_for_the_user(kept: PageSession) -> None:
    kept.open("human_in_the_loop")
    kept.say("Plan the steps to bake a cake")
    kept.wait_for_runs(1)
    kept.page.get_by_role("button", name="Confirm").wait_for()

    reload(kept)

    steps = kept.page.get_by_role("list", name="Proposed steps").get_by_role("checkbox")
    steps.nth(2).wait_for()
    assert kept.page.get_by_role("button", name="Send").is_disabled()
    kept.shot("steps-restored")
    kept.page.get_by_role("button", name="Confirm").click()
    kept.wait_for_runs(2)
    answer = kept.runs[-1]["messages"][-1]
    assert answer["role"] == "tool" and answer["content"].startswith("The user kept these steps")
    reply = kept.transcript().locator(".message.assistant .text").last.inner_text()
    assert reply.startswith("Great, here is the plan with the 7 steps you kept:")
    assert kept.page.get_by_role("button", name="Send").is_enabled()


def test_a_reload_restores_the_shared_recipe(kept: PageSession) -> None:
    """The shared_state example keeps its thread: the recipe the agent wrote comes back with
    the conversation after a reload, from the server's store."""
    kept.open("shared_state")
    kept.say("Create a delicious Italian pasta recipe.")
    kept.wait_for_runs(1)
    recipe = kept.page.get_by_role("region", name="Recipe")
    recipe.get_by_role("heading", name="Garlic Tomato Pasta").wait_for()
    before = kept.transcript().locator(".message .text").all_text_contents()

    reload(kept)

    asked = kept.runs[-1]
    assert asked["messages"] == [] and "resume" not in asked
    recipe = kept.page.get_by_role("region", name="Recipe")
    recipe.get_by_role("heading", name="Garlic Tomato Pasta").wait_for()
    assert state_of(kept)["recipe"]["title"] == "Garlic Tomato Pasta"
    assert kept.transcript().locator(".message .text").all_text_contents() == before
    kept.shot("recipe-restored")
