"""The served app of the concurrency benchmark: the FastAPI shortcut on a paced token model.

    python -m benchmarks.serve --port 8765 --tokens 100 --interval 0.05 [--standard]
        [--threads redis://127.0.0.1:6379/0 | --threads sqlite:/tmp/threads.db] [--attached]

serves `POST /agent` (and `GET /agent/health`) with uvicorn, one process, loopback only.
Every run streams `tokens` text deltas `interval` seconds apart, each stamped with the
wall-clock time the model yielded it. uvicorn speaks HTTP with h11 on asyncio's event loop,
or, with `--standard`, with httptools on uvloop (what `uvicorn[standard]` installs). With
`--threads`, the agent keeps its threads in that store (each request its own thread): its runs
are detached and logged (the store's event log), or, with `--attached`, not (a run is its
response, nothing is logged).
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from agents import Agent
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.threads import RedisThreadStore, SQLiteThreadStore, ThreadStore

from .models import run_config

__all__ = ["PATH", "SERVERS", "create_app", "main"]

PATH = "/agent"
SERVERS = {
    "h11": {"http": "h11", "loop": "asyncio"},
    "standard": {"http": "httptools", "loop": "uvloop"},
}
"""uvicorn's HTTP implementation and event loop, by name."""


def _store(threads: str, detached: bool) -> ThreadStore:
    if threads.startswith("redis://"):
        return RedisThreadStore(threads, detached_runs=detached)
    return SQLiteThreadStore(threads.removeprefix("sqlite:"), detached_runs=detached)


def create_app(
    tokens: int, interval: float, threads: str | None = None, *, detached: bool = True
) -> FastAPI:
    """One agent under `PATH`, its model streaming `tokens` stamped deltas; its threads in
    the store `threads` names (None: none), its runs `detached` or not."""
    agent: Agent[Any] = Agent(name="assistant", instructions="Answer.")
    store = _store(threads, detached) if threads else None
    wrapped = OpenAIAgentsAgent(
        agent,
        name="assistant",
        run_config=run_config(tokens, interval=interval, stamped=True),
        threads=store,
        thread_key=(lambda thread_id, request: thread_id) if store is not None else None,
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
    parser.add_argument("--threads", default=None, help="redis://... or sqlite:<path>")
    parser.add_argument("--attached", action="store_true", help="runs not detached, not logged")
    args = parser.parse_args()
    app = create_app(args.tokens, args.interval, args.threads, detached=not args.attached)
    server = SERVERS["standard" if args.standard else "h11"]
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", backlog=4096, **server)


if __name__ == "__main__":
    main()
