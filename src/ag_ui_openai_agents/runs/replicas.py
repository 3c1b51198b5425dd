"""Internal: live runs seen from every replica: a run started on one server is joined, stopped
and superseded from another, through the Redis server their event log is on.

A replica's :class:`~.live.LiveRuns` knows only the runs it runs. :class:`RedisRunBoard` adds
what the other replicas need to know of them, on the store's Redis client and prefix::

    <prefix>live:{<key>}   a hash per thread (store key): field <runId> holds the JSON
                           ``{"input": <the request>, "turn": <the turn's trusted request>}``
                           of a run live on some replica, written once the turn is known
                           (once the run holds the thread's lock: milliseconds after it
                           starts, or after the run it waited for), removed when
                           the run ends; field ``w:<runId>`` counts the responses of other
                           replicas reading it. Expires ``max_run_seconds`` plus a minute
                           after its last write, so a replica that died leaves nothing for long.
    <prefix>live:stop      a pub/sub channel: ``["stop" | "supersede", <key>, <runId>]``

- A join on a replica that does not run the thread's live run reads the run's request and its
  turn's request from the hash (the state and messages the joined stream starts from), then
  the run's events from the Redis event log.
- A stop is published; the replica running the run (subscribed from its first live run on)
  stops it as the stop route would locally. The route still answers 202 either way.
- A new turn while a run of the thread is live on another replica publishes ``supersede``:
  the owner stops the thread's runs unless a response reads them, on its own replica or on
  another (the ``w:`` counts), after waiting a moment for readers that are leaving. The new
  turn then waits for the thread's lock as any turn does. (Until a run's turn is known, other
  replicas do not see it: a new turn there waits for the lock, and a reload there joins the
  run that holds the lock, or gets the thread as stored.)
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from ag_ui.core import RunAgentInput

from ag_ui_openai_agents.runs.live import LEAVING_SECONDS, LiveRun, LiveRuns, Stopping, until

__all__ = ["RedisRunBoard", "RemoteRun", "RemoteWatch", "board_for"]

logger = logging.getLogger(__name__)

EXPIRE_MARGIN = 60.0
"""Seconds the live-run hash outlives the runs' maximum lifetime."""
RESUBSCRIBE_SECONDS = 1.0
"""Seconds between attempts to subscribe again after the channel's connection failed."""


@dataclass(frozen=True)
class RemoteWatch:
    """A response reading a run of another replica, counted in the live-run hash."""

    board: RedisRunBoard
    key: str
    run_id: str

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Count the response while the block runs."""
        self.board.count_reader(self.key, self.run_id, 1)
        try:
            yield
        finally:
            self.board.count_reader(self.key, self.run_id, -1)


@dataclass(frozen=True)
class RemoteRun:
    """A run live on some replica, as the live-run hash tells it."""

    run_input: RunAgentInput
    """The request as its client sent it."""
    turn_input: RunAgentInput
    """The trusted request of the run's turn (what a joined stream starts from)."""

    @property
    def run_id(self) -> str:
        return self.run_input.run_id


def board_for(log: Any, live: LiveRuns) -> RedisRunBoard | None:
    """The run board of ``live`` on ``log``'s Redis, or None for a log of one process."""
    client, prefix = getattr(log, "client", None), getattr(log, "prefix", None)
    if client is None or not isinstance(prefix, str) or not hasattr(client, "pubsub"):
        return None
    return RedisRunBoard(client, prefix, live)


def _decoded(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisRunBoard:
    """The live runs of ``live`` published on Redis, and the other replicas' runs read there."""

    def __init__(self, client: Any, prefix: str, live: LiveRuns) -> None:
        self.client, self.prefix, self.live = client, prefix, live
        self.channel = f"{prefix}live:stop"
        self._listening: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"RedisRunBoard(prefix={self.prefix!r})"

    def _key(self, key: str) -> str:
        return f"{self.prefix}live:{{{key}}}"

    def _expiry_ms(self) -> int:
        return int((self.live.settings.max_run_seconds + EXPIRE_MARGIN) * 1000)

    # --- the owner's side ------------------------------------------------------------------

    async def started(self, run: LiveRun) -> None:
        """Publish ``run`` (just started here) once its turn is known, until it ends; listen
        for stops from now on."""
        await self._listen()
        task = asyncio.get_running_loop().create_task(self._follow(run))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(
        self, key: str, run_id: str, run_input: RunAgentInput, turn: RunAgentInput
    ) -> None:
        entry = {
            "input": run_input.model_dump(mode="json", by_alias=True, exclude_none=True),
            "turn": turn.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(self._key(key), run_id, json.dumps(entry, separators=(",", ":")))
            pipe.pexpire(self._key(key), self._expiry_ms())
            await pipe.execute()

    async def _follow(self, run: LiveRun) -> None:
        """The run with its turn, once known (a run refused or answered from the store has
        none, and is never published), then its removal once it ended."""
        published = False
        try:
            await run.input_known.wait()
            if run.turn_input is not None and not run.done.is_set():
                published = True
                await self._write(run.key, run.run_id, run.run_input, run.turn_input)
            await run.done.wait()
        except Exception:
            logger.warning("Could not publish the live run %r", run.run_id, exc_info=True)
        finally:
            if published:
                with suppress(Exception):
                    await asyncio.shield(self._remove(run.key, run.run_id))

    async def _remove(self, key: str, run_id: str) -> None:
        await self.client.hdel(self._key(key), run_id, f"w:{run_id}")

    async def _listen(self) -> None:
        """Subscribe to the stop channel once (later calls return at once)."""
        if self._listening is None or self._listening.done():
            self._subscribed = asyncio.Event()
            self._listening = asyncio.get_running_loop().create_task(self._listen_forever())
        assert self._subscribed is not None
        await self._subscribed.wait()

    async def _listen_forever(self) -> None:
        while True:
            try:
                async with self.client.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    assert self._subscribed is not None
                    self._subscribed.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            await self._heard(_decoded(message.get("data")))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("The live runs' stop channel failed; subscribing again")
                await asyncio.sleep(RESUBSCRIBE_SECONDS)

    async def _heard(self, text: str) -> None:
        try:
            kind, key, run_id = json.loads(text)
        except (ValueError, TypeError):
            return
        if kind == "stop":
            await self.live.stop(key, run_id, Stopping.STOP)
        elif kind == "supersede" and self.live.on_thread(key):
            task = asyncio.get_running_loop().create_task(self._supersede_here(key))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _supersede_here(self, key: str) -> None:
        """Stop the thread's runs here unless a response, here or elsewhere, reads them; a
        reader that is leaving is waited for (:data:`~.live.LEAVING_SECONDS`)."""
        runs = self.live.on_thread(key)

        async def unread() -> bool:
            live = [run for run in runs if not run.done.is_set()]
            if any(run.watched for run in live):
                return False
            fields = [f"w:{run.run_id}" for run in live]
            counts = await self.client.hmget(self._key(key), fields) if live else []
            return not any(count is not None and int(count) > 0 for count in counts)

        if await until(unread, LEAVING_SECONDS):
            for run in runs:
                run.halt(Stopping.SUPERSEDED)

    # --- the other replicas' side ------------------------------------------------------------

    async def stop(self, key: str, run_id: str) -> None:
        """Ask the replica running ``run_id`` of the thread to stop it."""
        await self._publish("stop", key, run_id)

    async def supersede(self, key: str) -> None:
        """Ask the replica running the thread's live runs to stop them, if nobody reads them."""
        await self._publish("supersede", key, "")

    async def _publish(self, kind: str, key: str, run_id: str) -> None:
        await self.client.publish(self.channel, json.dumps([kind, key, run_id]))

    async def on_thread(self, key: str) -> list[RemoteRun]:
        """The thread's runs live on any replica, oldest request first (by the hash's order)."""
        found: dict[Any, Any] = await self.client.hgetall(self._key(key))
        runs = []
        for field, value in found.items():
            if _decoded(field).startswith("w:"):
                continue
            entry = json.loads(_decoded(value))
            if entry.get("turn") is None:
                continue  # not a run this version publishes (a turn is always known here)
            runs.append(
                RemoteRun(
                    RunAgentInput.model_validate(entry["input"]),
                    RunAgentInput.model_validate(entry["turn"]),
                )
            )
        return runs

    def watch(self, key: str, run_id: str) -> RemoteWatch:
        """What a response of this replica reading another replica's run counts itself with."""
        return RemoteWatch(self, key, run_id)

    def count_reader(self, key: str, run_id: str, step: int) -> None:
        async def count() -> None:
            with suppress(Exception):
                async with self.client.pipeline(transaction=False) as pipe:
                    pipe.hincrby(self._key(key), f"w:{run_id}", step)
                    pipe.pexpire(self._key(key), self._expiry_ms())
                    await pipe.execute()

        task = asyncio.get_running_loop().create_task(count())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Stop listening (for tests and embedders)."""
        if self._listening is not None:
            self._listening.cancel()
            with suppress(BaseException):
                await self._listening
