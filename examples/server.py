"""Serve every example on one FastAPI app, each under ``/<name>``.

    uv run python server.py                 # HOST (0.0.0.0) and PORT (8031) from the environment
    uv run uvicorn server:create_app --factory --port 8031

Settings come from the environment, after loading ``.env`` if there is one. Without
``OPENAI_API_KEY`` every example runs on the offline demo model, so the server works with no
network and no account.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import uvicorn
from agents import set_tracing_disabled
from dotenv import load_dotenv
from fastapi import FastAPI

from agents_examples import EXAMPLES, ExampleSettings, settings_from_env

logger = logging.getLogger("examples.server")


def load_settings() -> ExampleSettings:
    """Read ``.env`` and the environment; say so once when running on the demo model."""
    load_dotenv()
    settings = settings_from_env()
    if settings.offline:
        set_tracing_disabled(True)
        logger.warning("OPENAI_API_KEY is not set: every example runs on the offline demo model.")
    return settings


def create_app(settings: ExampleSettings | None = None) -> FastAPI:
    """Build the app with all examples mounted (settings read from the environment if None)."""
    settings = settings or load_settings()
    app = FastAPI(title="AG-UI examples for the OpenAI Agents SDK")
    for example in EXAMPLES.values():
        example.mount(app, example.path, settings)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": settings.model,
            "offline_demo": settings.offline,
            "demos": [
                {"name": e.name, "path": e.path, "description": e.description}
                for e in EXAMPLES.values()
            ],
        }

    return app


def main() -> None:
    """Run the server with uvicorn."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app()
    host = os.environ.get("HOST", "0.0.0.0")
    port = int(os.environ.get("PORT", "8031"))
    uvicorn.run(app, host=host, port=port)


if __name__ == "__main__":
    main()
