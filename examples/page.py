"""The examples page: ``GET /`` serves ``web/index.html``, ``/web/*`` its scripts and styles.

Everything the page needs ships in ``web/``; the Content-Security-Policy keeps the browser from
loading anything from another host, so the page works with no network.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["CONTENT_SECURITY_POLICY", "WEB_DIR", "mount_page"]

WEB_DIR = Path(__file__).resolve().parent / "web"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}


def mount_page(app: FastAPI) -> None:
    """Add ``GET /`` (the page) and ``/web`` (its files) to ``app``."""

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html", headers=_HEADERS)

    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")
