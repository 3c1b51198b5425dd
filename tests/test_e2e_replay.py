"""Replay fields through the real TypeScript clients: snapshot → client state → next request.

A scripted model streams every kind of output item (several summary parts, encrypted content,
phases, a function call, hosted calls, an MCP listing, compaction). The real `@ag-ui/client`
keeps the MESSAGES_SNAPSHOT and sends it back on the next turn; the next model request must be
valid (the request checker runs on every scripted request) and, with the 1.0 client, replay
every item the model produced, ids included; so must the request CopilotKit's runtime 1.75 sends
upstream.
"""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, function_tool

from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    ensure_node_modules,
    run_client,
    serve_app,
    turn_errors,
)
from support.http import app_with, wrapper_for
from support.replay_turns import EVERY_KIND
from support.scripted import ScriptedResponsesModel, Text, Turn

pytestmark = pytest.mark.slow


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"Facts about {topic}"


REPLAY_KEYS = ("metadata", "encryptedValue")


def replay_fields(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replay fields of each message and tool call, by id."""
    fields = []
    for message in messages:
        entry = {"id": message["id"], **{k: message.get(k) for k in REPLAY_KEYS}}
        entry["toolCalls"] = [
            {"id": c["id"], **{k: c.get(k) for k in REPLAY_KEYS}}
            for c in message.get("toolCalls") or []
        ]
        fields.append(entry)
    return fields


def converse(version: ClientVersion) -> tuple[dict[str, Any], ScriptedResponsesModel]:
    model = ScriptedResponsesModel([*EVERY_KIND, Turn([Text("Welcome.", id="msg_welcome")])])
    app = app_with(wrapper_for(Agent(name="a", tools=[lookup]), model))
    with serve_app(app) as base_url:
        scenario = {
            "url": f"{base_url}/agent",
            "threadId": f"replay-{version}",
            "turns": [{"user": "What is AG-UI?"}, {"user": "Thanks"}],
        }
        result = run_client(version, scenario)
    assert result["ok"], turn_errors(result)
    return result, model


@pytest.fixture(scope="module", params=CLIENT_VERSIONS)
def conversation(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], Any]:
    ensure_node_modules()
    version = request.param
    result, model = converse(version)
    return version, result, model


def test_the_client_sends_back_every_replay_field_it_was_given(
    conversation: tuple[str, dict[str, Any], Any],
) -> None:
    version, result, _ = conversation
    first, second = result["turns"]
    snapshot = next(e for e in first["events"] if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    # Activity messages (a hosted tool's progress) are for display: the client keeps them and
    # sends them back to no server, so the next request holds every other message.
    snapshot = [m for m in snapshot if m["role"] != "activity"]
    sent = second["request"]["messages"][: len(snapshot)]
    assert not [m for m in second["request"]["messages"] if m["role"] == "activity"]
    # The client keeps its own order for messages it already had: a tool result sits right
    # after the message holding its call. Pairs the API needs stay adjacent.
    assert sorted(m["id"] for m in sent) == sorted(m["id"] for m in snapshot)
    given = replay_fields(snapshot)
    assert any(entry["metadata"] for entry in given)
    assert any(call["encryptedValue"] for entry in given for call in entry["toolCalls"])
    # Both clients' schemas know `metadata` and `encryptedValue` on messages and tool calls.
    by_id = {entry["id"]: entry for entry in replay_fields(sent)}
    assert [by_id[entry["id"]] for entry in given] == given, version
    assert first["warnings"] == second["warnings"] == []


def test_the_next_model_request_replays_what_the_model_produced(
    conversation: tuple[str, dict[str, Any], Any],
) -> None:
    _, _, model = conversation
    assert model.call_count == 3
    produced = [item for response in model.responses[:2] for item in response.output]
    replayed = [item for item in model.calls[2].input if item.get("id")]
    assert [(i["type"], i["id"]) for i in replayed] == [(p.type, p.id) for p in produced]
    reasoning = [i for i in replayed if i["type"] == "reasoning"]
    assert [len(r["summary"]) for r in reasoning] == [4, 1, 1]
    assert [i.get("phase") for i in replayed if i["type"] == "message"] == [
        "commentary",
        "final_answer",
    ]


def test_behind_copilotkits_runtime_the_next_request_replays_everything() -> None:
    ensure_copilotkit()
    model = ScriptedResponsesModel([*EVERY_KIND, Turn([Text("Welcome.", id="msg_welcome")])])
    app = app_with(wrapper_for(Agent(name="a", tools=[lookup]), model))
    with serve_app(app) as upstream, serve_copilot_runtime(upstream, ["agent"]) as runtime:
        scenario = {
            "url": runtime.run_url("agent"),
            "threadId": "replay-runtime",
            "turns": [{"user": "What is AG-UI?"}, {"user": "Thanks"}],
        }
        result = run_client("v0", scenario)
        errors = runtime.errors()
    assert result["ok"], turn_errors(result)
    assert errors == []
    assert model.call_count == 3
    produced = [item for response in model.responses[:2] for item in response.output]
    replayed = [item for item in model.calls[2].input if item.get("id")]
    assert [(i["type"], i["id"]) for i in replayed] == [(p.type, p.id) for p in produced]
