"""The examples page: ``GET /`` serves ``web/index.html``, ``/web/*`` its scripts and styles.

The page sets the browser's thread scope cookie (``agui_scope``) on its first load, so the
threads the examples keep on the server are that browser's own.

Everything the page needs ships in ``web/``; the Content-Security-Policy keeps the browser from
loading anything from another host, so the page works with no network.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from agents_examples.settings import SCOPE_COOKIE

__all__ = ["CONTENT_SECURITY_POLICY", "WEB_DIR", "mount_page"]

WEB_DIR = Path(__file__).resolve().parent / "web"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}
_YEAR = 365 * 24 * 3600


def mount_page(app: FastAPI) -> None:
    """Add ``GET /`` (the page) and ``/web`` (its files) to ``app``."""

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> FileResponse:
        page = FileResponse(WEB_DIR / "index.html", media_type="text/html", headers=_HEADERS)
        if not request.cookies.get(SCOPE_COOKIE):
            # This browser's threads are kept under a scope of its own (browser_thread_key).
            scope = secrets.token_urlsafe(24)
            page.set_cookie(SCOPE_COOKIE, scope, httponly=True, samesite="strict", max_age=_YEAR)
        return page

    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")
