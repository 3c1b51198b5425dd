"""Serve every example on one FastAPI app, each under ``/<name>``.

    uv run python server.py                 # HOST (127.0.0.1) and PORT (8031) from the environment
    uv run uvicorn server:create_app --factory --port 8031

Open http://localhost:8031 for a page that tries every example in the browser.

Settings come from the environment, after loading ``.env`` if there is one. Without
``OPENAI_API_KEY`` every example runs on the offline demo model, so the server works with no
network and no account. The examples that say so (``KEEPS_THREADS``) keep their threads on the
server: in the SQLite file ``AG_UI_THREADS_DB`` (``threads.db``), or in Redis when
``REDIS_URL`` names a server; the page restores a conversation after a reload.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import uvicorn
from ag_ui_openai_agents.server.limits import DEFAULT_MAX_REQUEST_BYTES, RequestLimitMiddleware
from agents import set_tracing_disabled
from dotenv import load_dotenv
from fastapi import FastAPI
from fastapi.routing import APIRoute

from agents_examples import ALIASES, EXAMPLES, ExampleSettings, settings_from_env
from page import mount_page

logger = logging.getLogger("examples.server")


def load_settings() -> ExampleSettings:
    """Read ``.env`` and the environment; say so once when running on the demo model."""
    load_dotenv()
    settings = settings_from_env()
    if settings.offline:
        set_tracing_disabled(True)
        logger.warning("OPENAI_API_KEY is not set: every example runs on the offline demo model.")
    return settings


def serve_both_slash_forms(app: FastAPI) -> None:
    """Answer every route also with (or without) a trailing slash, instead of a 307 redirect:
    AG-UI clients such as the Dojo's ``HttpAgent`` post to ``<route>/``."""
    routes = [route for route in app.router.routes if isinstance(route, APIRoute)]
    taken = {(route.path, method) for route in routes for method in route.methods}
    for route in routes:
        twin = route.path[:-1] if route.path.endswith("/") else f"{route.path}/"
        methods = sorted(m for m in route.methods if (twin, m) not in taken)
        if route.path == "/" or not methods:
            continue
        app.router.add_api_route(
            twin,
            route.endpoint,
            methods=methods,
            name=route.name,
            response_model=route.response_model,
            response_class=route.response_class,
            dependencies=route.dependencies,
            include_in_schema=False,
            route_class_override=type(route),
        )


def create_app(
    settings: ExampleSettings | None = None,
    *,
    max_request_bytes: int | None = DEFAULT_MAX_REQUEST_BYTES,
) -> FastAPI:
    """Build the app with all examples mounted (settings read from the environment if None).

    The routes written by hand cap their bodies at ``max_request_bytes`` (HTTP 413 above it)
    and keep their 422s short, as the shortcut's routes do with their own cap.
    """
    settings = settings or load_settings()
    app = FastAPI(title="AG-UI examples for the OpenAI Agents SDK")
    # The shortcut's routes cap their own bodies (after their dependencies); the routes
    # written by hand get the same cap and short 422s from the middleware.
    by_hand = [e.path for e in EXAMPLES.values() if e.written_by_hand]
    by_hand += [f"/{alias}" for alias, name in ALIASES.items() if EXAMPLES[name].written_by_hand]
    app.add_middleware(RequestLimitMiddleware, max_request_bytes=max_request_bytes, paths=by_hand)
    for example in EXAMPLES.values():
        example.mount(app, example.path, settings)
    for alias, name in ALIASES.items():
        EXAMPLES[name].mount(app, f"/{alias}", settings)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": settings.model,
            "offline_demo": settings.offline,
            "threads": type(settings.threads).__name__ if settings.threads else None,
            "demos": [
                {
                    "name": e.name,
                    "path": e.path,
                    "description": e.description,
                    "keeps_threads": e.keeps_threads and settings.threads is not None,
                }
                for e in EXAMPLES.values()
            ],
            "aliases": {f"/{alias}": f"/{name}" for alias, name in ALIASES.items()},
        }

    serve_both_slash_forms(app)
    mount_page(app)  # GET /: a page to try every example in the browser
    return app


def main() -> None:
    """Run the server with uvicorn."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app()
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8031"))
    uvicorn.run(app, host=host, port=port)


if __name__ == "__main__":
    main()
