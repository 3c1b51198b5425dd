"""``OpenAIAgentsAgent``: per-request clones, client tools, context, shared state, tracing."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest
from ag_ui.core import (
    BaseEvent,
    Context,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    StateSnapshotEvent,
    TextMessageContentEvent,
    Tool,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    StopAtTools,
    function_tool,
    handoff,
    set_tracing_disabled,
)
from agents.models.interface import ModelTracing
from agents.tracing import (
    Span,
    Trace,
    TracingProcessor,
    get_trace_provider,
    set_trace_provider,
)
from agents.tracing.provider import DefaultTraceProvider

from ag_ui_openai_agents import OpenAIAgentsAgent, shared_state
from support.invariants import check_stream
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    collect,
)

set_tracing_disabled(True)

CONTEXT_HEADER = "Context from the application:"
E = TypeVar("E", bound=BaseEvent)

CONFIRM_TOOL = Tool(
    name="confirm_order",
    description="Ask the user to confirm the order.",
    parameters={
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "total": {"type": "number"}},
        "required": ["order_id"],
    },
)
THEME_TOOL = Tool(
    name="set_theme",
    description="Switch the page theme.",
    parameters={"type": "object", "properties": {"dark": {"type": "boolean"}}},
)
PAGE_CONTEXT = [
    Context(description="current page", value="/orders/42"),
    Context(description="user name", value="Ann"),
]


# --- helpers ---------------------------------------------------------------------------------


def make_input(
    *,
    messages: Sequence[Message] | None = None,
    tools: Sequence[Tool] = (),
    context: Sequence[Context] = (),
    state: Any = None,
    resume: list[ResumeEntry] | None = None,
    run_id: str = "run-1",
) -> RunAgentInput:
    """A 1.0 request with one user message unless ``messages`` is given."""
    return RunAgentInput(
        thread_id="thread-1",
        run_id=run_id,
        protocol_version="1.0",
        state=state if state is not None else {},
        messages=list(messages) if messages is not None else [UserMessage(id="u1", content="hi")],
        tools=list(tools),
        context=list(context),
        forwarded_props={},
        resume=resume,
    )


def wrap(agent: Agent[Any], model: ScriptedResponsesModel, **options: Any) -> OpenAIAgentsAgent:
    """The wrapper under test, running ``agent`` offline on ``model``."""
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    return OpenAIAgentsAgent(agent, run_config=config, **options)


async def run(wrapper: OpenAIAgentsAgent, run_input: RunAgentInput) -> list[BaseEvent]:
    """Collect one run's events and check them against the AG-UI rules."""
    events = await collect(wrapper.run_streamed(run_input))
    check_stream(events, run_input=run_input)
    return events


def of_type(events: Sequence[BaseEvent], cls: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, cls)]


def finished(events: Sequence[BaseEvent]) -> RunFinishedEvent:
    last = events[-1]
    assert isinstance(last, RunFinishedEvent), f"run did not finish: {last!r}"
    return last


def streamed_text(events: Sequence[BaseEvent]) -> str:
    return "".join(event.delta for event in of_type(events, TextMessageContentEvent))


def snapshot(events: Sequence[BaseEvent]) -> MessagesSnapshotEvent:
    (snap,) = of_type(events, MessagesSnapshotEvent)
    return snap


def context_block(items: Sequence[Context]) -> str:
    return "\n".join([CONTEXT_HEADER, *(f"{c.description}: {c.value}" for c in items)])


def echo_turn(call: RecordedCall) -> Turn:
    """A turn that answers with what the model received: its tool names and instructions."""
    return Turn([Text(json.dumps({"tools": call.tool_names, "instructions": call.instructions}))])


def agent_fingerprint(agent: Agent[Any]) -> dict[str, Any]:
    """The identities (and list contents) of everything a request could be tempted to change."""
    return {
        "tools": agent.tools,
        "tool_items": list(agent.tools),
        "instructions": agent.instructions,
        "tool_use_behavior": agent.tool_use_behavior,
        "handoffs": agent.handoffs,
        "handoff_items": list(agent.handoffs),
        "model_settings": agent.model_settings,
        "name": agent.name,
    }


def assert_unchanged(agent: Agent[Any], before: dict[str, Any]) -> None:
    after = agent_fingerprint(agent)
    for key, value in before.items():
        if key.endswith("_items"):
            assert after[key] == value, key
            assert all(a is b for a, b in zip(after[key], value, strict=True)), key
        else:
            assert after[key] is value, key


@function_tool
def lookup_order(order_id: str) -> str:
    """Find an order by id."""
    return f"order {order_id}: shipped"


# --- client tools and the per-request clone --------------------------------------------------


async def test_client_tools_reach_the_model_with_their_names_and_schemas() -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    model = ScriptedResponsesModel([Turn([Text("Sure.")])])
    run_input = make_input(tools=[CONFIRM_TOOL, THEME_TOOL])

    events = await run(wrap(agent, model), run_input)

    (call,) = model.calls
    assert call.tool_names == ["lookup_order", "confirm_order", "set_theme"]
    proxies = {tool.name: tool for tool in call.tools if isinstance(tool, FunctionTool)}
    assert proxies["confirm_order"].params_json_schema == CONFIRM_TOOL.parameters
    assert proxies["confirm_order"].description == CONFIRM_TOOL.description
    assert proxies["set_theme"].params_json_schema == THEME_TOOL.parameters
    assert proxies["lookup_order"] is lookup_order
    assert streamed_text(events) == "Sure."
    assert agent.tools == [lookup_order]


async def test_client_tool_named_like_a_server_tool_is_ignored_and_the_server_tool_wins(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    impostor = Tool(
        name="lookup_order",
        description="Client-side lookup.",
        parameters={"type": "object", "properties": {"sku": {"type": "integer"}}},
    )
    model = ScriptedResponsesModel(
        [
            Turn([Call("lookup_order", {"order_id": "42"}, call_id="call-lookup")]),
            Turn([Text("It shipped.")]),
        ]
    )
    run_input = make_input(tools=[impostor, THEME_TOOL])

    with caplog.at_level(logging.WARNING, logger="ag_ui_openai_agents"):
        events = await run(wrap(agent, model), run_input)

    first = model.calls[0]
    assert first.tool_names == ["lookup_order", "set_theme"]
    (server_tool,) = [tool for tool in first.tools if tool.name == "lookup_order"]
    assert server_tool is lookup_order
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("lookup_order" in record.getMessage() for record in warnings)
    # The server tool really ran: its result is streamed and nothing is left pending.
    (result,) = of_type(events, ToolCallResultEvent)
    assert result.tool_call_id == "call-lookup"
    assert result.content == "order 42: shipped"
    outcome = finished(events).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert not outcome.pending_tool_call_ids
    assert model.call_count == 2


async def test_the_shared_agent_is_never_mutated() -> None:
    agent = Agent(
        name="shop",
        instructions="Help with orders.",
        tools=[lookup_order],
        tool_use_behavior=StopAtTools(stop_at_tool_names=["lookup_order"]),
    )
    before = agent_fingerprint(agent)
    model = ScriptedResponsesModel([Turn([Call("confirm_order", {"order_id": "42"})])])

    events = await run(wrap(agent, model), make_input(tools=[CONFIRM_TOOL], context=PAGE_CONTEXT))

    assert_unchanged(agent, before)
    # The run did get a different agent: client tool present and context in its instructions.
    assert model.calls[0].tool_names == ["lookup_order", "confirm_order"]
    assert context_block(PAGE_CONTEXT) in (model.calls[0].instructions or "")
    assert of_type(events, ToolCallStartEvent)[0].tool_call_name == "confirm_order"


async def test_the_shared_agent_is_never_mutated_by_concurrent_requests() -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    before = agent_fingerprint(agent)
    model = ScriptedResponsesModel(echo_turn, delay=0.001)
    wrapper = wrap(agent, model)
    inputs = [
        make_input(
            run_id=f"run-{i}",
            tools=[Tool(name=f"client_tool_{i}", description=f"Tool {i}.", parameters={})],
            context=[Context(description="request", value=f"number {i}")],
        )
        for i in range(20)
    ]

    streams = await asyncio.gather(*(run(wrapper, run_input) for run_input in inputs))

    for i, events in enumerate(streams):
        seen = json.loads(streamed_text(events))
        assert seen["tools"] == ["lookup_order", f"client_tool_{i}"]
        assert seen["instructions"].endswith(f"{CONTEXT_HEADER}\nrequest: number {i}")
        assert seen["instructions"].count(CONTEXT_HEADER) == 1
    assert model.call_count == 20
    assert_unchanged(agent, before)


async def test_a_client_tool_call_ends_the_run_with_the_call_pending() -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    # Only one turn is scripted: a second model call would fail the run.
    model = ScriptedResponsesModel(
        [Turn([Text("Let me check."), Call("confirm_order", {"order_id": "42"}, call_id="cc-1")])]
    )
    run_input = make_input(tools=[CONFIRM_TOOL])

    events = await run(wrap(agent, model), run_input)

    assert model.call_count == 1
    outcome = finished(events).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == ["cc-1"]
    assert of_type(events, ToolCallResultEvent) == []
    messages = snapshot(events).messages
    calls = [c for m in messages if m.role == "assistant" for c in (m.tool_calls or [])]
    assert [(c.id, c.function.name) for c in calls] == [("cc-1", "confirm_order")]
    assert json.loads(calls[0].function.arguments) == {"order_id": "42"}
    assert not [m for m in messages if m.role == "tool"]


async def test_the_next_request_answering_a_client_tool_continues_the_conversation() -> None:
    agent = Agent(name="shop", instructions="Help with orders.", tools=[lookup_order])
    model = ScriptedResponsesModel(
        [
            Turn([Call("confirm_order", {"order_id": "42"}, call_id="cc-1")]),
            Turn([Text("Order 42 is confirmed.")]),
        ]
    )
    wrapper = wrap(agent, model)
    first = await run(wrapper, make_input(tools=[CONFIRM_TOOL]))
    answer = ToolMessage(id="tool-answer-1", tool_call_id="cc-1", content='{"confirmed": true}')
    history = [*snapshot(first).messages, answer]
    second_input = make_input(messages=history, tools=[CONFIRM_TOOL], run_id="run-2")

    second = await run(wrapper, second_input)

    assert model.call_count == 2
    received = model.calls[1].input
    (call_item,) = [item for item in received if item.get("type") == "function_call"]
    (output_item,) = [item for item in received if item.get("type") == "function_call_output"]
    assert call_item["call_id"] == output_item["call_id"] == "cc-1"
    assert call_item["name"] == "confirm_order"
    assert output_item["output"] == '{"confirmed": true}'
    assert received.index(call_item) < received.index(output_item)
    assert streamed_text(second) == "Order 42 is confirmed."
    outcome = finished(second).outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert not outcome.pending_tool_call_ids
    ids = [m.id for m in snapshot(second).messages]
    assert ids[: len(history)] == [m.id for m in history]
    assert of_type(second, ToolCallResultEvent) == []


# --- the AG-UI context ----------------------------------------------------------------------


def context_agent(instructions: Any) -> Agent[Any]:
    """An agent that needs two model calls (a server tool, then text)."""
    return Agent(name="shop", instructions=instructions, tools=[lookup_order])


def two_turns() -> ScriptedResponsesModel:
    return ScriptedResponsesModel(
        [Turn([Call("lookup_order", {"order_id": "42"})]), Turn([Text("Shipped.")])]
    )


def assert_context_on_every_call(model: ScriptedResponsesModel, base: str) -> None:
    assert model.call_count == 2
    for call in model.calls:
        assert call.instructions is not None
        assert call.instructions.startswith(base)
        assert call.instructions.endswith(context_block(PAGE_CONTEXT))
        assert call.instructions.count(CONTEXT_HEADER) == 1


async def test_context_is_appended_to_static_instructions_on_every_model_call() -> None:
    model = two_turns()
    await run(wrap(context_agent("Help with orders."), model), make_input(context=PAGE_CONTEXT))
    assert_context_on_every_call(model, "Help with orders.")


async def test_context_is_appended_to_sync_dynamic_instructions_on_every_model_call() -> None:
    seen_agents: list[str] = []

    def instructions(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        seen_agents.append(agent.name)
        return f"Dynamic rules for {agent.name}."

    model = two_turns()
    await run(wrap(context_agent(instructions), model), make_input(context=PAGE_CONTEXT))

    assert_context_on_every_call(model, "Dynamic rules for shop.")
    assert seen_agents == ["shop", "shop"]


async def test_context_is_appended_to_async_dynamic_instructions_on_every_model_call() -> None:
    async def instructions(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        await asyncio.sleep(0)
        return "Async rules."

    model = two_turns()
    await run(wrap(context_agent(instructions), model), make_input(context=PAGE_CONTEXT))

    assert_context_on_every_call(model, "Async rules.")


async def test_context_in_instructions_false_leaves_the_instructions_alone() -> None:
    model = two_turns()
    wrapper = wrap(context_agent("Help with orders."), model, context_in_instructions=False)

    await run(wrapper, make_input(context=PAGE_CONTEXT))

    assert [call.instructions for call in model.calls] == ["Help with orders."] * 2


async def test_an_empty_context_adds_no_block() -> None:
    model = two_turns()
    await run(wrap(context_agent("Help with orders."), model), make_input())
    assert [call.instructions for call in model.calls] == ["Help with orders."] * 2


def context_reader(seen: list[Any]) -> FunctionTool:
    @function_tool
    def read_context(ctx: RunContextWrapper[Any]) -> str:
        """Report what the SDK context holds."""
        seen.append(ctx.context)
        return "read"

    return read_context


def reader_model() -> ScriptedResponsesModel:
    return ScriptedResponsesModel([Turn([Call("read_context")]), Turn([Text("Done.")])])


async def test_without_an_sdk_context_the_ag_ui_context_list_is_the_sdk_context() -> None:
    seen: list[Any] = []
    agent = Agent(name="shop", instructions="Help.", tools=[context_reader(seen)])
    run_input = make_input(context=PAGE_CONTEXT)

    await run(wrap(agent, reader_model()), run_input)

    assert seen == [PAGE_CONTEXT]
    assert all(isinstance(item, Context) for item in seen[0])


async def test_a_given_sdk_context_wins_over_the_ag_ui_context() -> None:
    seen: list[Any] = []
    agent = Agent(name="shop", instructions="Help.", tools=[context_reader(seen)])
    dependencies = {"db": "connection"}
    model = reader_model()

    await run(wrap(agent, model, context=dependencies), make_input(context=PAGE_CONTEXT))

    assert len(seen) == 1
    assert seen[0] is dependencies
    # The context block still reaches the model's instructions.
    assert context_block(PAGE_CONTEXT) in (model.calls[0].instructions or "")


async def test_a_context_factory_is_called_with_the_request() -> None:
    seen: list[Any] = []
    agent = Agent(name="shop", instructions="Help.", tools=[context_reader(seen)])
    http_request = object()

    def factory(run_input: RunAgentInput, request: Any) -> Any:
        return {"thread": run_input.thread_id, "rq": request}

    await run(wrap(agent, reader_model(), context=factory), make_input(context=PAGE_CONTEXT))
    wrapper = wrap(agent, reader_model(), context=factory)
    await collect(wrapper.run_streamed(make_input(context=PAGE_CONTEXT), request=http_request))

    assert seen == [{"thread": "thread-1", "rq": None}, {"thread": "thread-1", "rq": http_request}]


async def test_an_approved_tool_run_on_resume_also_sees_the_ag_ui_context() -> None:
    seen: list[Any] = []

    @function_tool(needs_approval=True)
    def refund(ctx: RunContextWrapper[Any], order_id: str) -> str:
        """Refund an order."""
        seen.append(ctx.context)
        return f"refunded {order_id}"

    agent = Agent(name="shop", instructions="Help.", tools=[refund])
    model = ScriptedResponsesModel(
        [Turn([Call("refund", {"order_id": "42"}, call_id="rf-1")]), Turn([Text("Refunded.")])]
    )
    wrapper = wrap(agent, model)
    paused = await run(wrapper, make_input(context=PAGE_CONTEXT))
    assert isinstance(finished(paused).outcome, RunFinishedInterruptOutcome)
    resume = [ResumeEntry(interrupt_id="rf-1", status="resolved", payload={"approved": True})]
    resumed_input = make_input(
        messages=snapshot(paused).messages, context=PAGE_CONTEXT, resume=resume, run_id="run-2"
    )

    events = await run(wrapper, resumed_input)

    assert [e.content for e in of_type(events, ToolCallResultEvent)] == ["refunded 42"]
    assert seen == [PAGE_CONTEXT]


# --- shared state ---------------------------------------------------------------------------


async def test_the_request_state_is_the_runs_shared_state() -> None:
    seen_states: list[Any] = []

    @function_tool
    def add_item(name: str) -> str:
        """Add an item to the cart."""
        state = shared_state()
        seen_states.append(copy.deepcopy(state.value))
        state.update(items=[*state.value.get("items", []), name])
        return f"Added {name}."

    agent = Agent(name="cart", instructions="Manage the cart.", tools=[add_item])
    model = ScriptedResponsesModel(
        [Turn([Call("add_item", {"name": "pear"}, call_id="add-1")]), Turn([Text("Done.")])]
    )
    request_state = {"items": ["apple"], "owner": {"name": "Ann"}}
    owner = request_state["owner"]
    state_before = copy.deepcopy(request_state)
    run_input = make_input(state=request_state)

    events = await run(wrap(agent, model), run_input)

    assert seen_states == [state_before]
    snapshots = of_type(events, StateSnapshotEvent)
    assert [s.snapshot for s in snapshots] == [
        {"items": ["apple", "pear"], "owner": {"name": "Ann"}}
    ]
    (result,) = of_type(events, ToolCallResultEvent)
    assert events.index(snapshots[0]) < events.index(result)
    assert run_input.state == state_before
    assert run_input.state["owner"] is owner


async def test_each_request_gets_its_own_shared_state() -> None:
    @function_tool
    def bump() -> str:
        """Count one more visit."""
        state = shared_state()
        state.update(visits=state.value.get("visits", 0) + 1)
        return str(state.value["visits"])

    agent = Agent(name="counter", instructions="Count.", tools=[bump])
    model = ScriptedResponsesModel(
        lambda call: (
            Turn([Text("ok")])
            if any(item.get("type") == "function_call_output" for item in call.input)
            else Turn([Call("bump")])
        )
    )
    wrapper = wrap(agent, model)
    inputs = [make_input(state={"visits": start}, run_id=f"run-{start}") for start in (0, 10, 20)]

    streams = await asyncio.gather(*(run(wrapper, ri) for ri in inputs))

    for start, events in zip((0, 10, 20), streams, strict=True):
        assert [s.snapshot for s in of_type(events, StateSnapshotEvent)] == [{"visits": start + 1}]
    assert [ri.state for ri in inputs] == [{"visits": 0}, {"visits": 10}, {"visits": 20}]


# --- tracing switch --------------------------------------------------------------------------


class TracingRecorder(ScriptedResponsesModel):
    """A scripted model that also records the tracing mode of each call."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        super().__init__(turns)
        self.tracing: list[ModelTracing] = []

    async def stream_response(
        self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: ModelTracing, **kwargs: Any,
    ) -> Any:  # fmt: skip
        self.tracing.append(tracing)
        async for event in super().stream_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
            **kwargs,
        ):  # fmt: skip
            yield event


def capture_run_configs(monkeypatch: pytest.MonkeyPatch) -> list[RunConfig | None]:
    """Record the ``run_config`` of every ``Runner.run_streamed`` call."""
    seen: list[RunConfig | None] = []
    original = Runner.run_streamed

    def recording(cls: type[Runner], *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("run_config"))
        return original(*args, **kwargs)

    monkeypatch.setattr(Runner, "run_streamed", classmethod(recording))
    return seen


def traced_config(model: ScriptedResponsesModel) -> RunConfig:
    return RunConfig(
        model_provider=ScriptedProvider(model),
        tracing_disabled=False,
        workflow_name="orders workflow",
        group_id="group-7",
        trace_metadata={"team": "shop"},
    )


class TraceRecorder(TracingProcessor):
    """Records the traces a trace provider starts."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.started.append(trace.name)

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


@pytest.mark.parametrize("value, traced", [("true", False), ("false", True)])
async def test_the_sdk_itself_reads_the_disable_tracing_switch(
    monkeypatch: pytest.MonkeyPatch, value: str, traced: bool
) -> None:
    """The wrapper passes the application's RunConfig as it is; the SDK's own trace provider
    reads OPENAI_AGENTS_DISABLE_TRACING (a fresh provider reads it on first use)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", value)
    provider = DefaultTraceProvider()
    recorder = TraceRecorder()
    provider.register_processor(recorder)
    previous = get_trace_provider()
    set_trace_provider(provider)
    try:
        seen = capture_run_configs(monkeypatch)
        config = traced_config(TracingRecorder([Turn([Text("Hello.")])]))
        agent = Agent(name="a", instructions="Hi.")
        events = await run(OpenAIAgentsAgent(agent, run_config=config), make_input())
    finally:
        set_trace_provider(previous)
    assert streamed_text(events) == "Hello."
    assert seen == [config] and seen[0] is config
    assert recorder.started == (["orders workflow"] if traced else [])


@pytest.mark.parametrize("value", [None, "false", "true"], ids=["unset", "false", "true"])
async def test_without_the_env_switch_the_run_config_is_passed_unchanged(
    monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if value is None:
        monkeypatch.delenv("OPENAI_AGENTS_DISABLE_TRACING", raising=False)
    else:
        monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", value)
    seen = capture_run_configs(monkeypatch)
    model = TracingRecorder([Turn([Text("Hello.")])])
    config = traced_config(model)

    await run(
        OpenAIAgentsAgent(Agent(name="a", instructions="Hi."), run_config=config), make_input()
    )

    assert seen == [config]
    assert seen[0] is config


# --- handoffs -------------------------------------------------------------------------------


@function_tool
def check_stock(sku: str) -> str:
    """Check the stock of a product."""
    return f"{sku}: 3 left"


@pytest.mark.parametrize("wrap_in_handoff", [False, True], ids=["plain-agent", "handoff-object"])
async def test_handoff_targets_keep_their_own_tools_and_instructions(wrap_in_handoff: bool) -> None:
    specialist = Agent(name="stock", instructions="Answer stock questions.", tools=[check_stock])
    target: Any = handoff(specialist) if wrap_in_handoff else specialist
    triage = Agent(name="triage", instructions="Route the user.", handoffs=[target])
    model = ScriptedResponsesModel(
        [
            Turn([Call("transfer_to_stock", {}, call_id="ho-1")]),
            Turn([Call("check_stock", {"sku": "pear"}, call_id="cs-1")]),
            Turn([Text("3 pears left.")]),
        ]
    )
    run_input = make_input(tools=[CONFIRM_TOOL], context=PAGE_CONTEXT)

    events = await run(wrap(triage, model), run_input)

    first, *specialist_calls = model.calls
    assert "confirm_order" in first.tool_names
    assert first.handoff_names == ["transfer_to_stock"]
    assert first.instructions == f"Route the user.\n\n{context_block(PAGE_CONTEXT)}"
    assert len(specialist_calls) == 2
    for call in specialist_calls:
        assert call.instructions == "Answer stock questions."
        assert call.tool_names == ["check_stock"]
    assert [e.content for e in of_type(events, ToolCallResultEvent)][-1] == "pear: 3 left"
    assert streamed_text(events) == "3 pears left."
    assert specialist.tools == [check_stock]
    assert specialist.instructions == "Answer stock questions."
