"""Threads with the real AG-UI clients (``@ag-ui/client`` 1.0 and 0.0.59) and behind
CopilotKit's runtime, which re-sends the whole history and strips ``protocolVersion``: every
re-sent message is recognised, the model never sees one twice, an approval pauses and is
decided once, and the conversation stays the one the server kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ag_ui_openai_agents.threads import SQLiteThreadStore
from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    ensure_node_modules,
    run_client,
    serve_app,
    turn_errors,
)
from support.http import app_with
from support.threads import Shop, shop

pytestmark = pytest.mark.slow

THREAD = "thread-5c0d7e1a9b2f4a68b3e1"
TURNS = [
    {"user": "Refund order 7"},
    {"resume": {"payload": {"approved": True}}},
    {"user": "Thanks, that is all"},
]


def check_conversation(s: Shop, result: dict[str, Any]) -> None:
    assert result["ok"], turn_errors(result)
    outcomes = [turn["outcome"]["type"] for turn in result["turns"]]
    assert outcomes == ["interrupt", "success", "success"]
    assert s.refunds == [("call_refund_1", "7")]
    for call in s.model.calls:  # nothing the client re-sent reached the model twice
        keyed = [
            (item.get("type"), item.get("id") or item.get("call_id"))
            for item in call.input
            if item.get("id") or item.get("call_id")
        ]
        assert len(keyed) == len(set(keyed)), keyed
    last = s.model.calls[-1].input
    assert [str(item.get("content")) for item in last if item.get("role") == "user"] == [
        "Refund order 7",
        "Thanks, that is all",
    ]
    final = [m["id"] for m in result["turns"][-1]["messages"]]
    assert len(final) == len(set(final))


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_a_real_client_keeps_a_thread_on_the_server(tmp_path: Path, version: ClientVersion) -> None:
    ensure_node_modules()
    s = shop()
    app = app_with(s.wrapper(SQLiteThreadStore(tmp_path / "threads.db")))
    with serve_app(app) as base_url:
        result = run_client(
            version, {"url": f"{base_url}/agent", "threadId": THREAD, "turns": TURNS}
        )
    check_conversation(s, result)


def test_behind_copilotkits_runtime_the_resent_history_is_matched_by_id(tmp_path: Path) -> None:
    ensure_copilotkit()
    s = shop()
    app = app_with(s.wrapper(SQLiteThreadStore(tmp_path / "threads.db")))
    with serve_app(app) as upstream, serve_copilot_runtime(upstream, ["agent"]) as runtime:
        scenario = {"url": runtime.run_url("agent"), "threadId": THREAD, "turns": TURNS}
        result = run_client("v0", scenario)
        errors = runtime.errors()
    assert errors == []
    check_conversation(s, result)
    resent = [len(turn["request"]["messages"]) for turn in result["turns"]]
    assert resent[1] >= 2 and resent[2] > resent[1]  # the whole history, every time
