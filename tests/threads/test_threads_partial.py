"""A turn whose client goes away is saved as far as it got: the user's message, the text
streamed so far, tool calls and the results of the tools that ran. A call left open is closed
INTERRUPTED and partial reasoning is dropped, so the next model request is one the Responses
API accepts (every scripted model request passes ``support.responses_input.check_input``).

The real runner, both request kinds, a real SQLite file; the client leaves by closing the
wrapper's stream (the HTTP route does the same when the connection drops: see
test_threads_partial_http.py).
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    MessagesSnapshotEvent,
    ReasoningMessage,
    RunAgentInput,
    TextMessageContentEvent,
    ToolMessage,
)
from agents import Agent, RunConfig, set_tracing_disabled

from ag_ui_openai_agents import OpenAIAgentsAgent, subagent_events
from ag_ui_openai_agents.threads import INTERRUPTED_RESULT, SQLiteThreadStore
from support.invariants import check_stream
from support.partial_turns import (
    AFTER_REASONING,
    AFTER_TOOL,
    ANSWER,
    MID_ARGUMENTS,
    MID_REASONING,
    MID_TEXT,
    OPEN_CALL,
    Scenario,
    Stall,
    StallingModel,
    Tools,
    calls_of,
    leave_midway,
    outputs_of,
    request,
    user,
    wrapper_of,
)
from support.runs import check_prefix
from support.scripted import Call, ScriptedProvider, Text, Turn
from support.threads import PROTOCOLS, by_thread_id

set_tracing_disabled(True)

pytestmark = pytest.mark.parametrize("version", PROTOCOLS, ids=["1.0", "pre-1.0"])

THREAD = "thread-5d1c0f7e9a2b4c68"


class Client:
    """One client of one thread, through the wrapper."""

    def __init__(self, scenario: Scenario, store: SQLiteThreadStore, version: str | None):
        self.tools = Tools()
        self.wrapper, self.model = wrapper_of(scenario, self.tools, store)
        self.scenario, self.version, self.runs = scenario, version, 0

    def request(self, *messages: Any) -> RunAgentInput:
        self.runs += 1
        return request(THREAD, f"run-{self.runs}", self.version, messages)

    async def leave(self, *messages: Any) -> list[BaseEvent]:
        run_input = self.request(*messages)
        events = await leave_midway(self.wrapper, run_input, self.scenario)
        check_prefix(events, run_input)
        return events

    async def send(self, run_input: RunAgentInput, history: list[Any]) -> list[Any]:
        """A whole run; its MESSAGES_SNAPSHOT (checked against ``history``)."""
        events = [event async for event in self.wrapper.run_streamed(run_input)]
        trusted = run_input.model_copy(update={"messages": history})
        check_stream(events, run_input=trusted, pre_1_0=self.version is None)
        (snapshot,) = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
        return list(snapshot.messages)

    async def reload(self) -> list[Any]:
        return await self.send(self.request(), [])


def said(messages: list[Any]) -> list[tuple[str, Any]]:
    """Each message as (role, what it says): text, call ids, or the answered call and result."""
    out: list[tuple[str, Any]] = []
    for message in messages:
        if isinstance(message, ToolMessage):
            out.append(("tool", (message.tool_call_id, message.content)))
        elif isinstance(message, AssistantMessage):
            calls = [call.id for call in message.tool_calls or []]
            out.append(("assistant", (message.content, calls)))
        else:
            out.append((message.role, message.content))
    return out


async def test_a_client_leaving_mid_text_keeps_its_message_and_the_partial_answer(
    tmp_path: Path, version: str | None
) -> None:
    client = Client(MID_TEXT, SQLiteThreadStore(tmp_path / "threads.db"), version)
    ask = user("What is the answer?", "user-1")

    left = await client.leave(ask)
    reloaded = await client.reload()
    go_on = user("Go on", "user-2")
    after = await client.send(client.request(go_on), [*reloaded, go_on])

    streamed = "".join(e.delta for e in left if isinstance(e, TextMessageContentEvent))
    assert streamed == "The answer" and ANSWER.startswith(streamed)
    assert said(reloaded) == [("user", "What is the answer?"), ("assistant", ("The answer", []))]
    assert reloaded[1].id == "msg_answer"  # the id the client was streamed
    assert said(after)[2:] == [("user", "Go on"), ("assistant", ("Going on.", []))]
    next_input = client.model.calls[1].input
    assert [item.get("content") for item in next_input if item.get("role") == "assistant"] == [
        "The answer"
    ]


async def test_the_result_of_a_tool_that_ran_is_kept_and_never_run_again(
    tmp_path: Path, version: str | None
) -> None:
    client = Client(AFTER_TOOL, SQLiteThreadStore(tmp_path / "threads.db"), version)

    left = await client.leave(user("Where is order 7?", "user-1"))
    reloaded = await client.reload()
    thanks = user("Thanks", "user-2")
    await client.send(client.request(thanks), [*reloaded, thanks])

    assert "TOOL_CALL_RESULT" in [e.type.value for e in left]
    assert said(reloaded) == [
        ("user", "Where is order 7?"),
        ("assistant", (None, ["call_lookup"])),
        ("tool", ("call_lookup", "Found order 7: shipped yesterday")),
        ("assistant", ("Order", [])),
    ]
    assert client.tools.lookups == ["order 7"]  # once: the next turn reads its result
    next_input = client.model.calls[2].input
    assert outputs_of(next_input) == {"call_lookup": "Found order 7: shipped yesterday"}


@pytest.mark.parametrize("scenario", [OPEN_CALL, MID_ARGUMENTS], ids=["tool-running", "mid-args"])
async def test_an_open_call_is_closed_interrupted_and_the_next_request_is_valid(
    tmp_path: Path, version: str | None, scenario: Scenario
) -> None:
    client = Client(scenario, SQLiteThreadStore(tmp_path / "threads.db"), version)

    await client.leave(user("Where is order 7?", "user-1"))
    reloaded = await client.reload()
    again = user("Any news?", "user-2")
    after = await client.send(client.request(again), [*reloaded, again])

    (call,) = [c for m in reloaded if isinstance(m, AssistantMessage) for c in m.tool_calls or []]
    assert said(reloaded)[2] == ("tool", (call.id, INTERRUPTED_RESULT))
    assert len(reloaded) == 3
    next_input = client.model.calls[1].input  # passed the request checker
    assert outputs_of(next_input) == {call.id: INTERRUPTED_RESULT}
    expected_arguments = {"q": "order 7"} if scenario is OPEN_CALL else {}
    assert calls_of(next_input) == {call.id: expected_arguments}
    assert said(after)[-1] == ("assistant", ("Ask me again later.", []))
    assert client.tools.lookups == []  # a call cut short mid-arguments never runs


@pytest.mark.parametrize(
    "scenario", [MID_REASONING, AFTER_REASONING], ids=["mid-reasoning", "after-reasoning"]
)
async def test_partial_reasoning_is_dropped(
    tmp_path: Path, version: str | None, scenario: Scenario
) -> None:
    client = Client(scenario, SQLiteThreadStore(tmp_path / "threads.db"), version)

    left = await client.leave(user("Train or plane?", "user-1"))
    reloaded = await client.reload()
    again = user("Sure?", "user-2")
    await client.send(client.request(again), [*reloaded, again])

    assert "REASONING_MESSAGE_CONTENT" in [e.type.value for e in left]
    assert not [m for m in reloaded if isinstance(m, ReasoningMessage)]
    expected = [("user", "Train or plane?")]
    if scenario is AFTER_REASONING:
        expected.append(("assistant", ("Take", [])))
    assert said(reloaded) == expected
    next_input = client.model.calls[1].input  # passed the request checker
    assert [item.get("type") for item in next_input].count("reasoning") == 0


async def test_a_run_that_fails_after_a_tool_ran_keeps_its_result(
    tmp_path: Path, version: str | None
) -> None:
    fails = Scenario(
        (
            Turn([Call("lookup", {"q": "order 7"}, call_id="call_lookup", id="fc_lookup")]),
            Turn(raise_before=RuntimeError("the model provider went away")),
            Turn([Text("It shipped.", id="msg_shipped")]),
        ),
        None,
        "RUN_ERROR",
    )
    client = Client(fails, SQLiteThreadStore(tmp_path / "threads.db"), version)

    with pytest.raises(RuntimeError, match="went away"):
        async for _ in client.wrapper.run_streamed(client.request(user("Order 7?", "user-1"))):
            pass
    reloaded = await client.reload()
    again = user("And?", "user-2")
    await client.send(client.request(again), [*reloaded, again])

    assert said(reloaded)[1:] == [
        ("assistant", (None, ["call_lookup"])),
        ("tool", ("call_lookup", "Found order 7: shipped yesterday")),
    ]
    assert client.tools.lookups == ["order 7"]
    assert outputs_of(client.model.calls[2].input) == {
        "call_lookup": "Found order 7: shipped yesterday"
    }


async def test_the_save_holds_when_the_task_is_cancelled_again_while_saving(
    tmp_path: Path, version: str | None
) -> None:
    saving, go_on = asyncio.Event(), asyncio.Event()
    saves: list[str] = []

    class SlowSaves(SQLiteThreadStore):
        async def save(self, key: str, document: str, token: str) -> None:
            saving.set()
            await go_on.wait()
            await super().save(key, document, token)
            saves.append(document)

    client = Client(MID_TEXT, SlowSaves(tmp_path / "threads.db"), version)
    run_input = client.request(user("What is the answer?", "user-1"))
    seen: list[BaseEvent] = []

    async def read() -> None:
        async for event in client.wrapper.run_streamed(run_input):
            seen.append(event)

    async def two_words() -> None:  # the model stalls after two words
        while len([e for e in seen if e.type.value == "TEXT_MESSAGE_CONTENT"]) < 2:
            await asyncio.sleep(0.01)

    task = asyncio.create_task(read())
    await asyncio.wait_for(two_words(), 30)
    task.cancel()  # the client goes away: the run is cancelled and saves what it got
    await asyncio.wait_for(saving.wait(), 30)
    task.cancel()  # cancelled again, mid-save
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    reloaded = await client.reload()

    assert len(saves) == 1
    assert said(reloaded) == [("user", "What is the answer?"), ("assistant", ("The answer", []))]


async def test_a_subagent_cut_short_leaves_its_call_interrupted_and_its_work_attributed(
    tmp_path: Path, version: str | None
) -> None:
    turns = [
        Turn([Call("research", {"input": "order 7"}, call_id="call_research", id="fc_research")]),
        Turn([Text("Order 7 left the warehouse on Monday.", id="msg_found")]),
        Turn([Text("Still looking.", id="msg_still")]),
    ]
    model = StallingModel(turns, Stall(1, "response.output_text.delta", 2))
    researcher = Agent(name="researcher", instructions="Research.")
    tool = researcher.as_tool(
        tool_name="research", tool_description="Research.", on_stream=subagent_events
    )
    wrapper = OpenAIAgentsAgent(
        Agent(name="manager", instructions="Delegate.", tools=[tool]),
        run_config=RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True),
        threads=SQLiteThreadStore(tmp_path / "threads.db"),
        thread_key=by_thread_id,
    )
    client = Client(Scenario(tuple(turns), model.stall, ""), wrapper.threads.store, version)
    client.wrapper, client.model = wrapper, model  # the manager and its agent tool
    run_input = client.request(user("Where is order 7?", "user-1"))
    seen: list[BaseEvent] = []

    async def leave() -> None:  # once the subagent's answer stopped after two words
        async with aclosing(wrapper.run_streamed(run_input)) as stream:
            async for event in stream:
                seen.append(event)
                if version is None and event.type.value == "TOOL_CALL_END":
                    await model.stalled.wait()  # its events are not streamed to this client
                    return
                if len([e for e in seen if isinstance(e, TextMessageContentEvent)]) == 2:
                    return

    await asyncio.wait_for(leave(), 30)
    check_prefix(seen, run_input)
    reloaded = await client.reload()
    again = user("And now?", "user-2")
    await client.send(client.request(again), [*reloaded, again])

    top = [m for m in reloaded if m.subagent_run_id is None]
    assert said(top) == [
        ("user", "Where is order 7?"),
        ("assistant", (None, ["call_research"])),
        ("tool", ("call_research", INTERRUPTED_RESULT)),
    ]
    nested = [said([m]) for m in reloaded if m.subagent_run_id is not None]
    assert nested == ([] if version is None else [[("assistant", ("Order 7", []))]])
    # the call's INTERRUPTED result comes after the work of its subagent, as a result would
    assert [m.role for m in reloaded][-1] == "tool"
    next_input = model.calls[2].input  # passed the request checker
    assert outputs_of(next_input) == {"call_research": INTERRUPTED_RESULT}
    assert "Order 7" not in str(next_input)  # the subagent's work stays out of the request
