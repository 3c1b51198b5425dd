"""``GET /`` and the page's files: served from the examples project, nothing from elsewhere."""

from __future__ import annotations

import re

import httpx
import pytest

from page import CONTENT_SECURITY_POLICY, WEB_DIR

LOCAL_REFERENCE = re.compile(r'(?:src|href)="([^"]+)"|from\s+"(\./[^"]+)"|import\s+"(\./[^"]+)"')


async def test_root_serves_the_page_with_a_local_only_policy(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in CONTENT_SECURITY_POLICY
    assert "connect-src 'self'" in CONTENT_SECURITY_POLICY
    assert '<label for="message">Message</label>' in response.text
    assert '<textarea id="message"' in response.text


PAGE_FILES = sorted(p.relative_to(WEB_DIR).as_posix() for p in WEB_DIR.rglob("*") if p.is_file())


@pytest.mark.parametrize("name", PAGE_FILES)
async def test_every_page_file_is_served_and_loads_nothing_remote(
    client: httpx.AsyncClient, name: str
) -> None:
    response = await client.get(f"/web/{name}")
    assert response.status_code == 200
    assert response.text == (WEB_DIR / name).read_text(encoding="utf-8")
    if name.endswith(".js"):
        assert "javascript" in response.headers["content-type"]
    if name.startswith("vendor/"):
        # Vendored libraries name URLs (licences, XML namespaces) but fetch and import nothing.
        assert not re.search(r"\bfetch\(|XMLHttpRequest|\bimport\(|from\s*[\"']http", response.text)
        return
    assert not re.search(r"https?://(?!localhost:8031)", response.text), "no remote URL"
    assert "@import" not in response.text and "url(" not in response.text


async def test_every_local_reference_resolves(client: httpx.AsyncClient) -> None:
    sources = {"index.html": (await client.get("/")).text}
    sources.update({p.name: p.read_text(encoding="utf-8") for p in WEB_DIR.glob("*.js")})
    references = {
        target
        for text in sources.values()
        for match in LOCAL_REFERENCE.finditer(text)
        for target in match.groups()
        if target and not target.startswith("data:")
    }
    assert {"web/app.js", "web/page.css", "./agui.js", "./render.js"} <= references
    for target in references:
        path = "/" + target.removeprefix("./").removeprefix("/")
        if target.startswith("./"):
            path = "/web/" + target.removeprefix("./")
        assert (await client.get(path)).status_code == 200, target


async def test_example_routes_still_answer_beside_the_page(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).json()["status"] == "ok"
    assert (await client.get("/web/missing.js")).status_code == 404
