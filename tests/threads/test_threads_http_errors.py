"""The thread errors reach an HTTP client with the codes docs/errors.md documents.

Over the real FastAPI app: a store that cannot load (``THREAD_STORE_ERROR``), a ``thread_key``
hook that refuses (``THREAD_FORBIDDEN``) and a save refused because the lock was taken over
(``THREAD_LOCK_LOST``) each end the stream with that code, not ``AGENT_ERROR``: served as they
are, and served by a wrapper whose events reach the route only once its run is over (so the
route builds the RUN_ERROR from the run's exception). No exception text reaches the client.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent, UserMessage
from agents import set_tracing_disabled

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.errors import (
    THREAD_KEY_CODE,
    THREAD_KEY_MESSAGE,
    THREAD_LOST_CODE,
    THREAD_LOST_MESSAGE,
    THREAD_STORE_CODE,
    THREAD_STORE_MESSAGE,
)
from ag_ui_openai_agents.threads import SQLiteThreadStore
from ag_ui_openai_agents.threads.store import ThreadLockLostError
from support.http import app_with, asgi_client
from support.invariants import check_stream, parse_sse
from support.threads import PROTOCOLS, by_thread_id, shop

set_tracing_disabled(True)

SECRET = "sqlite-at-/srv/private/threads.db-said-no"


class LoadFails(SQLiteThreadStore):
    async def load(self, key: str) -> str | None:
        raise OSError(SECRET)


class LockTakenOver(SQLiteThreadStore):
    async def save(self, key: str, document: str, token: str) -> None:
        raise ThreadLockLostError(SECRET)


def refusing_key(thread_id: str, request: Any) -> str:
    raise PermissionError(SECRET)


class Buffered(OpenAIAgentsAgent):
    """A wrapper that sends its run's events once the run is over (say, to rewrite them):
    when the run raises, only its exception reaches the route."""

    async def run_streamed(
        self, run_input: RunAgentInput, *, request: Any = None
    ) -> AsyncGenerator[BaseEvent, None]:
        events = [event async for event in super().run_streamed(run_input, request=request)]
        for event in events:
            yield event


CASES = {
    "store": (LoadFails, by_thread_id, THREAD_STORE_CODE, THREAD_STORE_MESSAGE),
    "key": (SQLiteThreadStore, refusing_key, THREAD_KEY_CODE, THREAD_KEY_MESSAGE),
    "lock": (LockTakenOver, by_thread_id, THREAD_LOST_CODE, THREAD_LOST_MESSAGE),
}


def body(version: str | None) -> dict[str, Any]:
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-1",
        protocol_version=version,
        messages=[UserMessage(id="user-1", content="Hello")],
        tools=[],
        context=[],
        state={},
        forwarded_props={},
    ).model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])
@pytest.mark.parametrize("served", [OpenAIAgentsAgent, Buffered], ids=["served", "buffered"])
@pytest.mark.parametrize("case", list(CASES))
async def test_each_thread_error_arrives_with_its_code(
    case: str, served: type[OpenAIAgentsAgent], version: str | None, tmp_path: Path
) -> None:
    store_class, key, code, message = CASES[case]
    s = shop()
    wrapper = served(
        s.agent, run_config=s.config, threads=store_class(tmp_path / "t.db"), thread_key=key
    )
    payload = body(version)

    async with asgi_client(app_with(wrapper)) as client:
        response = await client.post("/agent", json=payload)

    assert response.status_code == 200
    events = parse_sse(response.content)
    check_stream(events, run_input=RunAgentInput.model_validate(payload), pre_1_0=version is None)
    errors = [e for e in events if isinstance(e, RunErrorEvent)]
    assert [(e.code, e.message) for e in errors] == [(code, message)]
    assert SECRET not in response.text
