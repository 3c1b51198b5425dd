"""Real TypeScript clients accept subagent streams: @ag-ui/client 1.0.0 (strict) and 0.0.59.

The server is the real FastAPI endpoint serving a manager whose two specialists stream as
subagents (``support.subagent_app``); each client plays two turns against it.
"""

from __future__ import annotations

from typing import Any

import pytest

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


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_client_accepts_subagent_streams(version: ClientVersion) -> None:
    ensure_node_modules()
    with serve_app(build_app()) as base_url:
        scenario: dict[str, Any] = {
            "url": f"{base_url}/agent",
            "strict": True,
            "turns": [{"user": "Tell me about owls"}, {"user": "Thanks"}],
        }
        result = run_client(version, scenario)
    assert result["ok"], turn_errors(result)
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
    assert ("protocolVersion" in first["request"]) == (version == "v1")
