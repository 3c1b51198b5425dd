"""A request with nothing to answer (no message, no resume), as a page sends when it loads or
connects, never calls the model: an assistant turn nobody asked for would appear while the
person types (on the AG-UI Dojo's document editor, a whole document written into the page,
and the chat redrawn under the person's first message). Examples that keep threads answer it
from the store; stateless ones with the request's own state and no messages.

Through CopilotKit's runtime 1.75 (slow): ``/connect`` (a chat mounting) never reaches the
example server; a run with no message is posted to it as sent, and answered the same way.

Either way the page's state comes back as the page sent it when the server holds none for the
thread: a ``STATE_SNAPSHOT {}`` replaces the agent's state in the page, and the Dojo's document
editor, which copies ``state.document`` into the editor while a run is going on, empties the
document the person wrote.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, RunAgentInput, UserMessage
from ag_ui_openai_agents import SQLiteThreadStore

from agents_examples import EXAMPLES, ExampleSettings
from example_client import post_run
from server import create_app
from test_examples_copilot_runtime import RecordRunBodies

MODEL_EVENTS = {
    EventType.TEXT_MESSAGE_START,
    EventType.TOOL_CALL_START,
    EventType.REASONING_START,
    EventType.STEP_STARTED,
}
PAGE_STATE = {"document": ""}
"""A state a page set before its first message (the Dojo's document editor's)."""


def empty_request(thread_id: str, protocol_version: str | None) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread_id,
        run_id="run-load",
        messages=[],
        tools=[],
        context=[],
        state=PAGE_STATE,
        forwarded_props={},
        protocol_version=protocol_version,
    )


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The example server as it runs: with its thread store (the stateless examples stay so)."""
    app = create_app(ExampleSettings.offline_demo(threads=SQLiteThreadStore(tmp_path / "t.db")))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


@pytest.mark.parametrize("name", sorted(EXAMPLES))
async def test_a_request_with_nothing_to_answer_calls_no_model(
    served: httpx.AsyncClient, name: str, protocol_version: str | None
) -> None:
    run = await post_run(served, f"/{name}", empty_request(f"load-{name}", protocol_version))
    assert not MODEL_EVENTS & set(run.types), run.types
    assert run.snapshot.messages == []
    assert run.finished.outcome is None or run.finished.outcome.type == "success"
    # The page's own state comes back untouched, from a store that does not know the thread too:
    # a STATE_SNAPSHOT {} would empty the document editor the page shows during the run.
    assert run.state_snapshots == [PAGE_STATE]
    # Nothing was kept either: the first message starts the conversation.
    first = empty_request(f"load-{name}", protocol_version).model_copy(
        update={"messages": [UserMessage(id="u1", content="Hello")], "run_id": "run-1-hello"}
    )
    hello = await post_run(served, f"/{name}", first)
    assert [m.id for m in hello.snapshot.messages][:1] == ["u1"]


# --- through CopilotKit's runtime ---------------------------------------------------------------

PAGES = ["predictive_state_updates", "shared_state", "human_in_the_loop", "a2ui_dynamic_schema"]


@pytest.fixture(scope="module")
def runtime_and_upstream(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, RecordRunBodies]]:
    from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
    from support.e2e import ensure_node_modules, serve_app

    ensure_node_modules()
    ensure_copilotkit()
    store = SQLiteThreadStore(Path(tmp_path_factory.mktemp("threads")) / "threads.db")
    recorder = RecordRunBodies(create_app(ExampleSettings.offline_demo(threads=store)))
    with serve_app(recorder) as url, serve_copilot_runtime(url, PAGES) as runtime:
        yield runtime, recorder


def sse_types(body: str) -> list[str]:
    lines = (line[len("data: ") :] for line in body.splitlines() if line.startswith("data: "))
    return [json.loads(line)["type"] for line in lines]


def sse_state_snapshots(body: str) -> list[Any]:
    lines = (line[len("data: ") :] for line in body.splitlines() if line.startswith("data: "))
    events = (json.loads(line) for line in lines)
    return [e["snapshot"] for e in events if e["type"] == "STATE_SNAPSHOT"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_a_page_load_through_the_runtime_writes_nothing_into_the_chat(
    runtime_and_upstream: tuple[Any, RecordRunBodies], name: str
) -> None:
    runtime, recorder = runtime_and_upstream
    thread = f"dojo-load-{name}"
    body = empty_request(thread, None).model_dump(mode="json", by_alias=True, exclude_none=True)
    headers = {"accept": "text/event-stream"}
    with httpx.Client(timeout=60) as http:
        connected = http.post(
            f"{runtime.base_url}/agent/{name}/connect", json=body, headers=headers
        )
        assert connected.status_code == 200
        assert recorder.bodies.get(f"/{name}", []) == []  # /connect stays in the runtime
        ran = http.post(runtime.run_url(name), json=body, headers=headers)
    assert ran.status_code == 200
    [sent] = [b for b in recorder.bodies[f"/{name}"] if b["threadId"] == thread]
    assert sent["messages"] == [] and "protocolVersion" not in sent
    types = sse_types(ran.text)
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert not {t.value for t in MODEL_EVENTS} & set(types), types
    assert sse_state_snapshots(ran.text) == [PAGE_STATE]  # the page's state is left as it was
    assert runtime.errors() == []
