"""Real TypeScript clients accept subagent streams: @ag-ui/client 1.0.0 (strict) and 0.0.59,
straight at the server and behind CopilotKit's runtime 1.75.

The server is the real FastAPI endpoint serving a manager whose two specialists stream as
subagents (``support.subagent_app``); each client plays two turns against it.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    ensure_node_modules,
    node_available,
    run_client,
    serve_app,
    turn_errors,
)
from support.subagent_app import build_app

pytestmark = pytest.mark.skipif(
    not node_available(), reason="real-client e2e checks need Node >= 18 and npm on PATH"
)


TURNS = [{"user": "Tell me about owls"}, {"user": "Thanks"}]


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_client_accepts_subagent_streams(version: ClientVersion) -> None:
    ensure_node_modules()
    with serve_app(build_app()) as base_url:
        scenario: dict[str, Any] = {"url": f"{base_url}/agent", "strict": True, "turns": TURNS}
        result = run_client(version, scenario)
    assert result["ok"], turn_errors(result)
    check_subagent_turns(result)
    assert ("protocolVersion" in result["turns"][0]["request"]) == (version == "v1")


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_copilotkit_runtime_passes_subagent_streams(version: ClientVersion) -> None:
    ensure_node_modules()
    ensure_copilotkit()
    with (
        serve_app(build_app()) as upstream,
        serve_copilot_runtime(upstream, ["agent"]) as runtime,
    ):
        scenario: dict[str, Any] = {"url": runtime.run_url("agent"), "strict": True, "turns": TURNS}
        result = run_client(version, scenario)
        logged = runtime.errors()
    assert result["ok"], turn_errors(result)
    assert logged == []
    check_subagent_turns(result)
    assert result["turns"][0]["events"][0]["input"]["messages"], "the runtime adds its input"


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_client_accepts_a_failed_subagent(version: ClientVersion) -> None:
    ensure_node_modules()
    with serve_app(build_app()) as base_url:
        scenario: dict[str, Any] = {
            "url": f"{base_url}/failing",
            "strict": True,
            "turns": [{"user": "Tell me about owls"}],
        }
        result = run_client(version, scenario)
    assert result["ok"], turn_errors(result)
    types = result["turns"][0]["eventTypes"]
    assert types.index("SUBAGENT_STARTED") < types.index("SUBAGENT_ERROR")
    assert types.index("SUBAGENT_ERROR") < types.index("TOOL_CALL_RESULT")
    assert types[-1] == "RUN_FINISHED"


def check_subagent_turns(result: dict[str, Any]) -> None:
    """Two subagents streamed and kept in the first turn; none in the plain second one."""
    first, second = result["turns"]
    types = first["eventTypes"]
    assert types.count("SUBAGENT_STARTED") == 2
    assert types.count("SUBAGENT_FINISHED") == 2
    started = [e for e in first["events"] if e["type"] == "SUBAGENT_STARTED"]
    assert {e["name"] for e in started} == {"Researcher", "Writer"}
    ids = {e["subagentRunId"] for e in started}
    tagged = [e for e in first["events"] if e.get("subagentRunId") in ids]
    assert any(e["type"] == "TEXT_MESSAGE_CONTENT" for e in tagged)
    assert any(e["type"] == "TOOL_CALL_START" and e["toolCallName"] == "lookup" for e in tagged)
    # The client keeps the specialists' messages, attributed, through the snapshot.
    kept = [m for m in first["messages"] if m.get("subagentRunId") in ids]
    assert {m["role"] for m in kept} >= {"assistant", "tool"}
    # The next turn sends them back; the manager answers from its own conversation.
    assert any(m.get("subagentRunId") for m in second["request"]["messages"])
    assert "SUBAGENT_STARTED" not in second["eventTypes"]
