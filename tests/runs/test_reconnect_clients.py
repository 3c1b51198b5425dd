"""The real clients, through the documented ``resumingFetch`` (docs/frontends.md), against
runs that belong to the server: ``@ag-ui/client`` 1.0.0 and 0.0.59 and CopilotKit's runtime
accept a continued stream (every connection cut by a proxy after a few kilobytes, each drop
resumed by ``Last-Event-ID``) and a joined one (a reload, asking with nothing new, while the
answer is still being written). Real uvicorn, a real SQLite file, a real TCP proxy; nothing
depends on timing: the cuts are counted in bytes, and a held run waits for the join."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.cutting_proxy import cutting_proxy
from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    ensure_node_modules,
    run_client,
    serve_app,
    turn_errors,
)
from support.partial_turns import GUARD_SECONDS
from support.reconnect import (
    LONG_ANSWER,
    OPEN_GATE_HEADER,
    HeldModel,
    OpenGateOnAnswer,
    compiled_resuming_fetch,
    long_answer_app,
)

pytestmark = pytest.mark.slow

CUT_AFTER_BYTES = 8000
"""Larger than any one event (the closing MESSAGES_SNAPSHOT holds the whole answer), a small
part of the answer's stream (about 70 kB)."""
HOLD_AFTER = 40
"""The held run stops after this many words until a reload has joined it."""
TURNS = [{"user": "Tell me a story"}, {"user": "Once more, please"}]
SUCCESS = {"type": "success", "pendingToolCallIds": []}


@pytest.fixture(scope="module")
def resuming_fetch() -> Iterator[str]:
    ensure_node_modules()
    with compiled_resuming_fetch() as module:
        yield str(module)


def answer(turn: dict[str, Any]) -> str:
    return "".join(e["delta"] for e in turn["events"] if e["type"] == "TEXT_MESSAGE_CONTENT")


def check_resumed(turn: dict[str, Any], run_id: str) -> None:
    """The turn's stream was resumed several times, each time from an id of its run."""
    assert len(turn["resumedFrom"]) >= 3, turn["resumedFrom"]
    seqs = [int(i.removeprefix(f"{run_id}.")) for i in turn["resumedFrom"]]
    assert seqs == sorted(seqs)


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_a_cut_stream_completes_the_same_as_without_the_proxy(
    tmp_path: Path, resuming_fetch: str, version: ClientVersion
) -> None:
    app, _ = long_answer_app(SQLiteThreadStore(tmp_path / "threads.db"))
    with serve_app(app) as url:
        plain = {"url": f"{url}/agent", "fetchModule": resuming_fetch, "turns": TURNS}
        straight = run_client(version, {**plain, "threadId": "thread-straight"})
        with cutting_proxy(url, cut_after_bytes=CUT_AFTER_BYTES) as proxy:
            cut = run_client(version, {**plain, "url": f"{proxy.url}/agent", "threadId": "t-cut"})

    assert straight["ok"], turn_errors(straight)
    assert cut["ok"], turn_errors(cut)
    assert proxy.cuts >= 2 * 6
    for alone, resumed in zip(straight["turns"], cut["turns"], strict=True):
        assert alone["resumedFrom"] == []
        check_resumed(resumed, resumed["runId"])
        assert resumed["eventTypes"] == alone["eventTypes"]
        assert answer(resumed) == answer(alone) == LONG_ANSWER
        assert resumed["outcome"] == alone["outcome"] == SUCCESS
        said = [(m["role"], m.get("content")) for m in resumed["messages"]]
        assert said == [(m["role"], m.get("content")) for m in alone["messages"]]


def leave_mid_answer(url: str, model: HeldModel, thread: str) -> str:
    """Start a run, read it until the model is held, and drop the connection: its run id."""
    user = {"id": f"{thread}-user-1", "role": "user", "content": "Tell me a story"}
    body = {"threadId": thread, "runId": f"{thread}-run-1", "state": {}, "tools": [],
            "context": [], "forwardedProps": {}, "messages": [user]}  # fmt: skip
    words = 0
    with (
        httpx.Client(timeout=GUARD_SECONDS) as client,
        client.stream("POST", f"{url}/agent", json=body) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("data: "):
                words += json.loads(line[6:])["type"] == "TEXT_MESSAGE_CONTENT"
            if words == HOLD_AFTER:
                break
    assert model.reached.is_set() and not model.gate.is_set()
    return str(body["runId"])


def check_joined(result: dict[str, Any], live_run: str) -> None:
    """One valid run: the live run's RUN_STARTED, the thread before it, its whole answer."""
    assert result["ok"], turn_errors(result)
    [turn] = result["turns"]
    assert turn["request"]["messages"] == []
    assert turn["eventTypes"][:3] == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"]
    assert turn["events"][0]["runId"] == live_run
    assert [m["role"] for m in turn["events"][2]["messages"]] == ["user"]
    assert turn["eventTypes"].count("RUN_STARTED") == 1
    assert answer(turn) == LONG_ANSWER
    assert turn["eventTypes"][-1] == "RUN_FINISHED"
    assert [(m["role"], m.get("content")) for m in turn["messages"]] == [
        ("user", "Tell me a story"),
        ("assistant", LONG_ANSWER),
    ]


@pytest.mark.parametrize("cut", [False, True], ids=["whole", "cut"])
@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_a_reload_joins_the_live_answer(
    tmp_path: Path, resuming_fetch: str, version: ClientVersion, cut: bool
) -> None:
    app, model = long_answer_app(SQLiteThreadStore(tmp_path / "threads.db"), hold_after=HOLD_AFTER)
    thread = f"thread-join-{version}-{cut}"
    try:
        with serve_app(OpenGateOnAnswer(app, model)) as url:
            live_run = leave_mid_answer(url, model, thread)
            with cutting_proxy(url, cut_after_bytes=CUT_AFTER_BYTES) as proxy:
                scenario = {"url": f"{proxy.url if cut else url}/agent", "threadId": thread,
                            "turns": [{"reload": True}], "fetchModule": resuming_fetch,
                            "headers": {OPEN_GATE_HEADER: "1"}}  # fmt: skip
                result = run_client(version, scenario)
    finally:
        model.gate.set()

    check_joined(result, live_run)
    if cut:
        check_resumed(result["turns"][0], live_run)
    else:
        assert result["turns"][0]["resumedFrom"] == []


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_copilotkits_runtime_accepts_a_joined_and_a_continued_stream(
    tmp_path: Path, resuming_fetch: str, version: ClientVersion
) -> None:
    """Behind CopilotKit's runtime (its ``HttpAgent`` given ``resumingFetch``): a reload joins
    the live answer, and a new turn through a cutting proxy completes."""
    ensure_copilotkit()
    app, model = long_answer_app(SQLiteThreadStore(tmp_path / "threads.db"), hold_after=HOLD_AFTER)
    thread = f"thread-copilotkit-{version}"
    try:
        with (
            serve_app(OpenGateOnAnswer(app, model)) as url,
            cutting_proxy(url, cut_after_bytes=CUT_AFTER_BYTES) as proxy,
            serve_copilot_runtime(
                proxy.url, ["agent"], fetch_module=Path(resuming_fetch)
            ) as runtime,
        ):
            live_run = leave_mid_answer(url, model, thread)
            reload = {"turns": [{"reload": True}], "headers": {OPEN_GATE_HEADER: "1"}}
            joined = run_client(
                version, {"url": runtime.run_url("agent"), "threadId": thread, **reload}
            )
            again = {"url": runtime.run_url("agent"), "threadId": f"{thread}-2", "turns": TURNS}
            continued = run_client(version, again)
            errors = runtime.errors()
    finally:
        model.gate.set()

    check_joined(joined, live_run)
    assert continued["ok"], turn_errors(continued)
    assert [answer(turn) for turn in continued["turns"]] == [LONG_ANSWER, LONG_ANSWER]
    assert proxy.cuts >= 2 * 6
    assert errors == []
