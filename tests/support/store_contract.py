"""What every thread store must do, as functions of a store factory, run by the SQLite tests
(fast) and the Redis tests (against a real ``redis-server``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from ag_ui_openai_agents.threads import (
    ThreadBusyError,
    ThreadLockLostError,
    ThreadStore,
)
from ag_ui_openai_agents.threads.store import hold_lock

Factory = Callable[..., ThreadStore]
"""Makes a store on the shared backing (the same file, the same Redis), with settings."""


async def documents_round_trip(make: Factory) -> None:
    store = make()
    assert await store.load("t-1") is None
    assert await store.acquire("t-1", "a")
    await store.save("t-1", '{"v": 1, "messages": []}', "a")
    assert await make().load("t-1") == '{"v": 1, "messages": []}'
    assert await store.load("t-2") is None
    await store.delete("t-1")
    assert await store.load("t-1") is None


async def a_lock_has_one_holder(make: Factory) -> None:
    one, other = make(), make()
    assert await one.acquire("t", "a")
    assert not await other.acquire("t", "b")
    await other.release("t", "b")  # not the holder: nothing happens
    assert not await other.acquire("t", "b")
    assert await one.renew("t", "a") and not await other.renew("t", "b")
    await one.release("t", "a")
    assert await other.acquire("t", "b")


async def only_the_holder_saves(make: Factory) -> None:
    store = make()
    with pytest.raises(ThreadLockLostError):
        await store.save("t", "{}", "nobody")
    assert await store.acquire("t", "a")
    with pytest.raises(ThreadLockLostError):
        await store.save("t", "{}", "b")
    assert await store.load("t") is None


async def an_expired_lock_is_taken_over(make: Factory) -> None:
    crashed = make(lock_ttl=0.01)
    assert await crashed.acquire("t", "dead")
    alive = make(lock_wait=30)
    async with hold_lock(alive, "t", "alive"):
        with pytest.raises(ThreadLockLostError):
            await crashed.save("t", "{}", "dead")
        await alive.save("t", "{}", "alive")
    assert await alive.load("t") == "{}"


async def a_held_lock_refuses_when_waiting_is_off(make: Factory) -> None:
    holder, waiter = make(), make(lock_wait=0)
    async with hold_lock(holder, "t", "a"):
        with pytest.raises(ThreadBusyError):
            async with hold_lock(waiter, "t", "b"):
                pass  # pragma: no cover
    async with hold_lock(waiter, "t", "b"):
        pass


async def a_waiter_gets_the_lock_when_it_is_freed(make: Factory) -> None:
    holder, waiter = make(), make(lock_wait=30)
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with hold_lock(holder, "t", "a"):
            inside.set()
            await release.wait()
            order.append("first")

    async def wait() -> None:
        await inside.wait()
        async with hold_lock(waiter, "t", "b"):
            order.append("second")

    waiting = asyncio.create_task(wait())
    holding = asyncio.create_task(hold())
    await inside.wait()
    release.set()
    await asyncio.gather(holding, waiting)
    assert order == ["first", "second"]


async def an_expired_thread_is_unknown(make: Factory) -> None:
    store = make(expire_after=0.001)
    assert await store.acquire("t", "a")
    await store.save("t", "{}", "a")
    await asyncio.sleep(0.05)  # past the expiry; nothing is timed
    assert await store.load("t") is None


async def a_keys_threads_are_listed_and_deleted(make: Factory) -> None:
    store = make()
    keys = ["app/alice:1", "app/alice:2", "app/alice*[x]", "app/bob:1", "other/alice:1"]
    for key in keys:
        assert await store.acquire(key, "a")
        await store.save(key, "{}", "a")
    assert await store.threads("app/alice:") == ["app/alice:1", "app/alice:2"]
    assert await store.threads("app/alice*") == ["app/alice*[x]"]  # no pattern in a prefix
    assert await store.threads("app/") == sorted(keys[:4])
    for key in await store.threads("app/alice"):
        await store.delete(key)
    assert await store.threads("") == ["app/bob:1", "other/alice:1"]
    assert await store.load("app/alice:1") is None


async def expired_threads_are_not_listed(make: Factory) -> None:
    store, kept = make(expire_after=0.001), make(expire_after=None)
    assert await store.acquire("gone", "a") and await kept.acquire("kept", "a")
    await store.save("gone", "{}", "a")
    await kept.save("kept", "{}", "a")
    await asyncio.sleep(0.05)  # past the expiry; nothing is timed
    assert await store.threads() == ["kept"]


async def threads_expire_after_thirty_days_by_default(make: Factory) -> None:
    assert make().settings.expire_after == 30 * 24 * 3600


CONTRACT: list[Callable[[Factory], Any]] = [
    documents_round_trip,
    a_lock_has_one_holder,
    only_the_holder_saves,
    an_expired_lock_is_taken_over,
    a_held_lock_refuses_when_waiting_is_off,
    a_waiter_gets_the_lock_when_it_is_freed,
    an_expired_thread_is_unknown,
    a_keys_threads_are_listed_and_deleted,
    expired_threads_are_not_listed,
    threads_expire_after_thirty_days_by_default,
]
