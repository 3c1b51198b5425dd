"""The load generator of the concurrency benchmark, run in a process of its own.

    python -m benchmarks.load --url http://127.0.0.1:8765/agent --streams 500 --ramp 1

opens `streams` AG-UI runs (one httpx async client), started evenly over `ramp` seconds,
reads every SSE line, and prints one JSON object: per token the delay from the model's stamp
to its receipt here (sorted, and its percentiles), per stream its tokens, timing and outcome,
and this process's CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

__all__ = ["BODY", "StreamOutcome", "body_of", "main", "percentiles", "run_load"]

BODY = {
    "threadId": "thread_1", "runId": "run_1", "state": None, "tools": [], "context": [],
    "forwardedProps": None, "messages": [{"id": "user_1", "role": "user", "content": "Hi"}],
}  # fmt: skip
"""A one-message AG-UI request, as a client sends it."""


@dataclass
class StreamOutcome:
    """One stream as the client saw it (times in seconds from the start of the load)."""

    tokens: int = 0
    requested: float = 0.0
    first_event: float | None = None
    first_token: float | None = None
    last_token: float | None = None
    finished: bool = False
    error: str | None = None
    latencies_ms: list[float] = field(default_factory=list)


def _read(line: str, outcome: StreamOutcome, start: float) -> None:
    if not line.startswith("data: "):
        return
    now = time.perf_counter() - start
    if outcome.first_event is None:
        outcome.first_event = now
    event = json.loads(line[6:])
    kind = event.get("type")
    if kind == "TEXT_MESSAGE_CONTENT":
        stamp = int(event["delta"].split()[0])
        outcome.latencies_ms.append((time.time_ns() - stamp) / 1e6)
        outcome.tokens += 1
        outcome.last_token = now
        if outcome.first_token is None:
            outcome.first_token = now
    elif kind == "RUN_FINISHED":
        outcome.finished = True
    elif kind == "RUN_ERROR":
        outcome.error = f"RUN_ERROR: {event.get('message')}"


_LOAD = uuid.uuid4().hex[:12]
"""This load generator's own part of its runs' ids."""


def body_of(stream: int | None) -> dict[str, Any]:
    """:data:`BODY`, or, for a load of distinct runs, ids of the ``stream``-th run of this
    load generator (unlike any other's)."""
    if stream is None:
        return BODY
    return {**BODY, "threadId": f"thread_{_LOAD}_{stream}", "runId": f"run_{_LOAD}_{stream}"}


async def _stream(
    client: httpx.AsyncClient, url: str, delay: float, start: float, body: dict[str, Any]
) -> StreamOutcome:
    await asyncio.sleep(delay)
    outcome = StreamOutcome(requested=time.perf_counter() - start)
    headers = {"Accept": "text/event-stream"}
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            if response.status_code != 200:
                outcome.error = f"HTTP {response.status_code}"
                return outcome
            async for line in response.aiter_lines():
                _read(line, outcome, start)
    except (httpx.HTTPError, OSError, ValueError, KeyError) as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


async def run_load(
    url: str, streams: int, ramp: float, timeout: float, *, unique: bool = False
) -> dict[str, Any]:
    """Run the load; the summary `main` prints (see the module's docstring). ``unique``: each
    stream its own thread and run ids (a server with a thread store)."""
    limits = httpx.Limits(max_connections=streams + 10, max_keepalive_connections=streams + 10)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        await client.get(url + "/health")  # the client's first request sets it up: not timed
        cpu, start = time.process_time(), time.perf_counter()
        tasks = [
            _stream(client, url, ramp * i / max(streams, 1), start, body_of(i if unique else None))
            for i in range(streams)
        ]
        outcomes = await asyncio.gather(*tasks)
    wall = time.perf_counter() - start
    return _summary(list(outcomes), wall, time.process_time() - cpu)


def _summary(outcomes: list[StreamOutcome], wall: float, cpu: float) -> dict[str, Any]:
    latencies = sorted(v for o in outcomes for v in o.latencies_ms)
    unfinished = [o for o in outcomes if o.error or not o.finished]
    errors = [o.error or "ended without RUN_FINISHED" for o in unfinished]
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "tokens": sum(o.tokens for o in outcomes),
        "latency_ms": percentiles(latencies),
        "latencies_ms": latencies,
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:5],
        "streams": [{k: v for k, v in asdict(o).items() if k != "latencies_ms"} for o in outcomes],
    }


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p90, p99 and max of sorted `values` (empty when there are none)."""
    if not values:
        return {}
    cuts = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else []
    pick = (lambda q: cuts[q - 1]) if cuts else (lambda q: values[0])
    return {"p50": pick(50), "p90": pick(90), "p99": pick(99), "max": values[-1]}


def main() -> None:
    """Parse the flags, run the load, print its summary as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--ramp", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--unique", action="store_true", help="each stream its own thread")
    args = parser.parse_args()
    load = run_load(args.url, args.streams, args.ramp, args.timeout, unique=args.unique)
    summary = asyncio.run(load)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
