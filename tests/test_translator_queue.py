"""The run's one bounded queue: SDK events, nested events and state changes in one order, never
more than the bound held for a slow client, and nothing left running once the stream is closed.

The queue on its own first, then through the real ``Runner.run_streamed``: the scripted model
streams without pausing (a fast producer) while the consumer gives the loop several turns per
event (a slow client). Bounds are checked by counting what the queue held, never by timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

import pytest
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    StateSnapshotEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    TextMessageContentEvent,
    ToolCallResultEvent,
)
from agents import Agent, function_tool

from ag_ui_openai_agents import (
    AGUITranslator,
    SharedState,
    shared_state,
    subagent_events,
    use_shared_state,
)
from ag_ui_openai_agents import run_queue as run_queue_module
from ag_ui_openai_agents.run_queue import IDLE, RunQueue
from support.invariants import check_stream
from support.reliability_harness import settle_tasks
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, run_streamed
from support.subagent_runs import AgentScripts

BOUND = 4
LONG = " ".join(f"word{i}" for i in range(120))


async def slowly(turns: int = 5) -> None:
    """A slow client: the loop gets several turns before the next event is asked for."""
    for _ in range(turns):
        await asyncio.sleep(0)


@pytest.fixture
def queues(monkeypatch: pytest.MonkeyPatch) -> list[RunQueue]:
    """The queues the runs of a test make, each bounded to ``BOUND``."""
    made: list[RunQueue] = []

    class Recorded(RunQueue):
        __slots__ = ("nested_waits",)

        def __init__(self, maxsize: int = BOUND) -> None:
            super().__init__(maxsize)
            self.nested_waits = 0
            made.append(self)

        def offer(self, item: Any) -> asyncio.Future[None] | None:
            parked = super().offer(item)
            self.nested_waits += parked is not None and isinstance(item, dict)
            return parked

    monkeypatch.setattr(run_queue_module, "RUN_QUEUE_SIZE", BOUND)
    monkeypatch.setattr(run_queue_module, "RunQueue", Recorded)
    return made


# --- the queue alone --------------------------------------------------------------------------


async def test_fast_producers_never_fill_the_queue_past_its_bound() -> None:
    queue = RunQueue(maxsize=BOUND)

    nested_done = asyncio.Event()

    async def stream() -> AsyncIterator[int]:
        for number in range(200):
            yield number  # never waits: as fast as it can go
        await nested_done.wait()  # as a run ends only after its tools returned

    async def nested() -> None:
        for number in range(100):
            parked = queue.offer(f"nested {number}")
            if parked is not None:
                await parked  # as the SDK awaits what on_stream returns
        nested_done.set()

    queue.read(stream())
    producer = asyncio.ensure_future(nested())
    taken: list[Any] = []
    held: list[int] = []
    async for item in queue:
        held.append(len(queue))
        if item is not IDLE:
            taken.append(item)
        await slowly()
    await producer

    assert max(held) <= BOUND and queue.peak == BOUND  # full at times, never over
    assert [item for item in taken if isinstance(item, int)] == list(range(200))
    assert [item for item in taken if isinstance(item, str)] == [
        f"nested {number}" for number in range(100)
    ]


async def test_a_failing_stream_fails_the_consumer_after_what_it_read() -> None:
    queue = RunQueue(maxsize=BOUND)

    async def stream() -> AsyncIterator[int]:
        yield 1
        yield 2
        raise RuntimeError("model broke")

    queue.read(stream())
    taken: list[Any] = []
    with pytest.raises(RuntimeError, match="model broke"):
        async for item in queue:
            taken.append(item)
    assert [item for item in taken if item is not IDLE] == [1, 2]


async def test_a_mark_gives_the_waiting_consumer_its_idle_turn() -> None:
    queue = RunQueue(maxsize=BOUND)
    assert await anext(queue) is IDLE  # the first turn, before anything arrived
    waiting = asyncio.ensure_future(anext(queue))
    await slowly()
    assert not waiting.done()
    queue.mark()
    assert await waiting is IDLE
    await queue.aclose()


async def test_closing_releases_waiting_producers_and_drops_what_comes_later() -> None:
    queue = RunQueue(maxsize=1)
    assert queue.offer("first") is None
    parked = queue.offer("second")
    assert parked is not None and not parked.done()
    await queue.aclose()
    assert parked.done() and len(queue) == 0
    assert queue.offer("third") is None and len(queue) == 0


# --- through the Runner -------------------------------------------------------------------------


async def translate_slowly(
    agent: Agent[Any], run_input: RunAgentInput, model: ScriptedResponsesModel
) -> list[BaseEvent]:
    translator = AGUITranslator()
    state = SharedState(run_input.state)
    with use_shared_state(state):
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, model=model)
    events: list[BaseEvent] = []
    async for event in translator.to_agui(result, run_input, shared_state=state):
        events.append(event)
        await slowly()
    check_stream(events, run_input=run_input)
    return events


def text_of(events: list[BaseEvent], *, nested: bool) -> str:
    return "".join(
        e.delta
        for e in events
        if isinstance(e, TextMessageContentEvent) and (e.subagent_run_id is not None) == nested
    )


async def test_a_slow_client_holds_a_fast_run_to_the_bound(queues: list[RunQueue]) -> None:
    model = ScriptedResponsesModel([Turn([Text(LONG, chunks=100)])])

    events = await translate_slowly(Agent(name="writer"), request(), model)

    assert text_of(events, nested=False) == LONG
    assert [queue.peak for queue in queues] == [BOUND]  # filled up, never past the bound


async def test_a_slow_client_holds_a_streaming_subagent_to_the_bound(
    queues: list[RunQueue],
) -> None:
    researcher = Agent(name="Researcher", instructions="research")
    tool = researcher.as_tool(
        tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
    )
    scripts = {
        "manage": [Turn([Call("research_topic", {"input": "owls"})]), Turn([Text("Done.")])],
        "research": [Turn([Text(LONG, chunks=100)])],
    }
    manager = Agent(name="Manager", instructions="manage", tools=[tool])

    events = await translate_slowly(
        manager, request(), ScriptedResponsesModel(AgentScripts(scripts))
    )

    assert text_of(events, nested=True) == LONG
    assert any(isinstance(e, SubagentFinishedEvent) for e in events)
    assert not any(isinstance(e, SubagentErrorEvent) for e in events)
    assert [queue.peak for queue in queues] == [BOUND]
    assert cast(Any, queues[0]).nested_waits > 0  # the nested run waited for the client too


async def test_state_changes_keep_their_place_among_a_slow_clients_events(
    queues: list[RunQueue],
) -> None:
    @function_tool
    def note(text: str) -> str:
        """Keep a note in the state."""
        shared_state().update(note=text)
        return "noted"

    model = ScriptedResponsesModel(
        [Turn([Call("note", {"text": "owls"})]), Turn([Text(LONG, chunks=60)])]
    )

    events = await translate_slowly(Agent(name="writer", tools=[note]), request(state={}), model)

    kinds = [type(e) for e in events]
    snapshot = kinds.index(StateSnapshotEvent)
    assert snapshot < kinds.index(ToolCallResultEvent) < kinds.index(TextMessageContentEvent)
    assert cast(StateSnapshotEvent, events[snapshot]).snapshot == {"note": "owls"}
    assert [queue.peak for queue in queues] == [BOUND]


# --- closing the stream mid-run -----------------------------------------------------------------


def subagent_run() -> tuple[Agent[Any], ScriptedResponsesModel]:
    researcher = Agent(name="Researcher", instructions="research")
    tool = researcher.as_tool(
        tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
    )
    scripts = {
        "manage": [Turn([Call("research_topic", {"input": "owls"})]), Turn([Text("Done.")])],
        "research": [Turn([Text(LONG, chunks=100)])],
    }
    manager = Agent(name="Manager", instructions="manage", tools=[tool])
    return manager, ScriptedResponsesModel(AgentScripts(scripts))


def text_run() -> tuple[Agent[Any], ScriptedResponsesModel]:
    return Agent(name="writer"), ScriptedResponsesModel([Turn([Text(LONG, chunks=100)])])


@pytest.mark.parametrize("shape", [text_run, subagent_run], ids=["text", "subagent"])
@pytest.mark.parametrize("read", [1, 8, 40])
async def test_closing_the_stream_mid_run_leaves_no_task_running(
    queues: list[RunQueue], shape: Any, read: int
) -> None:
    before = asyncio.all_tasks()
    agent, model = shape()
    run_input = request()
    translator = AGUITranslator()
    state = SharedState()
    with use_shared_state(state):
        result, _ = run_streamed(agent, translator.to_openai(run_input).messages, model=model)
    stream = translator.to_agui(result, run_input, shared_state=state)
    contents = 0
    async for event in stream:
        contents += isinstance(event, TextMessageContentEvent)
        if contents == read:
            break
    assert queues and queues[0].reading  # the reader was mid-stream
    await cast(AsyncGenerator[BaseEvent, None], stream).aclose()

    assert not queues[0].reading  # cancelled and awaited by the close itself
    assert queues[0].peak <= BOUND and len(queues[0]) == 0
    assert result.is_complete  # the SDK run was cancelled
    assert await settle_tasks(before) == set()


async def test_a_specialist_far_ahead_of_a_stalled_client_fails_its_call_cleanly(
    queues: list[RunQueue],
) -> None:
    """Past the SDK's ``on_stream_max_pending_events``, the SDK fails the call itself."""
    researcher = Agent(name="Researcher", instructions="research")
    tool = researcher.as_tool(
        tool_name="research_topic",
        tool_description="Research.",
        on_stream=subagent_events,
        on_stream_max_pending_events=5,
    )
    scripts = {
        "manage": [Turn([Call("research_topic", {"input": "owls"})]), Turn([Text("Done.")])],
        "research": [Turn([Text(LONG, chunks=100)])],
    }
    manager = Agent(name="Manager", instructions="manage", tools=[tool])
    run_input = request()
    translator = AGUITranslator()
    state = SharedState()
    with use_shared_state(state):
        result, _ = run_streamed(
            manager,
            translator.to_openai(run_input).messages,
            model=ScriptedResponsesModel(AgentScripts(scripts)),
        )
    events: list[BaseEvent] = []
    async for event in translator.to_agui(result, run_input, shared_state=state):
        events.append(event)
        if event.type.value == "SUBAGENT_STARTED":
            await slowly(200)  # the client stalls while the specialist streams on

    check_stream(events, run_input=run_input)
    assert [type(e) for e in events if isinstance(e, SubagentErrorEvent)] == [SubagentErrorEvent]
    result_event = next(e for e in events if isinstance(e, ToolCallResultEvent))
    assert result_event.content.startswith("An error occurred while running the tool")
    assert text_of(events, nested=False) == "Done."
    assert [queue.peak for queue in queues] == [BOUND]


async def test_a_stream_raising_cancellation_reaches_the_consumer() -> None:
    queue = RunQueue(maxsize=BOUND)

    async def stream() -> AsyncIterator[int]:
        yield 1
        raise asyncio.CancelledError

    queue.read(stream())
    taken: list[Any] = []
    with pytest.raises(asyncio.CancelledError):
        async for item in queue:
            taken.append(item)
    assert [item for item in taken if item is not IDLE] == [1]
