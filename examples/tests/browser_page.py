"""Drive the examples page in Debian's Chromium through Playwright, as a person would.

Every page opened here records console errors, uncaught page errors and any request to a
host other than the example server; :meth:`PageSession.check_clean` fails the test on any of
them. Each step can keep a screenshot under ``tests/artifacts/browser/`` (not committed).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, Request, sync_playwright

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "browser"
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")
# Flags that keep Chromium quiet and offline: no first-run tasks, no background fetches.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Debian's Chromium, or skip (fail under CI, whose script installs it)."""
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    message = "Chromium is not installed (apt-get install -y chromium): browser tests skipped"
    if os.environ.get("CI"):
        pytest.fail(f"{message}, but CI must run them: .ci/run installs chromium")
    pytest.skip(message)


@contextmanager
def launch_chromium() -> Iterator[Browser]:
    """A headless Chromium driven by Playwright (no browser download: the system one)."""
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageSession:
    """One page of the examples app, with what it logged and requested."""

    page: Page
    base_url: str
    folder: Path
    console_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    allowed_console: list[re.Pattern[str]] = field(default_factory=list)
    shots: int = 0

    def record(self) -> None:
        """Listen to the console, page errors and every request the page makes."""
        origin = urlsplit(self.base_url).netloc

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.console_errors.append(message.text)

        def on_request(request: Request) -> None:
            parts = urlsplit(request.url)
            if parts.scheme not in ("data", "blob") and parts.netloc != origin:
                self.foreign_requests.append(request.url)
            if request.method == "POST":
                self.runs.append(json.loads(request.post_data or "null"))

        self.page.on("console", on_console)
        self.page.on("pageerror", lambda error: self.console_errors.append(f"page error: {error}"))
        self.page.on("request", on_request)

    def shot(self, step: str) -> Path:
        """Keep a screenshot of this step as a test artifact."""
        self.shots += 1
        path = self.folder / f"{self.shots:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def check_clean(self) -> None:
        errors = [
            text
            for text in self.console_errors
            if not any(pattern.search(text) for pattern in self.allowed_console)
        ]
        assert errors == [], f"console errors: {errors}"
        assert self.foreign_requests == [], f"requests to other hosts: {self.foreign_requests}"

    # ---- what a person does -------------------------------------------------------------

    def open(self, example: str | None = None) -> None:
        """Open the page and, if given, pick an example from the list."""
        self.page.goto(self.base_url + "/")
        self.page.get_by_role("navigation", name="Examples").get_by_role("button").first.wait_for()
        if example is not None:
            self.pick(example)

    def pick(self, example: str) -> None:
        nav = self.page.get_by_role("navigation", name="Examples")
        nav.get_by_role("button", name=re.compile(rf"^{re.escape(example)}\b")).click()
        self.page.get_by_role("heading", name=example, exact=True).wait_for()

    def say(self, text: str) -> None:
        """Type into the message box and press Enter."""
        box = self.page.get_by_role("textbox", name="Message")
        box.fill(text)
        box.press("Enter")

    def wait_for_runs(self, count: int) -> Locator:
        """Wait until ``count`` runs have finished (their card shows an outcome)."""
        cards = self.page.locator(".run-card:not(.running)")
        cards.nth(count - 1).wait_for()
        self.page.locator(".run-card.running").wait_for(state="detached")
        return cards.nth(count - 1)

    def transcript(self) -> Locator:
        return self.page.get_by_role("log", name="Conversation")

    def event_types(self) -> list[str]:
        """The event types listed in the side panel (the last run's raw events)."""
        log = self.page.get_by_role("list", name="Event log")
        types = log.locator("li").evaluate_all("items => items.map(item => item.dataset.type)")
        return [str(name) for name in types]


@contextmanager
def page_session(browser: Browser, base_url: str, name: str) -> Iterator[PageSession]:
    """A fresh browser context and page; fails the test on console errors or foreign hosts."""
    folder = ARTIFACTS / re.sub(r"[^\w.-]+", "_", name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(20_000)
    session = PageSession(context.new_page(), base_url, folder)
    session.record()
    try:
        yield session
        session.check_clean()
    finally:
        context.close()
