"""The served app of the concurrency benchmark: the FastAPI shortcut on a paced token model.

    python -m benchmarks.serve --port 8765 --tokens 100 --interval 0.05 [--standard]

serves `POST /agent` (and `GET /agent/health`) with uvicorn, one process, loopback only.
Every run streams `tokens` text deltas `interval` seconds apart, each stamped with the
wall-clock time the model yielded it. uvicorn speaks HTTP with h11 on asyncio's event loop,
or, with `--standard`, with httptools on uvloop (what `uvicorn[standard]` installs).
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from agents import Agent
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint

from .models import run_config

__all__ = ["PATH", "SERVERS", "create_app", "main"]

PATH = "/agent"
SERVERS = {
    "h11": {"http": "h11", "loop": "asyncio"},
    "standard": {"http": "httptools", "loop": "uvloop"},
}
"""uvicorn's HTTP implementation and event loop, by name."""


def create_app(tokens: int, interval: float) -> FastAPI:
    """One agent under `PATH`, its model streaming `tokens` stamped deltas."""
    agent: Agent[Any] = Agent(name="assistant", instructions="Answer.")
    wrapped = OpenAIAgentsAgent(
        agent, name="assistant", run_config=run_config(tokens, interval=interval, stamped=True)
    )
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped, PATH)
    return app


def main() -> None:
    """Parse the flags and serve until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--standard", action="store_true", help="httptools on uvloop")
    args = parser.parse_args()
    app = create_app(args.tokens, args.interval)
    server = SERVERS["standard" if args.standard else "h11"]
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", backlog=4096, **server)


if __name__ == "__main__":
    main()
