"""Pictures and hosted tools at work, in a real browser on the offline demo model: a chart a
tool drew is shown as an image; a generated picture is followed live (its activity goes from
generating, through partial images, to done) and then shown; links are made only from safe
addresses.

``media_paced`` serves the shipped ``media_results`` agent with a pause after each activity
event, so that every state of the activity reaches the screen (the demo model streams in a
moment); what the page shows is recorded by a MutationObserver, not timed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from ag_ui.core import EventType, RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui_openai_agents import OpenAIAgentsAgent
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from support.e2e import serve_app

from agents_examples import EXAMPLES, Example, ExampleSettings, media_results
from agents_examples.settings import browser_thread_key
from browser_page import PageSession
from page_app import page_test_app

pytestmark = pytest.mark.slow

_ACTIVITY = {EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA}
_PAUSE_SECONDS = 0.4


def _mount_paced(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    wrapped = OpenAIAgentsAgent(
        media_results.build_agent(settings),
        name="media_paced",
        run_config=settings.run_config,
        threads=settings.threads,
        thread_key=browser_thread_key,
    )

    @app.post(path)
    async def run(body: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder()

        async def stream() -> AsyncIterator[str]:
            async for event in wrapped.run_streamed(body, request=request):
                yield encoder.encode(event)
                if event.type in _ACTIVITY:
                    await asyncio.sleep(_PAUSE_SECONDS)  # lets the page paint each state

        return StreamingResponse(stream(), media_type=encoder.get_content_type())


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    paced = Example(
        "media_paced",
        "Test only: media_results with a pause after each activity event.",
        media_results.build_agent,
        _mount_paced,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(EXAMPLES, "media_paced", paced)
        with page_test_app() as app, serve_app(app) as url:
            yield url


_WATCH = """() => {
  window.seenActivity = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[data-activity]')) {
      const partial = el.querySelector('img.activity-image');
      window.seenActivity.push([el.dataset.activity, el.dataset.status,
        partial ? partial.dataset.index : null, partial ? partial.naturalWidth : 0]);
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def _image_width(session: PageSession, selector: str) -> int:
    image = session.transcript().locator(selector).last
    image.wait_for()
    width = image.evaluate(
        "img => img.complete ? img.naturalWidth"
        " : new Promise(ok => { img.onload = () => ok(img.naturalWidth); })"
    )
    return int(width)


def test_a_chart_from_a_tool_is_shown_as_an_image(session: PageSession) -> None:
    session.open("media_results")
    session.say("Draw a chart of monthly visitors")
    session.wait_for_runs(1)
    call = session.page.get_by_role("group", name="Tool call draw_chart")
    parts = call.get_by_label("Result parts")
    assert "Monthly visitors, Jan to Jun" in (parts.text_content() or "")
    assert _image_width(session, '[data-tool="draw_chart"] img.result-image') == 320
    assert call.locator(".tool-status").text_content() == "done"
    session.shot("chart")


def test_a_generated_image_is_followed_live_then_shown(session: PageSession) -> None:
    session.open("media_paced")
    session.page.evaluate(_WATCH)
    session.say("Generate a picture of a sunset")
    session.wait_for_runs(1)
    seen: list[list[Any]] = session.page.evaluate("window.seenActivity")
    states = list(dict.fromkeys((kind, status, index) for kind, status, index, _ in seen))
    assert ("image_generation", "generating", None) in states
    partials = [s for s in seen if s[2] is not None]
    assert {s[2] for s in partials} == {"0", "1"}, "both partial images appeared"
    assert states.index(("image_generation", "generating", "0")) < states.index(
        ("image_generation", "completed", None)
    )
    activity = session.transcript().locator('[data-activity="image_generation"]')
    assert activity.get_attribute("data-status") == "completed"
    assert "done" in (activity.locator(".activity-status").text_content() or "")
    assert _image_width(session, '[data-tool="image_generation_call"] img.result-image') == 128
    session.shot("generated-image")


def test_links_and_pictures_come_only_from_safe_addresses(session: PageSession) -> None:
    session.open()
    verdicts = session.page.evaluate(
        """async () => {
          const { safeMediaUrl } = await import('/web/media.js');
          return [
            'javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<b>x</b>',
            'vbscript:x', '//evil.example/x', '/agent/media/../../etc',
            'https://example.com/report.pdf', '/media_results/media/' + '0a'.repeat(16),
          ].map((value) => safeMediaUrl(value));
        }"""
    )
    assert verdicts == [
        None,
        None,
        None,
        None,
        None,
        None,
        "https://example.com/report.pdf",
        "/media_results/media/" + "0a" * 16,
    ]
