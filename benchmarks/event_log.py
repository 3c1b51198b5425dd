"""What the runs' event log costs: CPU per streamed token, memory per live run, and reattach.

**CPU per token.** Three runs of the same stream (`sides.sdk_adapted`: an AG-UI request
through `to_openai`, the token model's run through `to_agui`, every event encoded for SSE),
each from the request to its last frame, interleaved over repetitions as in `per_token.py`:

- *no log*: the frames written as they come (today's stream);
- *in process* / *Redis*: as a server runs a detached run: each encoded event is appended
  as it comes (the Redis log sends what is waiting in one round trip per flush) and the log
  is ended after the last event; the response reads the log from seq 0 and
  writes each frame with its `id: <runId>.<seq>` line. `MemoryEventLog`, then
  `RedisEventLog` on a real `redis-server` on loopback (started for the benchmark; its rows
  are left out when the binary is missing).

CPU is this process's `time.process_time()`; *added* is, per repetition, the logged run minus
the no-log run, also as a share of the no-log run. The Redis server's own CPU (`INFO cpu`,
user + sys, over the same run) is reported beside it, and so are the events per write (the
Redis log's batching: events per round trip).

**Memory per live run.** The log of one run of T tokens (its encoded events as the writer
appends them, in batches of 16): `tracemalloc`'s current bytes after the appends, in
process; `MEMORY USAGE` of the run's stream and claim, on Redis. A run longer than
`max_events` (10 000) is trimmed to about that many events.

**Reattach.** A run of L logged events (ended), read after seq L - K (a client that missed
its last K events) and from seq 0 (a reload, K = L): the time to the first event and to the
run's end. The catch-up is a seek to the cursor (a list index in process, a stream id on
Redis), so its cost follows K, not L.
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import socket
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent, EventType, TextMessageContentEvent
from agents import Agent, Runner

from ag_ui_openai_agents import AGUITranslator
from ag_ui_openai_agents.runs import EventLog, MemoryEventLog, RedisEventLog, event_id

from ._encode import encode_event
from .models import run_config
from .per_token import Spread, spread
from .sides import request

__all__ = ["EventLogReport", "event_log_table", "measure_event_log", "redis_server"]

_AGENT: Agent[Any] = Agent(name="assistant", instructions="Answer.")
_TRANSLATOR = AGUITranslator()
_TOKEN = '{"type":"TEXT_MESSAGE_CONTENT"'
BACKENDS = ("in process", "Redis")


@dataclass
class ReattachRow:
    """One reattach: a run of `events` logged events, read after `events - catch_up`."""

    backend: str
    events: int
    catch_up: int
    first_ms: float
    whole_ms: float


@dataclass
class EventLogReport:
    """The figures of `measure_event_log`; Redis's are missing without `redis-server`."""

    tokens: int
    repetitions: int
    cpu_us: dict[str, Spread] = field(default_factory=dict)
    """CPU per token of this process, by run (`no log` and the backends)."""
    added_us: dict[str, Spread] = field(default_factory=dict)
    added_pct: dict[str, Spread] = field(default_factory=dict)
    redis_cpu_us: Spread | None = None
    """The Redis server's CPU per token."""
    batch: dict[str, Spread] = field(default_factory=dict)
    """Events per append, by backend."""
    tokens_seen: dict[str, int] = field(default_factory=dict)
    memory: dict[str, dict[int, int]] = field(default_factory=dict)
    """Bytes per live run, by backend and run tokens."""
    memory_events: dict[int, int] = field(default_factory=dict)
    """Events logged of a run of T tokens (before trimming)."""
    reattach: list[ReattachRow] = field(default_factory=list)


def _frame(run_id: str, seq: int, text: str) -> str:
    return f"id: {event_id(run_id, seq)}\ndata: {text}\n\n"


def _events(tokens: int) -> AsyncIterator[BaseEvent]:
    """The AG-UI events of a request's run on a model streaming `tokens` tokens."""
    run_input = request()
    translated = _TRANSLATOR.to_openai(run_input)
    result = Runner.run_streamed(_AGENT, translated.messages, run_config=run_config(tokens))
    return _TRANSLATOR.to_agui(result, run_input)


async def _unlogged(tokens: int) -> tuple[int, list[float]]:
    """Today's stream: each event encoded as it comes; the tokens seen."""
    seen = 0
    async for event in _events(tokens):
        encode_event(event)
        seen += event.type == EventType.TEXT_MESSAGE_CONTENT
    return seen, []


async def _write(log: EventLog, run: str, events: AsyncIterator[BaseEvent]) -> list[float]:
    """The detached run's writer, as the server's: each encoded event appended as it comes,
    then the log's end. Events per write: per round trip to Redis (its flushes), else 1."""
    flushes = getattr(log, "flushes", None)
    count = 0
    async for event in events:
        await log.append(run, (encode_event(event)[6:-2],))  # the JSON of `data: <json>\n\n`
        count += 1
    await log.end(run)
    if flushes is None:
        return [1.0]
    return [count / max(getattr(log, "flushes", 0) - flushes, 1)]


async def _logged(tokens: int, log: EventLog, run: str) -> tuple[int, list[float]]:
    """The same run detached: written to the log, the response read from it."""
    await log.claim(run, "fingerprint")
    writer = asyncio.create_task(_write(log, run, _events(tokens)))
    seen = 0
    async for seq, text in log.read(run, 0):
        _frame("run_1", seq, text)
        seen += text.startswith(_TOKEN)
    return seen, await writer


async def _redis_cpu(client: Any) -> float:
    info = await client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


@dataclass
class _Sample:
    cpu: float
    tokens: int
    batches: list[float]
    redis_cpu: float = 0.0


async def _sample(name: str, tokens: int, logs: dict[str, EventLog], n: int) -> _Sample:
    gc.collect()
    redis = logs.get("Redis")
    redis_before = await _redis_cpu(redis.client) if name == "Redis" and redis else 0.0
    start = time.process_time()
    if name == "no log":
        seen, batches = await _unlogged(tokens)
    else:
        seen, batches = await _logged(tokens, logs[name], f"bench\x1frun-{n}")
    cpu = time.process_time() - start
    sample = _Sample(cpu, seen, batches)
    if name == "Redis" and redis:
        sample.redis_cpu = await _redis_cpu(redis.client) - redis_before
    return sample


async def _samples(
    tokens: int, repetitions: int, warmup: int, logs: dict[str, EventLog]
) -> dict[str, list[_Sample]]:
    names = ["no log", *logs]
    got: dict[str, list[_Sample]] = {name: [] for name in names}
    for rep in range(warmup + repetitions):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            sample = await _sample(name, tokens, logs, rep)
            if rep >= warmup:
                got[name].append(sample)
    return got


def _per_token(report: EventLogReport, got: dict[str, list[_Sample]]) -> None:
    per_token = 1e6 / report.tokens
    base = got["no log"]
    for name, samples in got.items():
        report.cpu_us[name] = spread([s.cpu * per_token for s in samples])
        report.tokens_seen[name] = min(s.tokens for s in samples)
        if name == "no log":
            continue
        added = [(s.cpu - b.cpu) for s, b in zip(samples, base, strict=True)]
        report.added_us[name] = spread([a * per_token for a in added])
        report.added_pct[name] = spread(
            [100 * a / b.cpu for a, b in zip(added, base, strict=True) if b.cpu > 0]
        )
        report.batch[name] = spread([sum(s.batches) / len(s.batches) for s in samples])
    if "Redis" in got:
        report.redis_cpu_us = spread([s.redis_cpu * per_token for s in got["Redis"]])


async def _memory_in_process(events: list[BaseEvent], runs: int = 4) -> int:
    """Bytes a `MemoryEventLog` holds per live run of these events."""
    log = MemoryEventLog()
    gc.collect()
    tracemalloc.start()
    try:
        for n in range(runs):
            run = f"memory\x1frun-{n}"
            await log.claim(run, "fingerprint")
            for start in range(0, len(events), 16):
                await log.append(run, [encode_event(e)[6:-2] for e in events[start : start + 16]])
        gc.collect()
        return tracemalloc.get_traced_memory()[0] // runs
    finally:
        tracemalloc.stop()


async def _memory_redis(log: RedisEventLog, events: list[BaseEvent], tokens: int) -> int:
    """Bytes Redis holds for a live run of these events (`MEMORY USAGE` of its two keys)."""
    run = f"memory\x1frun-{tokens}"
    await log.claim(run, "0" * 64)  # a sha256 hex digest's length
    for start in range(0, len(events), 16):
        await log.append(run, [encode_event(e)[6:-2] for e in events[start : start + 16]])
    await log.flushed(run)
    keys = [f"{log.prefix}run:{{{run}}}:{kind}" for kind in ("log", "claim")]
    return sum([int(await log.client.memory_usage(key, samples=0) or 0) for key in keys])


async def _memory(
    report: EventLogReport, run_tokens: tuple[int, ...], redis: RedisEventLog | None
) -> None:
    for tokens in run_tokens:
        events = [event async for event in _events(tokens)]
        report.memory_events[tokens] = len(events)
        report.memory.setdefault("in process", {})[tokens] = await _memory_in_process(events)
        if redis is not None:
            held = await _memory_redis(redis, events, tokens)
            report.memory.setdefault("Redis", {})[tokens] = held


async def _log_run(log: EventLog, run: str, length: int) -> None:
    text = encode_event(TextMessageContentEvent(message_id="msg_1", delta="alpha "))[6:-2]
    await log.claim(run, "fingerprint")
    for start in range(0, length, 500):
        await log.append(run, [text] * min(500, length - start))
    await log.end(run)


async def _time_read(log: EventLog, run: str, after: int, repetitions: int) -> tuple[float, float]:
    """The least time (ms) to the first event and to the end of reading after `after`."""
    firsts, wholes = [], []
    for _ in range(repetitions):
        start = time.perf_counter()
        first = None
        async for seq, text in log.read(run, after):
            _frame("run_1", seq, text)
            if first is None:
                first = time.perf_counter() - start
        wholes.append(time.perf_counter() - start)
        firsts.append(first if first is not None else float("nan"))
    return min(firsts) * 1e3, min(wholes) * 1e3


async def _reattach(
    report: EventLogReport, logs: dict[str, EventLog], lengths: tuple[int, ...], catch_up: int
) -> None:
    for backend, log in logs.items():
        for length in lengths:
            run = f"reattach\x1frun-{length}"
            await _log_run(log, run, length)
            for after in (length - catch_up, 0):
                first, whole = await _time_read(log, run, after, repetitions=5)
                report.reattach.append(ReattachRow(backend, length, length - after, first, whole))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(url: str, process: subprocess.Popen[bytes], seconds: float = 30.0) -> bool:
    import redis

    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                time.sleep(0.05)
        return False
    finally:
        client.close()


@contextmanager
def redis_server() -> Iterator[str | None]:
    """A `redis-server` on loopback (no persistence) for the benchmark: its URL, or None
    when the binary or the `redis` client is missing."""
    binary = shutil.which("redis-server")
    try:
        import redis  # noqa: F401
    except ImportError:
        binary = None
    if binary is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as directory:
        port = _free_port()
        command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", directory]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=directory)
        try:
            url = f"redis://127.0.0.1:{port}/0"
            yield url if _ready(url, process) else None
        finally:
            process.terminate()
            process.wait(10)


async def _measure(
    report: EventLogReport, url: str | None, warmup: int, memory_tokens: tuple[int, ...],
    lengths: tuple[int, ...], catch_up: int,
) -> EventLogReport:  # fmt: skip
    logs: dict[str, EventLog] = {"in process": MemoryEventLog()}
    redis = RedisEventLog(url) if url else None
    long_logs: dict[str, EventLog] = {"in process": MemoryEventLog(max_events=max(lengths))}
    if redis is not None:
        logs["Redis"] = redis
        long_logs["Redis"] = RedisEventLog(client=redis.client, max_events=max(lengths))
    try:
        got = await _samples(report.tokens, report.repetitions, warmup, logs)
        _per_token(report, got)
        await _memory(report, memory_tokens, redis)
        await _reattach(report, long_logs, lengths, catch_up)
    finally:
        if redis is not None:
            await redis.aclose()
    return report


def measure_event_log(
    tokens: int,
    repetitions: int,
    *,
    memory_tokens: tuple[int, ...] = (300, 10_000),
    lengths: tuple[int, ...] = (1_000, 10_000),
    catch_up: int = 100,
    warmup: int = 1,
) -> EventLogReport:
    """Every figure of the module's docstring; Redis's when `redis-server` can be started."""
    report = EventLogReport(tokens=tokens, repetitions=repetitions)
    with redis_server() as url:
        run = _measure(report, url, warmup, memory_tokens, lengths, catch_up)
        return asyncio.run(run)


def event_log_table(report: EventLogReport) -> list[str]:
    """The report as Markdown: CPU per token, memory per live run, reattach."""
    lines = [
        f"{report.tokens} tokens per run, {report.repetitions} interleaved repetitions "
        "(median (min-max)); *added* is over the same run without the log.",
        "",
        "| run | CPU µs per token | added µs per token | added | events per write "
        "| redis-server CPU µs per token |",
        "|---|---|---|---|---|---|",
    ]
    for name, cpu in report.cpu_us.items():
        added, pct = report.added_us.get(name), report.added_pct.get(name)
        batch = report.batch.get(name)
        redis_cpu = report.redis_cpu_us if name == "Redis" else None
        lines.append(
            f"| {name} | {cpu.show()} | {added.show() if added else ''} "
            f"| {pct.show(1) + ' %' if pct else ''} | {batch.show(1) if batch else ''} "
            f"| {redis_cpu.show() if redis_cpu else ''} |"
        )
    lines += ["", "| log | run tokens | events | bytes per live run | bytes per event |"]
    lines.append("|---|---|---|---|---|")
    for backend, sizes in report.memory.items():
        for tokens, held in sizes.items():
            events = report.memory_events[tokens]
            lines.append(
                f"| {backend} | {tokens:,} | {events:,} | {held:,} | {held / events:,.0f} |"
            )
    lines += ["", "| log | run events | caught up | to first event ms | to the end ms "]
    lines[-1] += "| µs per event caught up |"
    lines.append("|---|---|---|---|---|---|")
    for row in report.reattach:
        lines.append(
            f"| {row.backend} | {row.events:,} | {row.catch_up:,} | {row.first_ms:.3f} "
            f"| {row.whole_ms:.2f} | {1e3 * row.whole_ms / max(row.catch_up, 1):.1f} |"
        )
    return lines
