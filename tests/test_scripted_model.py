"""The scripted offline model streams the Responses API's event sequences, so the suite drives the
real SDK runner with what the API would send."""

from __future__ import annotations

import json
from typing import Any

from agents import (
    Agent,
    AgentUpdatedStreamEvent,
    ModelBehaviorError,
    ModelRefusalError,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    function_tool,
    set_tracing_disabled,
)
from agents.models.fake_id import FAKE_RESPONSES_ID

from support.scripted import (
    Call,
    Hosted,
    ItemSpec,
    Reasoning,
    Refusal,
    Text,
    Turn,
    TurnUsage,
    run_streamed,
)

set_tracing_disabled(True)

TERMINAL = {"response.completed", "response.incomplete", "response.failed", "error"}


async def drain(result: Any) -> tuple[list[Any], BaseException | None]:
    """All stream events, and the exception that ended the stream (if any)."""
    events: list[Any] = []
    try:
        async for event in result.stream_events():
            events.append(event)
    except Exception as exc:
        return events, exc
    return events, None


def raw(events: list[Any]) -> list[Any]:
    return [e.data for e in events if isinstance(e, RawResponsesStreamEvent)]


def turns_of(events: list[Any]) -> list[list[Any]]:
    """Raw events split per model call (each call starts with response.created)."""
    out: list[list[Any]] = []
    for event in raw(events):
        if event.type == "response.created":
            out.append([])
        out[-1].append(event)
    return out


def item_events(turn: list[Any], output_index: int) -> list[Any]:
    return [e for e in turn if getattr(e, "output_index", None) == output_index]


def deltas(turn: list[Any], event_type: str, **where: Any) -> str:
    selected = [e for e in turn if e.type == event_type]
    return "".join(e.delta for e in selected if all(getattr(e, k) == v for k, v in where.items()))


def assert_well_formed(turn: list[Any]) -> None:
    """Sequence numbers, framing and per-item nesting as the Responses API streams them."""
    assert [e.sequence_number for e in turn] == list(range(len(turn)))
    assert [e.type for e in turn[:2]] == ["response.created", "response.in_progress"]
    assert turn[0].response.status == "in_progress" and turn[0].response.output == []
    assert turn[-1].type in TERMINAL
    open_items: dict[int, str] = {}
    closed: list[int] = []
    for event in turn[2:-1]:
        index = event.output_index
        if event.type == "response.output_item.added":
            assert index not in open_items and index == len(closed)
            open_items[index] = event.item.id
        elif event.type == "response.output_item.done":
            assert open_items.pop(index) == event.item.id
            closed.append(index)
        else:
            assert index in open_items, event.type
            assert event.item_id == open_items[index]
    assert not open_items
    final = getattr(turn[-1], "response", None)
    if final is not None:
        assert [item.id for item in final.output] == [
            e.item.id for e in turn if e.type == "response.output_item.done"
        ]


SPLIT_CORPUS = [
    "x",
    "   ",
    "one",
    " leading",
    "trailing\n\n",
    "tabs\tand\nnew lines  here",
    "Grüße, 世界! 🎉 ok",
    '{"nested": {"list": [1, 2, 3]}, "s": "a b"}',
]


async def test_text_turn_streams_the_responses_event_sequence() -> None:
    agent = Agent(name="Assistant", instructions="Be brief.")
    result, model = run_streamed(agent, "Hi", turns=[Turn([Text("Hello there, friend!")])])
    events, error = await drain(result)
    assert error is None
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    assert [e.type for e in turn] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    added, done = turn[2].item, turn[9].item
    assert added.id == done.id == "msg_1"
    assert added.status == "in_progress" and added.content == []
    assert done.status == "completed" and done.content[0].text == "Hello there, friend!"
    assert turn[3].part.text == "" and turn[8].part.text == "Hello there, friend!"
    assert deltas(turn, "response.output_text.delta") == "Hello there, friend!"
    assert turn[7].text == "Hello there, friend!"
    assert turn[-1].response.status == "completed"
    assert turn[-1].response.model == "scripted-model"
    # the run item for the message arrives after the turn's response.completed
    names = [e.name for e in events if isinstance(e, RunItemStreamEvent)]
    assert names == ["message_output_created"]
    last_raw = max(i for i, e in enumerate(events) if isinstance(e, RawResponsesStreamEvent))
    assert isinstance(events[last_raw + 1], RunItemStreamEvent)
    assert result.final_output == "Hello there, friend!"
    assert model.call_count == 1 and model.calls[0].instructions == "Be brief."


async def test_multi_part_text_is_one_message_with_several_parts() -> None:
    agent = Agent(name="Assistant")
    spec = Text(parts=["First part. ", "Second part."], id="msg_multi")
    result, _ = run_streamed(agent, "Hi", turns=[Turn([spec])])
    events, error = await drain(result)
    assert error is None
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    assert sum(e.type == "response.output_item.added" for e in turn) == 1
    opened = [e.content_index for e in turn if e.type == "response.content_part.added"]
    assert opened == [0, 1]
    text_type = "response.output_text.delta"
    assert deltas(turn, text_type, content_index=0) == "First part. "
    assert deltas(turn, text_type, content_index=1) == "Second part."
    done = turn[-2].item
    assert done.id == "msg_multi"
    assert [part.text for part in done.content] == ["First part. ", "Second part."]
    assert result.final_output == "First part. Second part."


async def test_refusal_streams_refusal_deltas_and_the_run_refuses() -> None:
    agent = Agent(name="Assistant")
    turns = [Turn([Refusal("I can't help with that.")])]
    result, _ = run_streamed(agent, "Do something bad", turns=turns)
    events, error = await drain(result)
    assert isinstance(error, ModelRefusalError)
    assert error.refusal == "I can't help with that."
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    types = [e.type for e in turn]
    assert "response.output_text.delta" not in types
    assert deltas(turn, "response.refusal.delta") == "I can't help with that."
    assert [e.refusal for e in turn if e.type == "response.refusal.done"] == [
        "I can't help with that."
    ]
    assert turn[3].part.type == "refusal" and turn[3].part.refusal == ""
    assert turn[-2].item.content[0].refusal == "I can't help with that."


async def test_reasoning_with_summary_text_and_encrypted_content() -> None:
    agent = Agent(name="Thinker")
    reasoning = Reasoning(
        summary=["Look at the question.", "Then answer it."],
        text=["raw chain of thought"],
        encrypted="gAAAA-opaque",
    )
    turns = [Turn([reasoning, Text("42")], usage=TurnUsage(20, 30, reasoning=12))]
    result, _ = run_streamed(agent, "Meaning of life?", turns=turns)
    events, error = await drain(result)
    assert error is None
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    item = item_events(turn, 0)
    assert item[0].item.type == "reasoning" and item[0].item.encrypted_content is None
    assert item[0].item.summary == []
    summary_type = "response.reasoning_summary_text.delta"
    assert deltas(item, summary_type, summary_index=0) == "Look at the question."
    assert deltas(item, summary_type, summary_index=1) == "Then answer it."
    added_parts = [e for e in item if e.type == "response.reasoning_summary_part.added"]
    assert [(e.summary_index, e.part.text) for e in added_parts] == [(0, ""), (1, "")]
    done_parts = [e for e in item if e.type == "response.reasoning_summary_part.done"]
    assert [e.part.text for e in done_parts] == ["Look at the question.", "Then answer it."]
    assert deltas(item, "response.reasoning_text.delta") == "raw chain of thought"
    assert [e.text for e in item if e.type == "response.reasoning_text.done"] == [
        "raw chain of thought"
    ]
    done = item[-1].item
    assert done.encrypted_content == "gAAAA-opaque"
    assert [s.text for s in done.summary] == ["Look at the question.", "Then answer it."]
    assert turn[-1].response.output[0].encrypted_content == "gAAAA-opaque"
    created: list[Any] = [e for e in events if isinstance(e, RunItemStreamEvent)]
    assert [e.name for e in created] == ["reasoning_item_created", "message_output_created"]
    assert created[0].item.raw_item.encrypted_content == "gAAAA-opaque"
    assert result.context_wrapper.usage.output_tokens_details.reasoning_tokens == 12


async def test_parallel_function_calls_run_real_tools_across_two_turns() -> None:
    invoked: list[tuple[str, int, int]] = []

    @function_tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        invoked.append(("add", a, b))
        return a + b

    @function_tool
    def multiply(a: int, b: int) -> int:
        """Multiply two numbers."""
        invoked.append(("multiply", a, b))
        return a * b

    agent = Agent(name="Calculator", tools=[add, multiply])
    turns = [
        Turn([Call("add", {"a": 1, "b": 2}), Call("multiply", {"a": 3, "b": 4}, chunks=3)]),
        Turn([Text("3 and 12")]),
    ]
    result, model = run_streamed(agent, "Compute", turns=turns)
    events, error = await drain(result)
    assert error is None
    first, second = turns_of(events)
    assert_well_formed(first)
    assert_well_formed(second)
    assert sorted(invoked) == [("add", 1, 2), ("multiply", 3, 4)]
    added = [e.item for e in first if e.type == "response.output_item.added"]
    assert [(i.id, i.call_id, i.name, i.arguments) for i in added] == [
        ("fc_1", "call_1", "add", ""),
        ("fc_2", "call_2", "multiply", ""),
    ]
    args_type = "response.function_call_arguments.delta"
    assert json.loads(deltas(first, args_type, item_id="fc_1")) == {"a": 1, "b": 2}
    assert len([e for e in item_events(first, 1) if e.type == args_type]) == 3
    assert json.loads(deltas(first, args_type, output_index=1)) == {"a": 3, "b": 4}
    args_done = [e.arguments for e in first if e.type == "response.function_call_arguments.done"]
    assert [json.loads(a) for a in args_done] == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    run_items: list[Any] = [e for e in events if isinstance(e, RunItemStreamEvent)]
    outputs = {
        e.item.raw_item["call_id"]: e.item.output for e in run_items if e.name == "tool_output"
    }
    assert outputs == {"call_1": 3, "call_2": 12}
    assert model.call_count == 2
    sent = model.calls[1].input
    assert [i["call_id"] for i in sent if i.get("type") == "function_call"] == ["call_1", "call_2"]
    assert {i["call_id"]: i["output"] for i in sent if i.get("type") == "function_call_output"} == {
        "call_1": "3",
        "call_2": "12",
    }
    assert model.calls[0].tool_names == ["add", "multiply"]
    assert result.final_output == "3 and 12"


async def test_handoff_call_transfers_to_the_target_agent() -> None:
    billing = Agent(name="Billing", instructions="You handle billing.")
    triage = Agent(name="Triage", instructions="Route the user.", handoffs=[billing])
    turns = [Turn([Call("transfer_to_billing")]), Turn([Text("Billing here.")])]
    result, model = run_streamed(triage, "I need a refund", turns=turns)
    events, error = await drain(result)
    assert error is None
    updates = [e.new_agent.name for e in events if isinstance(e, AgentUpdatedStreamEvent)]
    assert updates == ["Triage", "Billing"]
    names = [e.name for e in events if isinstance(e, RunItemStreamEvent)]
    assert names[:2] == ["handoff_requested", "handoff_occured"]
    assert result.last_agent is billing
    assert result.final_output == "Billing here."
    assert model.calls[0].handoff_names == ["transfer_to_billing"]
    assert model.calls[0].instructions == "Route the user."
    assert model.calls[1].instructions == "You handle billing."
    assert model.calls[1].handoff_names == []


async def test_hosted_items_are_real_items_with_progress_events() -> None:
    agent = Agent(name="Researcher")
    items: list[ItemSpec] = [
        Hosted("web_search_call", query="weather in Paris"),
        Hosted("file_search_call", queries=["handbook"]),
        Hosted("code_interpreter_call", code="print(6 * 7)"),
        Hosted("image_generation_call", result="aGVsbG8="),
        Hosted(
            "mcp_list_tools", server_label="docs", tools=[{"name": "lookup", "input_schema": {}}]
        ),
        Hosted(
            "mcp_call", name="lookup", arguments={"q": "x"}, output="found", server_label="docs"
        ),
        Text("Done."),
    ]
    result, model = run_streamed(agent, "Go", turns=[Turn(items)])
    events, error = await drain(result)
    assert error is None
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    assert [e.type for e in item_events(turn, 0)] == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    assert item_events(turn, 0)[0].item.status == "in_progress"
    assert item_events(turn, 0)[-1].item.action.query == "weather in Paris"
    assert deltas(turn, "response.code_interpreter_call_code.delta") == "print(6 * 7)"
    mcp = item_events(turn, 5)
    assert mcp[0].item.output is None and mcp[0].item.arguments == ""
    assert json.loads(deltas(mcp, "response.mcp_call_arguments.delta")) == {"q": "x"}
    assert mcp[-1].item.output == "found"
    run_items: list[Any] = [e for e in events if isinstance(e, RunItemStreamEvent)]
    called = [e.item.raw_item.type for e in run_items if e.name == "tool_called"]
    assert called == [
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
    ]
    assert "tool_output" not in [e.name for e in run_items]
    assert [e.item.raw_item.server_label for e in run_items if e.name == "mcp_list_tools"] == [
        "docs"
    ]
    mcp_item = next(e.item for e in run_items if e.item.raw_item.type == "mcp_call")
    assert mcp_item.raw_item.output == "found"
    assert model.call_count == 1 and result.final_output == "Done."


async def test_usage_reaches_the_final_response_and_the_run_total() -> None:
    agent = Agent(name="Assistant")
    turns = [
        Turn([Text("one")], usage=TurnUsage(100, 40, cached=30, reasoning=10)),
        Turn([Text("two")], usage=None),
    ]
    first, _ = run_streamed(agent, "a", turns=turns[:1])
    events, error = await drain(first)
    assert error is None
    usage = turns_of(events)[0][-1].response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (100, 40, 140)
    assert usage.input_tokens_details.cached_tokens == 30
    assert usage.output_tokens_details.reasoning_tokens == 10
    total = first.context_wrapper.usage
    assert (total.requests, total.input_tokens, total.output_tokens) == (1, 100, 40)
    assert total.input_tokens_details.cached_tokens == 30
    second, _ = run_streamed(agent, "b", turns=turns[1:])
    events, error = await drain(second)
    assert error is None
    assert turns_of(events)[0][-1].response.usage is None
    assert second.context_wrapper.usage.total_tokens == 0


async def test_incomplete_turn_streams_its_event_then_the_run_raises() -> None:
    agent = Agent(name="Assistant")
    turns = [Turn([Text("partial answer")], status="incomplete", usage=TurnUsage(8, 64))]
    result, _ = run_streamed(agent, "Write a lot", turns=turns)
    events, error = await drain(result)
    assert isinstance(error, ModelBehaviorError)
    assert "response.incomplete" in str(error)
    (turn,) = turns_of(events)
    assert_well_formed(turn)
    final = turn[-1]
    assert final.type == "response.incomplete"
    assert final.response.status == "incomplete"
    assert final.response.incomplete_details.reason == "max_output_tokens"
    assert final.response.usage.output_tokens == 64
    assert deltas(turn, "response.output_text.delta") == "partial answer"
    assert result.context_wrapper.usage.total_tokens == 0


async def test_failed_and_error_terminal_events() -> None:
    agent = Agent(name="Assistant")
    failed = Turn([], status="failed", failure_message="upstream exploded")
    result, _ = run_streamed(agent, "x", turns=[failed])
    events, error = await drain(result)
    assert isinstance(error, ModelBehaviorError) and "response.failed" in str(error)
    final = turns_of(events)[0][-1]
    assert final.type == "response.failed" and final.response.status == "failed"
    assert final.response.error.message == "upstream exploded"
    result, _ = run_streamed(agent, "x", turns=[Turn([], status="error", failure_message="boom")])
    events, error = await drain(result)
    assert isinstance(error, ModelBehaviorError) and "boom" in str(error)
    last = turns_of(events)[0][-1]
    assert last.type == "error" and last.message == "boom"


async def test_fake_ids_use_the_placeholder_for_every_item() -> None:
    ran: list[str] = []

    @function_tool
    def ping() -> str:
        """Answer pong."""
        ran.append("ping")
        return "pong"

    agent = Agent(name="Assistant", tools=[ping])
    turns = [Turn([Text("Calling."), Call("ping")], fake_ids=True), Turn([Text("pong")])]
    result, _ = run_streamed(agent, "x", turns=turns)
    events, error = await drain(result)
    assert error is None
    first = turns_of(events)[0]
    assert_well_formed(first)
    with_items = [e.item for e in first if e.type.startswith("response.output_item.")]
    assert {item.id for item in with_items} == {FAKE_RESPONSES_ID}
    assert {e.item_id for e in first if hasattr(e, "item_id")} == {FAKE_RESPONSES_ID}
    assert {e.output_index for e in first if hasattr(e, "item_id")} == {0, 1}
    assert with_items[-1].call_id == "call_1"
    assert ran == ["ping"]
    assert result.final_output == "pong"
