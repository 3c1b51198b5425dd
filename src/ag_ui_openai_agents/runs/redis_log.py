"""Internal: ``RedisEventLog``, runs' event logs on Redis Streams, shared by every replica.

Needs the ``redis`` extra (its asyncio client). ``RedisThreadStore.event_log()`` gives the
store's, on the store's client and prefix.

Layout (``prefix`` defaults to ``agui:``; ``<run>`` is the run's log key, in braces so a
run's two keys hash to one Redis Cluster slot)::

    <prefix>run:{<run>}:claim   a string: the fingerprint of the request that claimed the run
                                (SET NX, PX = claim_expire_after)
    <prefix>run:{<run>}:log     a stream: entry 1-0 marks the claim, entry 1-<seq> holds
                                event <seq> (field ``e``), the entry after the last event
                                marks the run's end (field ``end``)

Every id is ``1-<seq>``, given by the writer, so the ids are the event's sequence numbers on
every replica; a reader checks they follow one another, so a trimmed start or a log gone
and started afresh is told (:class:`.log.LogExpiredError`), never skipped over.

- A claim is one Lua script (one round trip): ``SET NX`` of the fingerprint; when it is new,
  the run's stream is started afresh with its claim marker, so a reader that comes before
  the first event waits for it instead of finding no log.
- Appends are one Lua script call per flush, for every run with events waiting (one command):
  ``XADD MAXLEN ~ max_events`` per event (Redis trims whole nodes of its stream, keeping at
  least ``max_events``), then ``PEXPIRE`` per run. The call's arguments are the runs' keys
  and four more, whatever the number of events: the runs' first seqs and counts in one, and
  every event in one, a line each (an event is one line of JSON text; a line break, which
  JSON has only as whitespace, is sent as a space). The client's cost per flush is then
  about one packed argument per run, where a pipeline of the same commands, one round trip
  too, packs and parses a command per event. A run whose events Redis
  refuses (its key is not a stream) does not stop the others. The script names keys of many
  runs, so the event log needs one Redis server (or a primary with replicas), not a
  Redis Cluster.
- Appends are written behind: an append is numbered and handed to this replica's readers at
  once, and joins its run's events waiting for the next flush. One flushing task waits
  ``flush_interval`` (20 ms) once an event is waiting, then sends every
  run's waiting events in that one script call (one connection of the pool); what
  comes in meanwhile waits for the next. 200 paced runs cost one round trip per flush, not
  200, the pool is not drained by writers, and no reader here waits for Redis
  (``benchmarks/live_load.py``). The end of a run waits for its events' flush. A flush that
  fails is logged; readers on other replicas then find a gap and are told (never skipped).
- Readers ``XREAD`` what is logged in batches, then ``XREAD BLOCK`` the tail (each waiting
  reader holds one connection of the client's pool while it blocks) for ``poll`` seconds at
  most, or until its next keepalive turn is due; after each block without news it checks the
  stream still exists.
- The end is a Lua script: the end marker after the stream's last entry (unless there is one
  already), which wakes every reader; the stream then expires ``expire_after`` later.

While the run is live its stream expires ``live_expire_after`` after its last append (an
hour by default): a replica that died mid-run leaves the log that long at most, and its
readers then get :class:`.log.LogExpiredError`. A run must log something at least that often
(every run ends, at the latest, at the live runs' maximum lifetime, which should be shorter).

A replica also keeps the live runs it writes in memory (a :class:`.log.MemoryEventLog`, each
dropped at the run's end): their readers on this replica (most often the client that started
the run) follow them from memory, without waiting for Redis and with no round trip per
reader; readers on other replicas, and any reader once the run ended, ``XREAD``.

A run's appends come from one writer (the replica that claimed it): the writer numbers the
events, so appends of one run must not overlap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui_openai_agents.runs.log import (
    DEFAULT_CLAIM_EXPIRE_AFTER,
    DEFAULT_EXPIRE_AFTER,
    DEFAULT_MAX_EVENTS,
    READ_BATCH,
    Claim,
    LogExpiredError,
    LogMeta,
    MemoryEventLog,
)

__all__ = ["DEFAULT_LIVE_EXPIRE_AFTER", "DEFAULT_POLL", "RedisEventLog"]

logger = logging.getLogger(__name__)

DEFAULT_LIVE_EXPIRE_AFTER = 3600.0
"""Seconds a live run's log is kept after its last append."""
FIRST_BATCH = 32
"""Events a reader's first ``XREAD`` asks for: a small first batch comes back soonest."""
DEFAULT_POLL = 5.0
"""Seconds a tailing reader blocks at most before it checks the log still exists."""
DEFAULT_FLUSH_INTERVAL = 0.02
"""Seconds a flush waits for more events once one is waiting: the events of many paced runs
go in one round trip. Readers on this replica do not wait for it; readers on other replicas
and the end of a run's response wait up to that much longer. 20 ms rather than 5 ms: at 200
paced streams on one worker the server's CPU per token added by the log was about half
(``benchmarks/live_load.py``, figures in ``benchmarks/results.md``)."""

_CLAIM = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('del', KEYS[2])
  redis.call('xadd', KEYS[2], '1-0', 'claim', '')
  redis.call('pexpire', KEYS[2], ARGV[3])
  return 0
end
if redis.call('get', KEYS[1]) == ARGV[1] then
  return 1
end
return 2
"""
_APPEND = """
local heads, blob, at, k, failed = ARGV[3], ARGV[4], 1, 0, {}
for seq, count in string.gmatch(heads, '(%d+):(%d+)') do
  k = k + 1
  seq, count = tonumber(seq), tonumber(count)
  local refused = false
  for i = 0, count - 1 do
    local stop = string.find(blob, '\\n', at, true) or (#blob + 1)
    if not refused then
      local added = redis.pcall('xadd', KEYS[k], 'MAXLEN', '~', ARGV[1], '1-' .. (seq + i),
                                'e', string.sub(blob, at, stop - 1))
      if type(added) == 'table' and added.err then
        failed[#failed + 1] = k
        failed[#failed + 1] = added.err
        refused = true
      end
    end
    at = stop + 1
  end
  redis.pcall('pexpire', KEYS[k], ARGV[2])
end
return failed
"""
_END_RUN = """
local top = redis.call('xrevrange', KEYS[1], '+', '-', 'COUNT', 1)
if #top == 0 then
  return 0
end
local fields = top[1][2]
for i = 1, #fields, 2 do
  if fields[i] == 'end' then
    return 0
  end
end
local seq = tonumber(string.sub(top[1][1], 3))
redis.call('xadd', KEYS[1], 'MAXLEN', '~', ARGV[1], '1-' .. (seq + 1), 'end', '')
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
"""
_CLAIMS = (Claim.NEW, Claim.SAME, Claim.CONFLICT)
_END = "end"
_EVENT = "e"


@dataclass
class _Append:
    """One run's events waiting for the next flush (a run's later appends join them)."""

    run: str
    """The run (its log key)."""
    first: int
    """The seq of the first of ``events``."""
    events: list[str]
    """The encoded events, in order."""
    sent: asyncio.Future[None]
    """Resolved once the flush that carried them is over (whatever Redis answered)."""


def _import_redis() -> Any:
    try:
        import redis.asyncio as redis_asyncio
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "RedisEventLog needs the redis client: pip install 'ag-ui-openai-agents[redis]'"
        ) from exc
    return redis_asyncio


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _one_line(text: str) -> str:
    """``text`` on one line (a flush sends a line per event). A JSON text has a raw line
    break only as whitespace between tokens, so a space stands for it."""
    return text.replace("\n", " ") if "\n" in text else text


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _stream_entries(reply: Any) -> Any:
    """The entries of the one stream of an ``XREAD`` reply: RESP2 ``[[name, entries]]``,
    RESP3 ``{name: [entries]}`` or redis-py's unified ``{name: entries}``."""
    if not reply:
        return []
    if isinstance(reply, dict):
        entries = next(iter(reply.values()))
        nested = entries and isinstance(entries[0], list)
        return entries[0] if nested else entries
    return reply[0][1]


def _entries(raw: Any) -> list[tuple[int, dict[str, Any]]]:
    """``(seq, fields)`` of stream entries ``(id, fields)``, ids ``1-<seq>``."""
    found = []
    for entry_id, fields in raw or []:
        seq = int(_text(entry_id).partition("-")[2])
        found.append((seq, {_text(name): value for name, value in (fields or {}).items()}))
    return found


class RedisEventLog:
    """An :class:`.log.EventLog` on the Redis server at ``url``, or on ``client`` (a
    ``redis.asyncio.Redis`` of the application's), shared by the replicas using it."""

    def __init__(
        self,
        url: str | None = None,
        *,
        client: Any = None,
        prefix: str = "agui:",
        max_events: int = DEFAULT_MAX_EVENTS,
        expire_after: float = DEFAULT_EXPIRE_AFTER,
        claim_expire_after: float = DEFAULT_CLAIM_EXPIRE_AFTER,
        live_expire_after: float = DEFAULT_LIVE_EXPIRE_AFTER,
        poll: float = DEFAULT_POLL,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
    ) -> None:
        if (url is None) == (client is None):
            raise ValueError("give RedisEventLog either a url or a client")
        if max_events < 1:
            raise ValueError("max_events must be at least 1")
        if min(expire_after, claim_expire_after, live_expire_after, flush_interval) < 0:
            raise ValueError("expiry and flush_interval must not be negative")
        if poll <= 0:
            raise ValueError("poll must be positive")
        self.client: Any = client if client is not None else _import_redis().from_url(url)
        self.prefix = prefix
        self.max_events = max_events
        self.expire_after = expire_after
        self.claim_expire_after = claim_expire_after
        self.live_expire_after = live_expire_after
        self.poll = poll
        self.flush_interval = flush_interval
        self._claim = self.client.register_script(_CLAIM)
        self._append = self.client.register_script(_APPEND)
        self._end = self.client.register_script(_END_RUN)
        self._queued: dict[str, _Append] = {}
        self._latest: dict[str, asyncio.Future[None]] = {}
        self._flushing: asyncio.Task[None] | None = None
        self.flushes = 0
        """Round trips the appends took so far (one per flush, whatever the runs)."""
        self._last: dict[str, int] = {}
        self._mirror = MemoryEventLog(max_events=max_events, expire_after=0, claim_expire_after=0)
        self._mirrored: set[str] = set()

    def __repr__(self) -> str:
        return f"RedisEventLog(prefix={self.prefix!r}, max_events={self.max_events})"

    def _key(self, run: str, kind: str) -> str:
        return f"{self.prefix}run:{{{run}}}:{kind}"

    async def claim(self, run: str, fingerprint: str) -> Claim:
        """Claim ``run``; a new claim starts the run's log afresh (readers wait for it)."""
        keys = [self._key(run, "claim"), self._key(run, "log")]
        args = [fingerprint, _ms(self.claim_expire_after), _ms(self.live_expire_after)]
        found = _CLAIMS[int(await self._claim(keys=keys, args=args))]
        if found is Claim.NEW:
            self._last[run] = 0
            self._mirrored.add(run)
            await self._mirror.drop(run)
            await self._mirror.append(run, [])  # local readers wait for its first events
        return found

    async def _tail(self, run: str) -> tuple[int, bool] | None:
        """The seq of the log's last entry and whether it marks the end, or None."""
        found = _entries(await self.client.xrevrange(self._key(run, "log"), count=1))
        if not found:
            return None
        seq, fields = found[0]
        return seq, _END in fields

    async def _next_seq(self, run: str) -> int:
        """The run's last seq, asked of Redis (this replica has not numbered it yet)."""
        tail = await self._tail(run)
        if tail is not None and tail[1]:
            raise RuntimeError(f"the run {run!r} has ended: its log takes no more events")
        return 0 if tail is None else tail[0]

    async def append(self, run: str, events: Sequence[str]) -> int:
        """Log ``events`` as the run's next; return the last seq. This replica's readers see
        them at once; Redis gets them with the next flush (write-behind: :meth:`end` waits
        for them, and a flush that fails is logged, its events missing for other replicas'
        readers, who are told so)."""
        last = self._last.get(run)
        if last is None:
            last = await self._next_seq(run)
        if not events:
            return last
        events = [_one_line(text) for text in events]
        waiting = self._queued.get(run)
        if waiting is None:
            loop = asyncio.get_running_loop()
            waiting = _Append(run, last + 1, [], loop.create_future())
            self._queued[run] = waiting
            self._latest[run] = waiting.sent
            if self._flushing is None or self._flushing.done():
                self._flushing = loop.create_task(self._flush())
        waiting.events.extend(events)
        last += len(events)
        self._last[run] = last
        if run in self._mirrored:
            await self._mirror.append(run, events)
        return last

    async def _flush(self) -> None:
        """Send what is queued, every run's in one script call, until nothing is."""
        while self._queued:
            await asyncio.sleep(self.flush_interval)  # what comes meanwhile goes along
            batch, self._queued = list(self._queued.values()), {}
            self.flushes += 1
            try:
                replies = await self._send(batch)
            except Exception as exc:  # the batch failed as a whole
                replies = [exc] * len(batch)
            except BaseException as exc:  # the task was stopped: nothing more is sent
                batch += self._queued.values()
                self._queued = {}
                self._settle(batch, [exc] * len(batch))
                raise
            self._settle(batch, replies)

    def _settle(self, batch: list[_Append], replies: list[Any]) -> None:
        for waiting, reply in zip(batch, replies, strict=True):
            if isinstance(reply, BaseException):  # readers elsewhere find the gap, and say so
                logger.warning("Could not log %d events of run %r on Redis: %r",
                               len(waiting.events), waiting.run, reply)  # fmt: skip
            waiting.sent.set_result(None)
            if self._latest.get(waiting.run) is waiting.sent:
                del self._latest[waiting.run]

    async def _send(self, batch: list[_Append]) -> list[Any]:
        """Each append's outcome (None, or why Redis refused it): every run's events in one
        script call (one command, one round trip) of four arguments besides the runs' keys:
        each run's first seq and count in one, every event in one (a line each)."""
        keys = [self._key(waiting.run, "log") for waiting in batch]
        heads = ",".join(f"{waiting.first}:{len(waiting.events)}" for waiting in batch)
        blob = "\n".join(text for waiting in batch for text in waiting.events)
        args = [self.max_events, _ms(self.live_expire_after), heads, blob]
        failed = await self._append(keys=keys, args=args)  # loads the script if Redis lost it
        replies: list[Any] = [None] * len(batch)
        for k, why in zip(failed[::2], failed[1::2], strict=True):
            replies[int(k) - 1] = ConnectionError(f"Redis refused the events: {_text(why)}")
        return replies

    async def flushed(self, run: str) -> None:
        """Wait until Redis got (or failed to get) every event appended to ``run`` so far."""
        latest = self._latest.get(run)
        if latest is not None:
            await asyncio.shield(latest)

    async def end(self, run: str) -> None:
        """Log the run's end marker after its last entry (waking its readers) and expire the
        log later, in one script (one round trip); nothing when the run already ended."""
        await self.flushed(run)
        self._last.pop(run, None)
        keys = [self._key(run, "log")]
        await self._end(keys=keys, args=[self.max_events, _ms(self.expire_after)])
        if run in self._mirrored:
            self._mirrored.discard(run)
            await self._mirror.end(run)

    async def meta(self, run: str) -> LogMeta | None:
        """What the log holds of ``run`` (two ranges, one round trip), or None; this
        replica's appends included (their flush first)."""
        await self.flushed(run)
        key = self._key(run, "log")
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.xrange(key, "(1-0", "+", count=1)
            pipe.xrevrange(key, "+", "-", count=1)
            head, tail = (_entries(reply) for reply in await pipe.execute())
        if not tail:
            return None
        seq, fields = tail[0]
        ended = _END in fields
        last = seq - 1 if ended else seq
        first = head[0][0] if head and _END not in head[0][1] else last + 1
        return LogMeta(first=first, last=last, ended=ended)

    async def read(
        self, run: str, after: int = 0, *, idle: float | None = None
    ) -> AsyncIterator[tuple[int, str | None]]:
        """Every ``(seq, event)`` after ``after``, then the live tail, until the end: from
        this replica's memory while it writes the run, else from Redis. With ``idle``,
        ``(cursor, None)`` after each ``idle`` seconds without an event."""
        cursor = max(after, 0)
        local = await self._mirror.meta(run) if run in self._mirrored else None
        if local is not None and cursor >= local.first - 1:
            try:
                async for seq, text in self._mirror.read(run, cursor, idle=idle):
                    cursor = seq
                    yield seq, text
                return
            except LogExpiredError:
                pass  # dropped (an append failed) or trimmed: Redis may hold the rest
        async for item in self._read_redis(run, cursor, idle):
            yield item

    async def _read_redis(
        self, run: str, cursor: int, idle: float | None
    ) -> AsyncIterator[tuple[int, str | None]]:
        key = self._key(run, "log")
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.xrevrange(key, "+", "-", count=1)
            pipe.xread({key: f"1-{cursor}"}, count=FIRST_BATCH)
            tail, reply = await pipe.execute()
        tail = _entries(tail)
        if not tail:
            raise LogExpiredError(f"no log of run {run!r} is held")
        if _END in tail[0][1] and tail[0][0] <= cursor:
            return  # a cursor past the end: nothing more
        poll, every = _ms(self.poll), None if idle is None else _ms(idle)
        silent = 0  # ms since the last event or keepalive turn
        while True:
            for seq, fields in _entries(_stream_entries(reply)):
                if seq != cursor + 1:
                    raise LogExpiredError(f"events after {cursor} of run {run!r} are gone")
                if _END in fields:
                    return
                yield seq, _text(fields[_EVENT])
                cursor, silent = seq, 0
            block = poll if every is None else min(poll, every - silent)  # until a turn is due
            reply = await self.client.xread({key: f"1-{cursor}"}, count=READ_BATCH, block=block)
            if reply:
                continue
            silent += block
            if every is not None and silent >= every:
                silent = 0
                yield cursor, None
            if not await self.client.exists(key):
                raise LogExpiredError(f"the log {key!r} expired")

    async def aclose(self) -> None:
        """Send what is waiting, then close the client's connections."""
        if self._flushing is not None and not self._flushing.done():
            await asyncio.wait({self._flushing})
        await self.client.aclose()
