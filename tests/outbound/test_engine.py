"""The outbound engine: dispatch tables, override points, ids, isolation between runs."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from ag_ui.core import BaseEvent, CustomEvent, RunStartedEvent, TextMessageContentEvent
from ag_ui.encoder import EventEncoder
from agents import Agent, function_tool, set_tracing_disabled
from agents.items import (
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    ToolApprovalItem,
    ToolCallOutputItem,
)
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.stream_events import AgentUpdatedStreamEvent, RunItemStreamEvent
from openai.types.responses import (
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputMessage,
)
from openai.types.responses.response_output_item import McpApprovalRequest, McpListTools
from pydantic import BaseModel

from ag_ui_openai_agents import AGUITranslator
from ag_ui_openai_agents.outbound.engine import (
    _ITEM_ADDED,
    _ITEM_DONE,
    IGNORED_RAW_EVENT_TYPES,
    IGNORED_RUN_ITEM_TYPES,
    RAW_EVENT_HANDLERS,
    RUN_ITEM_HANDLERS,
    OpenAIToAGUITranslator,
)
from ag_ui_openai_agents.protocol import HOSTED_CALL_TYPES
from support.invariants import FORBIDDEN_KEYS
from support.runs import (
    AguiRun,
    brief,
    item_event,
    record,
    request,
    run_agui,
    translate_events,
    user,
)
from support.scripted import Call, Hosted, Reasoning, Text, Turn

set_tracing_disabled(True)


# The subclass from the "Custom mappings" section of the specification, as written there.
class MyOutboundTranslator(OpenAIToAGUITranslator):
    def translate_mcp_approval_request_item(self, item):  # type: ignore[no-untyped-def]
        return []  # Application-specific behavior.


translator = AGUITranslator(outbound_cls=MyOutboundTranslator)


@function_tool
def echo(n: int) -> str:
    """Echo a number."""
    return f"echo {n}"


def approval_request() -> McpApprovalRequest:
    return McpApprovalRequest(
        id="mcpr_1",
        type="mcp_approval_request",
        server_label="files",
        name="delete_file",
        arguments='{"path":"/tmp/x"}',
    )


def mcp_events(agent: Agent[Any]) -> list[RunItemStreamEvent]:
    """The three MCP bookkeeping items a hosted MCP server produces."""
    listing = McpListTools(id="mcpl_1", type="mcp_list_tools", server_label="files", tools=[])
    response: Any = {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": True,
    }
    return [
        item_event("mcp_list_tools", MCPListToolsItem(agent=agent, raw_item=listing)),
        item_event(
            "mcp_approval_requested",
            MCPApprovalRequestItem(agent=agent, raw_item=approval_request()),
        ),
        item_event(
            "mcp_approval_response", MCPApprovalResponseItem(agent=agent, raw_item=response)
        ),
    ]


# --------------------------------------------------------------------------- dispatch


@pytest.mark.parametrize(
    "table",
    [RAW_EVENT_HANDLERS, RUN_ITEM_HANDLERS, _ITEM_ADDED, _ITEM_DONE],
    ids=["raw", "run_item", "item_added", "item_done"],
)
def test_every_dispatch_entry_names_a_method_of_the_engine(table: dict[str, str]) -> None:
    engine = OpenAIToAGUITranslator(request())

    missing = [name for name in table.values() if not callable(getattr(engine, name, None))]

    assert missing == []


def test_handled_and_ignored_types_do_not_overlap() -> None:
    assert set(RAW_EVENT_HANDLERS).isdisjoint(IGNORED_RAW_EVENT_TYPES)
    assert set(RUN_ITEM_HANDLERS).isdisjoint(IGNORED_RUN_ITEM_TYPES)


def test_every_hosted_call_type_opens_and_closes_a_tool_call() -> None:
    for kind in HOSTED_CALL_TYPES:
        assert _ITEM_ADDED[kind] == "translate_hosted_call_item_added"
        assert _ITEM_DONE[kind] == "translate_call_item_done"


def test_unknown_or_ignored_events_produce_nothing() -> None:
    engine = OpenAIToAGUITranslator(request())
    agent = Agent(name="a")
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_x", name="echo", arguments="{}"
    )

    unknown_kind: Any = SimpleNamespace(type="brand_new_stream_event")
    unknown_raw: Any = SimpleNamespace(
        type="raw_response_event", data=SimpleNamespace(type="response.brand_new")
    )

    assert engine.translate(unknown_kind) == []
    assert engine.translate(unknown_raw) == []
    approval = ToolApprovalItem(agent=agent, raw_item=call)
    assert engine.translate(RunItemStreamEvent(name="tool_called", item=approval)) == []
    assert engine.finish() == []


def test_unknown_event_types_are_logged_at_debug_and_ignored_ones_are_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = OpenAIToAGUITranslator(request())
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_x", name="echo", arguments="{}"
    )
    approval = ToolApprovalItem(agent=Agent(name="a"), raw_item=call)
    ignored: list[Any] = [
        SimpleNamespace(type="raw_response_event", data=SimpleNamespace(type="response.queued")),
        RunItemStreamEvent(name="tool_called", item=approval),
    ]
    unknown: list[Any] = [
        SimpleNamespace(type="raw_response_event", data=SimpleNamespace(type="response.new_x")),
        SimpleNamespace(type="run_item_stream_event", item=SimpleNamespace(type="new_item_x")),
        SimpleNamespace(type="new_stream_event_x"),
    ]

    with caplog.at_level(logging.DEBUG, logger="ag_ui_openai_agents.outbound.engine"):
        for event in ignored:
            assert engine.translate(event) == []
        assert caplog.records == []
        for event in unknown:
            assert engine.translate(event) == []

    logged = [record.getMessage() for record in caplog.records]
    assert [record.levelno for record in caplog.records] == [logging.DEBUG] * 3
    for name, message in zip(
        ("response.new_x", "new_item_x", "new_stream_event_x"), logged, strict=True
    ):
        assert repr(name) in message


class _AnyTagged(BaseModel):
    """A Responses-like event whose ``type`` is any string: its class names no one tag."""

    type: str
    delta: str = ""
    output_index: int = 0
    item_id: str = ""


def _raw(data: Any) -> Any:
    return SimpleNamespace(type="raw_response_event", data=data)


def test_raw_events_whose_class_declares_no_single_tag_go_by_their_tag_every_time() -> None:
    engine = OpenAIToAGUITranslator(request())
    added = ResponseOutputItemAddedEvent(
        type="response.output_item.added",
        output_index=0,
        sequence_number=1,
        item=ResponseOutputMessage(
            id="msg_1", type="message", role="assistant", status="in_progress", content=[]
        ),
    )

    assert engine.translate(_raw(added)) == []
    first = engine.translate(_raw(_AnyTagged(type="response.output_text.delta", delta="Hi")))
    ignored = engine.translate(_raw(_AnyTagged(type="response.in_progress", delta="no")))
    second = engine.translate(_raw(_AnyTagged(type="response.refusal.delta", delta="!")))
    loose = engine.translate(
        _raw(
            SimpleNamespace(
                type="response.output_text.delta", delta="?", output_index=0, item_id="msg_1"
            )
        )
    )

    assert [type(e).__name__ for e in first] == ["TextMessageStartEvent", "TextMessageContentEvent"]
    assert ignored == []
    assert [(e.message_id, e.delta) for e in second + loose] == [("msg_1", "!"), ("msg_1", "?")]


class _AnyItem(BaseModel):
    """An output item whose ``type`` is any string."""

    type: str
    id: str
    call_id: str = ""
    name: str = ""
    arguments: str = ""


def test_output_items_whose_class_declares_no_single_tag_go_by_their_tag_every_time() -> None:
    engine = OpenAIToAGUITranslator(request())

    def added(index: int, item: Any) -> Any:
        return _raw(
            ResponseOutputItemAddedEvent.model_construct(
                type="response.output_item.added", output_index=index, item=item
            )
        )

    text = engine.translate(added(0, _AnyItem(type="message", id="msg_1")))
    call = engine.translate(
        added(1, _AnyItem(type="function_call", id="fc_1", call_id="call_1", name="echo"))
    )
    unknown = engine.translate(added(2, _AnyItem(type="brand_new_item", id="x_1")))
    as_dict = engine.translate(
        _raw(
            SimpleNamespace(
                type="response.output_item.added",
                output_index=3,
                item={"type": "function_call", "id": "fc_2"},
            )
        )
    )

    assert text == [] and unknown == [] and as_dict == []
    assert [(type(e).__name__, e.tool_call_id, e.tool_call_name) for e in call] == [
        ("ToolCallStartEvent", "call_1", "echo")
    ]
    assert engine._added_by_class == {}

    message = ResponseOutputMessage(
        id="msg_2", type="message", role="assistant", status="in_progress", content=[]
    )
    assert engine.translate(added(4, message)) == []
    assert engine._added_by_class == {ResponseOutputMessage: engine.translate_text_item_added}


def test_a_responses_event_class_keeps_its_handler_and_a_subclass_override_wins() -> None:
    class Counting(OpenAIToAGUITranslator):
        seen = 0

        def translate_response_created(self, event: Any) -> list[BaseEvent]:
            Counting.seen += 1
            return super().translate_response_created(event)

    engine = Counting(request())
    created = ResponseCreatedEvent.model_construct(type="response.created", sequence_number=0)
    for _ in range(3):
        assert engine.translate(_raw(created)) == []

    assert Counting.seen == 3
    assert engine._raw_by_class[ResponseCreatedEvent] == engine.translate_response_created


@dataclass
class _OwnOutputItem(ToolCallOutputItem):
    """An application's own run item class: its instances may carry any tag."""


def test_run_items_dispatch_on_their_tag_whatever_their_class() -> None:
    """SDK run item classes are looked up once per class; other objects by their tag."""
    engine = OpenAIToAGUITranslator(request())
    agent = Agent(name="a")
    output = {"type": "function_call_output", "call_id": "call_1", "output": "one"}
    first = ToolCallOutputItem(agent=agent, raw_item=output, output="one")
    second = ToolCallOutputItem(agent=agent, raw_item={**output, "call_id": "call_2"}, output="2")
    reasoning: Any = SimpleNamespace(
        type="reasoning_item",
        raw_item=SimpleNamespace(id="rs_1", summary=[SimpleNamespace(text="hm")], content=None),
    )
    ignored: Any = SimpleNamespace(type="compaction_item", raw_item={})
    answer: Any = SimpleNamespace(type="tool_call_output_item", raw_item=output, output="one")
    retagged: Any = _OwnOutputItem(
        agent=agent, raw_item={**output, "call_id": "call_3"}, output="3", type="compaction_item"
    )
    own = _OwnOutputItem(agent=agent, raw_item={**output, "call_id": "call_4"}, output="4")

    kinds = [
        [type(event).__name__ for event in engine.translate(RunItemStreamEvent(name=n, item=i))]
        for n, i in [
            ("tool_output", first),
            ("tool_output", second),
            ("reasoning_item_created", reasoning),
            ("reasoning_item_created", ignored),
            ("tool_output", answer),
            ("tool_output", retagged),
            ("tool_output", own),
        ]
    ]

    assert kinds == [
        ["ToolCallResultEvent"],
        ["ToolCallResultEvent"],
        [
            "ReasoningStartEvent",
            "ReasoningMessageStartEvent",
            "ReasoningMessageContentEvent",
            "ReasoningMessageEndEvent",
            "ReasoningEndEvent",
        ],
        [],
        ["ToolCallResultEvent"],
        [],
        ["ToolCallResultEvent"],
    ]


async def test_mcp_approval_request_becomes_a_custom_event() -> None:
    run = await translate_events(mcp_events(Agent(name="a")))

    custom = [e for e in run.events if isinstance(e, CustomEvent)]
    assert len(custom) == 1
    assert custom[0].name == "mcp_approval_request"
    assert custom[0].value == approval_request().model_dump(mode="json", exclude_none=True)


async def test_mcp_listing_and_approval_responses_emit_nothing() -> None:
    agent = Agent(name="a")
    listing, _, response = mcp_events(agent)

    run = await translate_events([listing, response])

    assert run.types == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]


async def test_spec_subclass_example_silences_mcp_approval_requests() -> None:
    run = await translate_events(mcp_events(Agent(name="a")), translator=translator)

    assert "CUSTOM" not in run.types
    assert run.types == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]


async def test_overriding_one_translate_method_changes_only_that_mapping() -> None:
    class NoSteps(OpenAIToAGUITranslator):
        def translate_agent_updated(self, event: AgentUpdatedStreamEvent) -> list[BaseEvent]:
            return []

    run = await run_agui(
        Agent(name="a"),
        request(),
        [Turn([Text("Hi", id="m")])],
        translator=AGUITranslator(outbound_cls=NoSteps),
    )

    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]


async def test_a_subclass_can_route_another_raw_event_type_to_its_own_method() -> None:
    class PartMarkers(OpenAIToAGUITranslator):
        raw_event_handlers: ClassVar[dict[str, str]] = {
            **RAW_EVENT_HANDLERS,
            "response.output_text.done": "translate_text_part_done",
        }

        def translate_text_part_done(self, event: Any) -> list[BaseEvent]:
            return [CustomEvent(name="text_part_done", value=event.text)]

    run = await run_agui(
        Agent(name="a"),
        request(),
        [Turn([Text(parts=["One. ", "Two."], id="m")])],
        translator=AGUITranslator(outbound_cls=PartMarkers),
    )

    assert [e for e in run.brief if e[0] == "CUSTOM"] == [
        ("CUSTOM", "text_part_done", "One. "),
        ("CUSTOM", "text_part_done", "Two."),
    ]
    ends = [i for i, e in enumerate(run.brief) if e[0] == "TEXT_MESSAGE_END"]
    customs = [i for i, e in enumerate(run.brief) if e[0] == "CUSTOM"]
    assert len(ends) == 1 and max(customs) < ends[0]


async def test_each_run_gets_a_fresh_engine() -> None:
    created: list[OpenAIToAGUITranslator] = []

    class Recording(OpenAIToAGUITranslator):
        def __init__(self, run_input: Any) -> None:
            super().__init__(run_input)
            created.append(self)

    shared = AGUITranslator(outbound_cls=Recording)
    for run_id in ("r1", "r2"):
        await run_agui(
            Agent(name="a"), request(run_id=run_id), [Turn([Text("x")])], translator=shared
        )

    assert len(created) == 2
    assert created[0] is not created[1]
    assert [e.run_input.run_id for e in created] == ["r1", "r2"]


def test_finish_closes_what_a_recorded_stream_left_open() -> None:
    engine = OpenAIToAGUITranslator(request())
    text_added = SimpleNamespace(
        type="raw_response_event",
        data=SimpleNamespace(
            type="response.output_item.added",
            output_index=0,
            item=SimpleNamespace(type="message", id="msg_rec"),
        ),
    )
    delta = SimpleNamespace(
        type="raw_response_event",
        data=SimpleNamespace(
            type="response.output_text.delta", output_index=0, item_id="msg_rec", delta="hey"
        ),
    )

    out = [e for event in (text_added, delta) for e in engine.translate(event)]  # type: ignore[arg-type]
    out += engine.finish()

    assert brief(out) == [
        ("TEXT_MESSAGE_START", "msg_rec"),
        ("TEXT_MESSAGE_CONTENT", "msg_rec", "hey"),
        ("TEXT_MESSAGE_END", "msg_rec"),
    ]
    assert engine.finish() == []


# --------------------------------------------------------------------------- ids


async def test_real_sdk_ids_win_everywhere() -> None:
    run = await run_agui(
        Agent(name="a", tools=[echo]),
        request(),
        [
            Turn(
                [
                    Reasoning(summary=["think", "more"], id="rs_real"),
                    Text("Calling", id="msg_real"),
                    Call("echo", {"n": 1}, call_id="call_real", id="fc_real"),
                ]
            ),
            Turn([Text("Done", id="msg_final")]),
        ],
    )

    ids = {e[1] for e in run.brief if e[0].endswith("_START")}
    assert ids == {"rs_real", "rs_real-1", "msg_real", "call_real", "msg_final"}
    assert [m.id for m in run.snapshot] == [
        "user-1",
        "rs_real",
        "rs_real-1",
        "msg_real",
        "call_real-result",
        "msg_final",
    ]


async def test_placeholder_ids_never_reach_the_wire_and_are_reused_in_the_snapshot() -> None:
    run = await run_agui(
        Agent(name="a", tools=[echo]),
        request(),
        [
            Turn(
                [
                    Reasoning(summary=["think"], encrypted="gAAAA"),
                    Text("Calling"),
                    Call("echo", {"n": 1}),
                    Hosted("web_search_call", query="q"),
                ],
                fake_ids=True,
            ),
            Turn([Text("Done")], fake_ids=True),
        ],
    )

    wire = "".join(EventEncoder().encode(event) for event in run.events)
    assert FAKE_RESPONSES_ID not in wire
    assert not any(f'"{key}"' in wire for key in FORBIDDEN_KEYS)
    streamed = {
        e[1] for e in run.brief if e[0] in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START")
    }
    in_snapshot = {m.id for m in run.snapshot if m.role in ("assistant", "reasoning")}
    assert streamed <= in_snapshot
    prefixes = sorted(i.split("_")[0] for i in streamed)
    assert prefixes == ["msg", "msg", "rs"]


async def test_a_window_keeps_its_generated_id_from_start_to_end() -> None:
    run = await run_agui(Agent(name="a"), request(), [Turn([Text("one two three")], fake_ids=True)])

    ids = {e.message_id for e in run.of(TextMessageContentEvent)}
    (only_id,) = ids
    text = [e for e in run.brief if e[0].startswith("TEXT_MESSAGE")]
    assert {e[1] for e in text} == {only_id}


# --------------------------------------------------------------------------- isolation


async def _one_of_many(shared: AGUITranslator, n: int) -> AguiRun:
    return await run_agui(
        Agent(name=f"agent-{n}", tools=[echo]),
        request(user(f"question {n}", id=f"user-{n}"), thread_id=f"t-{n}", run_id=f"r-{n}"),
        [
            Turn(
                [Text(f"Answer {n}", id=f"msg_{n}"), Call("echo", {"n": n}, call_id=f"call_{n}")],
                delay=0.0005 * (n % 7),
            ),
            Turn([Text(f"Done {n}", id=f"msg_done_{n}")], delay=0.0005 * (n % 5)),
        ],
        translator=shared,
    )


@pytest.mark.slow
async def test_one_hundred_concurrent_runs_on_one_translator_do_not_mix() -> None:
    shared = AGUITranslator()

    runs = await asyncio.gather(*(_one_of_many(shared, n) for n in range(100)))

    for n, run in enumerate(runs):
        started = run.events[0]
        assert isinstance(started, RunStartedEvent)
        assert (started.thread_id, started.run_id) == (f"t-{n}", f"r-{n}")
        assert [e for e in run.brief if e[0] in ("TEXT_MESSAGE_CONTENT", "TOOL_CALL_RESULT")] == [
            ("TEXT_MESSAGE_CONTENT", f"msg_{n}", "Answer"),
            ("TEXT_MESSAGE_CONTENT", f"msg_{n}", f" {n}"),
            ("TOOL_CALL_RESULT", f"call_{n}-result", f"call_{n}", f"echo {n}"),
            ("TEXT_MESSAGE_CONTENT", f"msg_done_{n}", "Done"),
            ("TEXT_MESSAGE_CONTENT", f"msg_done_{n}", f" {n}"),
        ]
        assert [m.id for m in run.snapshot] == [
            f"user-{n}",
            f"msg_{n}",
            f"call_{n}-result",
            f"msg_done_{n}",
        ]
        steps = [e for e in run.brief if e[0].startswith("STEP_")]
        assert steps == [("STEP_STARTED", f"agent-{n}"), ("STEP_FINISHED", f"agent-{n}")]


async def test_next_request_built_from_the_snapshot_keeps_every_id() -> None:
    agent = Agent(name="a", tools=[echo])
    first = await run_agui(
        agent,
        request(),
        [
            Turn(
                [
                    Reasoning(summary=["plan"], encrypted="gAAAA-1"),
                    Text("Let me echo"),
                    Call("echo", {"n": 1}, call_id="call_first"),
                ],
                fake_ids=True,
            ),
            Turn([Text("Echoed")], fake_ids=True),
        ],
    )
    history = first.snapshot

    second = await run_agui(
        agent,
        request(*history, user("Again", id="user-2"), run_id="run-2"),
        [
            Turn([Call("echo", {"n": 2}, call_id="call_second")], fake_ids=True),
            Turn([Text("Echoed again")], fake_ids=True),
        ],
    )
    third = await run_agui(
        agent,
        request(*second.snapshot, user("Thanks", id="user-3"), run_id="run-3"),
        [Turn([Text("Welcome")], fake_ids=True)],
    )

    assert [m.model_dump() for m in second.snapshot[: len(history)]] == [
        m.model_dump() for m in history
    ]
    assert [m.model_dump() for m in third.snapshot[: len(second.snapshot)]] == [
        m.model_dump() for m in second.snapshot
    ]
    assert second.model is not None
    replayed = second.model.calls[0].input
    # Placeholder item ids are not the provider's: the reasoning item cannot be paired with
    # what followed it, so it is left out, and no item carries an id.
    assert [i.get("type", i.get("role")) for i in replayed] == [
        "user",
        "assistant",
        "function_call",
        "function_call_output",
        "assistant",
        "user",
    ]
    assert not any("id" in item for item in replayed)
    assert (replayed[2]["call_id"], replayed[3]["call_id"]) == ("call_first", "call_first")
    new_ids = [m.id for m in second.snapshot[len(history) + 1 :]]
    assert not set(new_ids) & {m.id for m in history}


async def test_recorded_stream_translates_the_same_way_twice() -> None:
    sdk_events, _ = await record(
        Agent(name="a", tools=[echo]),
        [Turn([Text("Hi", id="m1"), Call("echo", {"n": 3})]), Turn([Text("Bye", id="m2")])],
    )

    first = await translate_events(sdk_events)
    second = await translate_events(sdk_events)

    assert first.brief == second.brief
    assert [m.model_dump() for m in first.snapshot] == [m.model_dump() for m in second.snapshot]
