"""``RedisThreadStore`` against a real ``redis-server``: the store contract, its layout, and
two replicas (two clients) running one thread: the second run waits for the first and sees
its messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis_asyncio

from ag_ui_openai_agents.threads import RedisThreadStore, ThreadStore
from ag_ui_openai_agents.threads.runs import THREAD_STORE_CODE
from support.redis_server import redis_server_process
from support.store_contract import CONTRACT, Factory
from support.threads import PROTOCOLS, Conversation, shop, user

pytestmark = pytest.mark.slow


@pytest.fixture
async def make(redis_server: str) -> AsyncIterator[Factory]:
    stores: list[RedisThreadStore] = []

    def factory(**settings: Any) -> ThreadStore:
        stores.append(RedisThreadStore(redis_server, **settings))
        return stores[-1]

    yield factory
    for store in stores:
        await store.aclose()


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_store_contract(make: Factory, rule: Any) -> None:
    await rule(make)


async def test_the_layout_is_one_string_per_thread_and_lock(redis_server: str) -> None:
    store = RedisThreadStore(redis_server, prefix="app:", expire_after=3600, lock_ttl=30)
    raw = redis_asyncio.Redis.from_url(redis_server)
    try:
        assert await store.acquire("user-1:t", "token")
        await store.save("user-1:t", '{"v":1}', "token")
        assert sorted(await raw.keys("*")) == [b"app:lock:user-1:t", b"app:thread:user-1:t"]
        assert await raw.get("app:lock:user-1:t") == b"token"
        assert 0 < await raw.pttl("app:lock:user-1:t") <= 30_000
        assert 0 < await raw.pttl("app:thread:user-1:t") <= 3_600_000
        assert json.loads(await raw.get("app:thread:user-1:t")) == {"v": 1}
    finally:
        await raw.aclose()
        await store.aclose()


def test_it_needs_a_url_or_a_client() -> None:
    with pytest.raises(ValueError):
        RedisThreadStore()


@pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])
async def test_two_replicas_take_turns_on_one_thread(
    redis_server: str, version: str | None
) -> None:
    one, other = shop(), shop()
    store_one, store_other = RedisThreadStore(redis_server), RedisThreadStore(redis_server)
    chat = Conversation(one.wrapper(store_one), version)
    elsewhere = Conversation(other.wrapper(store_other), version, thread_id=chat.thread_id)
    try:
        await chat.say("Hello", "user-1")
        first_shown = list(chat.shown)
        # Whichever run takes the lock second runs on the first one's messages too.
        await asyncio.gather(
            chat.send(chat.request([user("From one", "user-2")]), history=first_shown),
            elsewhere.send(elsewhere.request([user("From other", "user-3")]), history=[]),
        )
        final = await chat.send(chat.request([]), history=[])
    finally:
        await store_one.aclose()
        await store_other.aclose()

    users = [m.id for m in final.snapshot if m.role == "user"]
    assert users[0] == "user-1" and sorted(users[1:]) == ["user-2", "user-3"]
    assert len(final.snapshot) == 6
    seen = [
        sum(item.get("role") == "user" for item in call.input)
        for call in [*one.model.calls, *other.model.calls]
    ]
    assert sorted(seen) == [1, 2, 3]


@pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])
async def test_a_store_that_went_away_ends_the_run_with_an_error(
    tmp_path: Any, version: str | None
) -> None:
    s = shop()
    with redis_server_process(tmp_path / "redis") as url:
        store = RedisThreadStore(url)
        chat = Conversation(s.wrapper(store), version)
        await chat.say("Hello", "user-1")
    # The server stopped.
    run = await chat.send(chat.request([user("Again", "user-2")]), history=[])
    await store.aclose()

    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.run_error.code == THREAD_STORE_CODE
    assert run.error is not None and s.model.call_count == 1
