"""Test setup: offline, no network, SDK tracing off, the project's stream checker importable.

Tiers, as in the package's suite: a test is ``slow`` when it runs a real AG-UI client under
Node, CopilotKit's runtime, the browser or a server process; the others (in-process, over
httpx) are the fast tier, which ``pytest -m "not slow"`` selects. Each slow test is marked
itself (``pytestmark = pytest.mark.slow`` for a whole file, ``@pytest.mark.slow`` for one).
"""

from __future__ import annotations

import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import PROTOCOL_VERSION
from agents import set_tracing_disabled

# The repository's own tests hold the AG-UI stream checker (support.invariants).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from agents_examples import ExampleSettings
from server import create_app

set_tracing_disabled(True)

_LOCAL_HOSTS = {"127.0.0.1", "::1", "localhost"}
_connect = socket.socket.connect


def _local_only(sock: socket.socket, address: Any) -> None:
    """Refuse any connection that would leave the machine."""
    host = address[0] if isinstance(address, tuple) else None
    if host is not None and host not in _LOCAL_HOSTS:
        raise RuntimeError(f"tests must stay offline, refused a connection to {address!r}")
    _connect(sock, address)


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No API key, no tracing export, no outbound sockets."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "true")
    monkeypatch.setattr(socket.socket, "connect", _local_only)


@pytest.fixture
def settings() -> ExampleSettings:
    """Every example on the offline demo model."""
    return ExampleSettings.offline_demo()


@pytest.fixture
async def client(settings: ExampleSettings) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client talking to the example server in-process."""
    transport = httpx.ASGITransport(app=create_app(settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


@pytest.fixture(params=[PROTOCOL_VERSION, None], ids=["v1.0-client", "pre-1.0-client"])
def protocol_version(request: pytest.FixtureRequest) -> str | None:
    """Both kinds of client: one that sends ``protocolVersion`` and one that leaves it out
    (as everything behind CopilotKit's runtime does)."""
    value: str | None = request.param
    return value


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright, for the page tests (skipped when not installed)."""
    from browser_page import launch_chromium

    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    """The example server (plus its test-only examples) on a free local port."""
    from support.e2e import serve_app

    from page_app import page_test_app

    with page_test_app() as app, serve_app(app) as url:
        yield url


@pytest.fixture
def session(browser: Any, page_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page on the example server; fails on console errors or other hosts."""
    from browser_page import page_session

    with page_session(browser, page_url, request.node.name) as page:
        yield page
