"""Runs that outlive the page, in a real browser: the examples page reloaded mid-answer gets
the rest of the answer (the server joins the live run), a page behind a proxy that cuts every
stream after a few kilobytes still shows the whole answer (the page resumes each drop with
``Last-Event-ID``), and its Stop button stops the run on the server.

A test-only example, ``long_story``, answers with a long text on a scripted model; held after
a number of words until the test opens its gate, so a reload or a stop finds the run live
without depending on timing. The cuts are counted in bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.threads import SQLiteThreadStore
from agents import Agent, RunConfig
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from support.cutting_proxy import cutting_proxy
from support.e2e import serve_app
from support.partial_turns import GUARD_SECONDS
from support.reconnect import LONG_ANSWER, HeldModel
from support.scripted import ScriptedProvider

from agents_examples import EXAMPLES, Example, ExampleSettings
from agents_examples.settings import browser_thread_key
from browser_page import PageSession, page_session
from server import create_app

pytestmark = pytest.mark.slow

EXAMPLE = "long_story"
HOLD_AFTER = 40
"""The held run stops after this many words until the test lets it go on."""
CUT_AFTER_BYTES = 8000
"""Larger than any one event, a small part of the answer's stream (about 70 kB)."""
DROPPED = re.compile(r"net::ERR_|Failed to load resource")
"""Chromium logs each stream the proxy cuts (and each request a reload cancels)."""


def _example(model: HeldModel) -> Example:
    def build(settings: ExampleSettings) -> Agent[Any]:
        return Agent(name="Storyteller", instructions="Tell a long story.")

    def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
        config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
        wrapped = OpenAIAgentsAgent(
            build(settings),
            name=EXAMPLE,
            run_config=config,
            threads=settings.threads,
            thread_key=browser_thread_key,
        )
        add_openai_agents_fastapi_endpoint(app, wrapped, path)

    return Example(EXAMPLE, "A long answer (test only).", build, mount, keeps_threads=True)


class OpenGateOnRestore:
    """Opens ``model.gate`` once the answer to a request for the thread (a reload: no message)
    has started, so the reload joins the held run before it goes on."""

    def __init__(self, app: ASGIApp, model: HeldModel) -> None:
        self.app, self.model = app, model

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != f"/{EXAMPLE}":
            await self.app(scope, receive, send)
            return
        body = b""

        async def reading() -> Message:
            nonlocal body
            message = await receive()
            body += message.get("body", b"")
            return message

        async def opening(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start" and b'"messages":[]' in body:
                self.model.gate.set()

        await self.app(scope, reading, opening)


@contextmanager
def story_server(tmp_path: Path, hold_after: int | None) -> Iterator[tuple[str, HeldModel]]:
    model = HeldModel(hold_after)
    settings = ExampleSettings.offline_demo(threads=SQLiteThreadStore(tmp_path / "threads.db"))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setitem(EXAMPLES, EXAMPLE, _example(model))
            app = OpenGateOnRestore(create_app(settings), model)
            with serve_app(app) as url:
                yield url, model
    finally:
        model.gate.set()


def answer_shown(session: PageSession) -> str:
    texts = session.transcript().locator(".message.assistant .text").all_inner_texts()
    return " ".join(text.strip() for text in texts)


def wait_held(session: PageSession, model: HeldModel) -> None:
    assert model.reached.wait(GUARD_SECONDS)
    session.transcript().get_by_text("Part 1:", exact=False).wait_for()


def test_a_reload_mid_answer_streams_the_rest_in(browser: Any, tmp_path: Path) -> None:
    with (
        story_server(tmp_path, HOLD_AFTER) as (url, model),
        page_session(browser, url, "reload-mid-answer") as session,
    ):
        session.allowed_console.append(DROPPED)
        session.open(EXAMPLE)
        session.say("Tell me a story")
        wait_held(session, model)
        assert not model.gate.is_set()
        session.shot("held")

        session.page.reload()
        session.wait_for_runs(1)

        first, asked = session.runs[0], session.runs[-1]
        assert asked["threadId"] == first["threadId"] and asked["messages"] == []
        assert answer_shown(session) == LONG_ANSWER
        user = session.transcript().locator(".message.user .text").all_inner_texts()
        assert [text.strip() for text in user] == ["Tell me a story"]
        assert session.event_types()[:4] == [
            "REQUEST",
            "RUN_STARTED",
            "STATE_SNAPSHOT",
            "MESSAGES_SNAPSHOT",
        ]
        assert session.event_types()[-1] == "RUN_FINISHED"
        assert session.page.locator("#errors p").count() == 0
        session.shot("joined")


def test_through_a_proxy_that_cuts_every_stream_the_answer_completes(
    browser: Any, tmp_path: Path
) -> None:
    with story_server(tmp_path, None) as (url, _):
        with page_session(browser, url, "straight") as session:
            session.open(EXAMPLE)
            session.say("Tell me a story")
            session.wait_for_runs(1)
            straight_text, straight_types = answer_shown(session), session.event_types()
        with (
            cutting_proxy(url, cut_after_bytes=CUT_AFTER_BYTES, streams_only=True) as proxy,
            page_session(browser, proxy.url, "cut") as session,
        ):
            session.allowed_console.append(DROPPED)
            session.open(EXAMPLE)
            session.say("Tell me a story")
            session.wait_for_runs(1)
            cut_text, cut_types = answer_shown(session), session.event_types()
            posts = list(session.runs)
            assert session.page.locator("#errors p").count() == 0
            session.shot("completed-through-cuts")

    assert straight_text == cut_text == LONG_ANSWER
    assert cut_types == straight_types
    assert proxy.cuts >= 5
    assert len(posts) >= 6 and all(post == posts[0] for post in posts)  # one run, resent


def test_the_stop_button_stops_the_run_on_the_server(browser: Any, tmp_path: Path) -> None:
    with (
        story_server(tmp_path, HOLD_AFTER) as (url, model),
        page_session(browser, url, "stop") as session,
    ):
        session.allowed_console.append(DROPPED)
        session.open(EXAMPLE)
        session.say("Tell me a story")
        wait_held(session, model)
        with session.page.expect_request(f"{url}/{EXAMPLE}/stop") as stopping:
            session.page.get_by_role("button", name="Stop").click()
        assert stopping.value.post_data_json == {
            "threadId": session.runs[0]["threadId"],
            "runId": session.runs[0]["runId"],
        }
        session.wait_for_runs(1)

        session.page.reload()  # the thread as the server kept it: what was said before the stop
        session.wait_for_runs(1)

        kept = answer_shown(session)
        assert kept and LONG_ANSWER.startswith(kept) and kept != LONG_ANSWER
        assert session.page.get_by_role("button", name="Send").is_enabled()
        session.shot("stopped-and-kept")
