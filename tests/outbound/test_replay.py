"""Replay metadata: what the snapshot records, and the next request built from it, on the
scripted model (every kind of output item, several summary parts, phases)."""

from __future__ import annotations

from typing import Any

from ag_ui.core import AssistantMessage, ReasoningMessage
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents.outbound.replay import (
    ReplayInfo,
    ReplayRecorder,
    hosted_artefact,
    replay_metadata,
)
from ag_ui_openai_agents.protocol import (
    REPLAY_VERSION,
    CarriedItem,
    read_hosted_artefact,
    read_replay,
)
from support.replay_turns import EVERY_KIND
from support.runs import request, run_agui, user
from support.scripted import Text, Turn

set_tracing_disabled(True)


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"Facts about {topic}"


# --- the recorder --------------------------------------------------------------------------


def test_recorder_links_an_item_to_the_reasoning_directly_before_it() -> None:
    recorder = ReplayRecorder()
    rs = ReplayInfo(item_id="rs_1", reasoning=True)
    msg = ReplayInfo(item_id="msg_1")
    fc = ReplayInfo(item_id="fc_1")
    for index, info in enumerate((rs, msg, fc)):
        recorder.place(info, index)
    assert (rs.next_id, msg.after, fc.after) == ("msg_1", "rs_1", None)
    assert all(info.positioned for info in (rs, msg, fc))


def test_recorder_carries_items_without_a_window_to_the_next_window() -> None:
    recorder = ReplayRecorder()
    rs = ReplayInfo(item_id="rs_1", reasoning=True)
    msg = ReplayInfo(item_id="msg_1")
    recorder.place(rs, 0)
    recorder.carry({"type": "compaction", "id": "cmp_1"}, 1)
    recorder.place(msg, 2)
    assert rs.next_id == "cmp_1"
    assert msg.after is None
    assert [(c.item_id, c.after) for c in msg.lead] == [("cmp_1", "rs_1")]


def test_recorder_trails_leftover_items_on_the_last_window_of_the_response() -> None:
    recorder = ReplayRecorder()
    msg = ReplayInfo(item_id="msg_1")
    recorder.place(msg, 0)
    recorder.carry({"type": "mcp_list_tools", "id": "mcpl_1"}, 1)
    recorder.new_response()
    recorder.carry({"type": "compaction", "id": "__fake_id__"}, 0)
    recorder.finish()
    assert [c.item_id for c in msg.trail] == ["mcpl_1"]


def test_recorder_leaves_unpositioned_and_placeholder_items_alone() -> None:
    recorder = ReplayRecorder()
    committed_only = ReplayInfo(item_id="msg_1")
    placeholder = ReplayInfo(item_id=None)
    recorder.place(committed_only, None)
    recorder.place(placeholder, 0)
    assert not committed_only.positioned and not placeholder.positioned
    assert replay_metadata(committed_only) is None


# --- the layout ----------------------------------------------------------------------------


def test_layout_round_trips_and_is_versioned() -> None:
    info = ReplayInfo(
        item_id="msg_1",
        positioned=True,
        after="rs_1",
        phase="commentary",
        lead=[CarriedItem({"type": "compaction", "id": "cmp_1"}, "cmp_1", "rs_0")],
    )
    metadata = replay_metadata(info)
    assert metadata == {
        "openai": {
            "v": REPLAY_VERSION,
            "id": "msg_1",
            "after": "rs_1",
            "phase": "commentary",
            "lead": [{"item": {"type": "compaction", "id": "cmp_1"}, "after": "rs_0"}],
        }
    }
    read = read_replay(metadata)
    assert (read["id"], read["after"], read["phase"]) == ("msg_1", "rs_1", "commentary")
    assert [(c.item, c.after) for c in read["lead"]] == [
        ({"type": "compaction", "id": "cmp_1"}, "rs_0")
    ]
    assert read_replay({"openai": {"v": 2, "id": "msg_1"}}) == {}
    assert read_replay({"openai": "msg_1"}) == {}
    assert read_replay(None) == {}
    malformed = read_replay({"openai": {"v": 1, "id": 7, "lead": [{"item": {"type": "x"}}, 3]}})
    assert malformed == {"lead": []}


def test_hosted_artefact_is_the_provider_item_as_compact_json() -> None:
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    value = hosted_artefact(item)
    assert value == '{"type":"web_search_call","id":"ws_1","status":"completed"}'
    assert read_hosted_artefact(value, "web_search_call") == item
    assert read_hosted_artefact(value, "mcp_call") is None
    assert read_hosted_artefact("not json", "web_search_call") is None
    assert read_hosted_artefact('{"type":"web_search_call"}', "web_search_call") is None


# --- a whole conversation on the scripted model ------------------------------------------------


def _replayable(item: Any) -> dict[str, Any]:
    """An output item as the next request should carry it (the `.done` encrypted value)."""
    dumped: dict[str, Any] = item.model_dump(mode="json", exclude_unset=True)
    return dumped


async def test_next_request_replays_every_item_kind_in_the_providers_order() -> None:
    agent = Agent(name="a", tools=[lookup])
    first = await run_agui(agent, request(user("What is AG-UI?")), EVERY_KIND)
    second = await run_agui(
        agent,
        request(*first.snapshot, user("Thanks", id="user-2"), run_id="run-2"),
        [Turn([Text("Welcome.", id="msg_welcome")])],
    )
    assert first.model is not None and second.model is not None
    sent = second.model.calls[0].input
    produced = [item for response in first.model.responses for item in response.output]
    replayed = [item for item in sent if item.get("id")]
    assert [(i["type"], i["id"]) for i in replayed] == [(p.type, p.id) for p in produced]

    reasoning = [i for i in replayed if i["type"] == "reasoning"]
    assert [len(r["summary"]) for r in reasoning] == [4, 1, 1]
    assert [r["encrypted_content"] for r in reasoning] == ["gA-done-1", "gA-done-2", "gA-done-3"]
    assert reasoning[2]["content"] == [{"type": "reasoning_text", "text": "raw"}]
    phases = [i.get("phase") for i in replayed if i["type"] == "message"]
    assert phases == ["commentary", "final_answer"]
    hosted = {i["type"]: i for i in replayed if i["type"] not in ("reasoning", "message")}
    for item in produced:
        if item.type in ("mcp_list_tools", "web_search_call", "compaction"):
            assert hosted[item.type] == _replayable(item)


async def test_snapshot_carries_the_layout_in_metadata_never_in_text() -> None:
    run = await run_agui(Agent(name="a", tools=[lookup]), request(), EVERY_KIND)
    reasoning = [m for m in run.snapshot if isinstance(m, ReasoningMessage)]
    assert [m.metadata["openai"]["part"] for m in reasoning if m.metadata] == [
        "summary", "summary", "summary", "summary", "summary", "summary", "text",
    ]  # fmt: skip
    assert [m.content for m in reasoning[:4]] == ["One.", "Two.", "Three.", "Four."]
    first = reasoning[0].metadata
    assert first is not None and first["openai"]["next"] == "msg_1"
    assert [c["item"]["type"] for c in first["openai"]["lead"]] == ["mcp_list_tools"]
    assert reasoning[0].encrypted_value == "gA-done-1"
    assert all(m.encrypted_value is None for m in reasoning[1:4])
    texts = [m for m in run.snapshot if isinstance(m, AssistantMessage) and m.content]
    assert [m.content for m in texts] == ["Checking.", "It is a protocol."]
    assert texts[0].metadata == {
        "openai": {"v": 1, "id": "msg_1", "after": reasoning[0].metadata["openai"]["id"],
                   "phase": "commentary"}
    }  # fmt: skip
