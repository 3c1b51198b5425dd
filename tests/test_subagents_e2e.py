"""Real TypeScript clients and subagent streams: @ag-ui/client 1.0.0 (strict), 0.0.59 and
0.0.57, straight at the server and behind CopilotKit's runtime 1.75.

The server is the real FastAPI endpoint serving a manager whose two specialists stream as
subagents (``support.subagent_app``); each client plays two turns against it. By default only
the 1.0 client (the one that sends ``protocolVersion``) sees the subagents, and every client
accepts every turn; with ``subagents_for_pre_1_0_clients`` 0.0.59 sees them too, while 0.0.57
rejects the first SUBAGENT_STARTED, which is why the opt-in is not the default.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.e2e import (
    CLIENT_VERSIONS,
    OLDEST_CLIENT,
    ClientVersion,
    ensure_node_modules,
    node_available,
    run_client,
    serve_app,
    turn_errors,
)
from support.subagent_app import build_app

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not node_available(), reason="real-client e2e checks need Node >= 18 and npm on PATH"
    ),
]


TURNS = [{"user": "Tell me about owls"}, {"user": "Thanks"}]
ALL_CLIENTS = (*CLIENT_VERSIONS, OLDEST_CLIENT)


def play(version: ClientVersion, *, opt_in: bool, route: str = "agent") -> dict[str, Any]:
    ensure_node_modules()
    with serve_app(build_app(subagents_for_pre_1_0_clients=opt_in)) as base_url:
        scenario: dict[str, Any] = {"url": f"{base_url}/{route}", "strict": True, "turns": TURNS}
        return run_client(version, scenario)


@pytest.mark.parametrize("version", ALL_CLIENTS)
def test_every_client_accepts_every_turn_by_default(version: ClientVersion) -> None:
    result = play(version, opt_in=False)
    assert result["ok"], turn_errors(result)
    assert ("protocolVersion" in result["turns"][0]["request"]) == (version == "v1")
    if version == "v1":
        check_subagent_turns(result)
    else:
        check_plain_turns(result)


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_opt_in_shows_the_subagents_to_0_0_59_too(version: ClientVersion) -> None:
    result = play(version, opt_in=True)
    assert result["ok"], turn_errors(result)
    check_subagent_turns(result)


def test_0_0_57_rejects_the_subagent_events_the_opt_in_sends() -> None:
    result = play(OLDEST_CLIENT, opt_in=True)
    assert not result["ok"]
    error = result["turns"][0]["error"]
    # The event's type is none of those the client lists as allowed.
    assert "invalid_union_discriminator" in error and "SUBAGENT_STARTED" not in error
    assert result["turns"][1]["error"].startswith("not run")


@pytest.mark.parametrize("opt_in", [False, True], ids=["default", "opted-in"])
@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_copilotkit_runtime_passes_subagent_streams(version: ClientVersion, opt_in: bool) -> None:
    """The runtime strips ``protocolVersion``: its clients see subagents only with the opt-in."""
    ensure_node_modules()
    ensure_copilotkit()
    with (
        serve_app(build_app(subagents_for_pre_1_0_clients=opt_in)) as upstream,
        serve_copilot_runtime(upstream, ["agent"]) as runtime,
    ):
        scenario: dict[str, Any] = {"url": runtime.run_url("agent"), "strict": True, "turns": TURNS}
        result = run_client(version, scenario)
        logged = runtime.errors()
    assert result["ok"], turn_errors(result)
    assert logged == []
    if opt_in:
        check_subagent_turns(result)
    else:
        check_plain_turns(result)
    assert result["turns"][0]["events"][0]["input"]["messages"], "the runtime adds its input"


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_client_accepts_a_failed_subagent(version: ClientVersion) -> None:
    result = play(version, opt_in=True, route="failing")
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


def check_plain_turns(result: dict[str, Any]) -> None:
    """The manager's two calls and their results, as a plain agent tool streams them."""
    first, second = result["turns"]
    assert not any(t.startswith("SUBAGENT_") for t in first["eventTypes"])
    assert not any("subagentRunId" in e for e in first["events"])
    calls = [e["toolCallName"] for e in first["events"] if e["type"] == "TOOL_CALL_START"]
    assert sorted(calls) == ["research_topic", "write_prose"]
    assert first["eventTypes"].count("TOOL_CALL_RESULT") == 2
    # The client's history holds the manager's conversation, with nothing of the specialists.
    assert [m["role"] for m in first["messages"]] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert "Owls hoot" in first["messages"][-1]["content"]
    assert second["outcome"]["type"] == "success"
