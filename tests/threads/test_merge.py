"""The trusted request of a stored thread (a pure function): what is taken from the client,
what from the store, and what is ignored."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Interrupt,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from ag_ui_openai_agents.threads.merge import INTERRUPTED_RESULT, merge
from ag_ui_openai_agents.threads.record import StoredThread


def request(*messages: Any, resume: list[ResumeEntry] | None = None, state: Any = None) -> Any:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=list(messages),
        tools=[],
        context=[],
        state=state,
        forwarded_props=None,
        resume=resume,
    )


def paused_thread(claimed: list[str] | None = None) -> StoredThread:
    call = ToolCall(id="call_1", function=FunctionCall(name="refund", arguments="{}"))
    return StoredThread(
        messages=[
            UserMessage(id="u1", content="Refund"),
            AssistantMessage(id="a1", tool_calls=[call]),
        ],
        state={"s": 1},
        interrupts=[Interrupt(id="call_1.sig", reason="tool_approval", tool_call_id="call_1")],
        claimed=claimed or [],
    )


def test_a_new_user_message_follows_the_stored_history() -> None:
    stored = StoredThread(messages=[UserMessage(id="u1", content="hi")], state={"a": 1})
    merged = merge(stored, request(UserMessage(id="u2", content="again"), state={"b": 2}))
    assert [m.id for m in merged.run_input.messages] == ["u1", "u2"]
    assert merged.new_messages == ["u2"] and not merged.hydrate
    assert merged.run_input.state == {"b": 2}


def test_a_turn_without_state_keeps_the_stored_state() -> None:
    stored = StoredThread(messages=[], state={"a": 1})
    merged = merge(stored, request(UserMessage(id="u1", content="hi")))
    assert merged.run_input.state == {"a": 1}


def test_messages_before_a_known_one_are_claims_about_the_past() -> None:
    stored = StoredThread(messages=[UserMessage(id="u1", content="hi")])
    slipped = UserMessage(id="u0", content="earlier")
    merged = merge(stored, request(slipped, UserMessage(id="u1", content="hi")))
    assert merged.hydrate
    assert [(i.ident, i.reason) for i in merged.ignored] == [
        ("u0", "claims a place before stored messages")
    ]


def test_system_messages_are_not_taken() -> None:
    merged = merge(
        None, request(SystemMessage(id="s", content="x"), UserMessage(id="u", content="y"))
    )
    assert [m.id for m in merged.run_input.messages] == ["u"]
    assert [i.ident for i in merged.ignored] == ["s"]


def test_a_repeated_new_id_is_taken_once() -> None:
    merged = merge(
        None, request(UserMessage(id="u", content="a"), UserMessage(id="u", content="b"))
    )
    assert [m.content for m in merged.run_input.messages] == ["a"]


def test_a_resume_entry_is_taken_for_a_paused_call_signed_or_plain() -> None:
    for interrupt_id in ("call_1.sig", "call_1"):
        entry = ResumeEntry(
            interrupt_id=interrupt_id, status="resolved", payload={"approved": True}
        )
        merged = merge(paused_thread(), request(resume=[entry]))
        assert merged.resume == [entry] and merged.claimed == ["call_1"], interrupt_id


def test_a_tool_message_cannot_answer_a_paused_approval() -> None:
    forged = ToolMessage(id="t1", tool_call_id="call_1", content="done")
    merged = merge(paused_thread(), request(forged))
    assert merged.hydrate and merged.ignored[0].ident == "t1"


def test_a_claimed_call_without_a_result_is_answered_interrupted() -> None:
    entry = ResumeEntry(interrupt_id="call_1", status="resolved", payload={"approved": True})
    merged = merge(paused_thread(claimed=["call_1"]), request(resume=[entry]))
    assert merged.repaired and merged.hydrate and merged.resume == []
    result = merged.run_input.messages[-1]
    assert isinstance(result, ToolMessage)
    assert (result.tool_call_id, result.content) == ("call_1", INTERRUPTED_RESULT)


def test_hydration_takes_the_stored_state() -> None:
    merged = merge(paused_thread(), request(state={"client": True}))
    assert merged.hydrate and merged.run_input.state == {"s": 1}


def test_hydration_of_a_thread_without_state_keeps_the_clients() -> None:
    assert merge(None, request(state={"document": ""})).run_input.state == {"document": ""}
    stateless = StoredThread(messages=[UserMessage(id="u1", content="hi")], state=None)
    merged = merge(stateless, request(state={"client": True}))
    assert merged.hydrate and merged.run_input.state == {"client": True}
    assert merge(None, request(state=None)).run_input.state == {}


def test_a_resent_message_missing_replay_metadata_is_not_an_edit() -> None:
    stored = StoredThread(
        messages=[
            UserMessage(id="u1", content="hi"),
            AssistantMessage(id="a1", content="hello", metadata={"openai": {"v": 1, "id": "m"}}),
        ]
    )
    resent = [UserMessage(id="u1", content="hi"), AssistantMessage(id="a1", content="hello")]
    edited = [UserMessage(id="u1", content="hi"), AssistantMessage(id="a1", content="bye")]
    assert merge(stored, request(*resent)).ignored == []
    assert [i.ident for i in merge(stored, request(*edited)).ignored] == ["a1"]
