"""Backend tool approval end to end: pause, resume and undecided runs on the real runner.

Every request after the first is built as a client builds it: the previous run's
MESSAGES_SNAPSHOT plus resume entries (or a new user message). Each flow runs through the
translator directly (``resume_tool_calls`` → ``Runner.run_streamed`` → ``to_agui``) and through
``OpenAIAgentsAgent``; the last test serves the agent from two separate server processes and
moves one conversation between them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    EventType,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    TextMessageContentEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.models.interface import Model
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
from agents.tool_context import ToolContext
from fastapi import FastAPI

from ag_ui_openai_agents import (
    AGUITranslator,
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    resume_tool_calls,
)
from ag_ui_openai_agents.agent import SETUP_ERROR_MESSAGE
from ag_ui_openai_agents.approvals.interrupts import TOOL_APPROVAL_REASON, UnresumableApprovalError
from ag_ui_openai_agents.approvals.resume import CANCELLED_RESULT, ResumedToolCalls
from ag_ui_openai_agents.errors import UNRESUMABLE_APPROVAL_CODE
from support.approval_app import PROCESS_ENV, TOOL_NAME, refund_call_id
from support.invariants import StreamViolation, check_stream, parse_sse
from support.processes import Server, server_env, server_processes
from support.scripted import (
    Call,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnUsage,
)
from support.signed_approvals import approve, cancel, reject

set_tracing_disabled(True)

E = TypeVar("E", bound=BaseEvent)
TESTS_DIR = Path(__file__).resolve().parents[1]
PROJECT_DIR = TESTS_DIR.parent
SERVER_START_SECONDS = 60.0
REQUEST_SECONDS = 30.0
STOP_SECONDS = 10.0


# --------------------------------------------------------------------------- tools


@dataclass
class Ledger:
    """Every run of the test's tools: (tool name, ToolContext.tool_call_id, arguments)."""

    runs: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


def refund_tool(ledger: Ledger) -> Any:
    """``issue_refund(order_id)``, approval-gated, recording each run."""

    @function_tool(needs_approval=True)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        ledger.runs.append(("issue_refund", ctx.tool_call_id, {"order_id": order_id}))
        return f"Refund issued for {order_id}"

    return issue_refund


def cancel_tool(ledger: Ledger) -> Any:
    """``cancel_order(order_id, reason)``, approval-gated, recording each run."""

    @function_tool(needs_approval=True)
    def cancel_order(ctx: ToolContext[Any], order_id: str, reason: str) -> str:
        """Cancel an order."""
        ledger.runs.append(("cancel_order", ctx.tool_call_id, {"order_id": order_id}))
        return f"Order {order_id} cancelled ({reason})"

    return cancel_order


def failing_refund_tool(ledger: Ledger) -> Any:
    """An approval-gated tool that raises, with no failure handler."""

    @function_tool(name_override="issue_refund", needs_approval=True, failure_error_function=None)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        ledger.runs.append(("issue_refund", ctx.tool_call_id, {"order_id": order_id}))
        raise RuntimeError(f"payment gateway down for card 4242 (order {order_id})")

    return issue_refund


REFUND_ARGS = {"order_id": "1"}
CANCEL_ARGS = {"order_id": "2", "reason": "damaged"}


def refund_call(call_id: str = "call_refund") -> Call:
    return Call("issue_refund", REFUND_ARGS, call_id=call_id)


def cancel_call(call_id: str = "call_cancel") -> Call:
    return Call("cancel_order", CANCEL_ARGS, call_id=call_id)


# --------------------------------------------------------------------------- requests


def first_request(text: str = "Refund order 1 and cancel order 2.") -> RunAgentInput:
    """The conversation's first request: one user message."""
    return make_request([UserMessage(id="user-1", content=text)], run_id="run-1")


def make_request(
    messages: Sequence[Message],
    *,
    run_id: str,
    resume: Sequence[ResumeEntry] = (),
) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id=run_id,
        protocol_version="1.0",
        messages=list(messages),
        tools=[],
        context=[],
        state={},
        forwarded_props={},
        resume=list(resume) or None,
    )


# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    """One request's AG-UI events (checked), and what it was answering."""

    request: RunAgentInput
    events: list[BaseEvent]
    error: BaseException | None = None
    resumed: ResumedToolCalls | None = None

    def of(self, cls: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, cls)]

    @property
    def types(self) -> list[str]:
        return [event.type.value for event in self.events]

    @property
    def finished(self) -> RunFinishedEvent:
        last = self.events[-1]
        assert isinstance(last, RunFinishedEvent), f"the run ended with {last.type.value}"
        assert self.error is None
        return last

    @property
    def run_error(self) -> RunErrorEvent:
        last = self.events[-1]
        assert isinstance(last, RunErrorEvent), f"the run ended with {last.type.value}"
        return last

    @property
    def interrupts(self) -> list[Interrupt]:
        outcome = self.finished.outcome
        assert isinstance(outcome, RunFinishedInterruptOutcome), f"outcome {outcome!r}"
        return outcome.interrupts

    @property
    def snapshot(self) -> list[Message]:
        (snapshot,) = self.of(MessagesSnapshotEvent)
        return snapshot.messages

    @property
    def results(self) -> dict[str, ToolCallResultEvent]:
        return {event.tool_call_id: event for event in self.of(ToolCallResultEvent)}

    @property
    def text(self) -> str:
        return "".join(event.delta for event in self.of(TextMessageContentEvent))

    def next(
        self,
        run_id: str,
        *,
        resume: Sequence[ResumeEntry] = (),
        add: Sequence[Message] = (),
    ) -> RunAgentInput:
        """The client's next request: this run's snapshot, new messages, resume entries."""
        return make_request([*self.snapshot, *add], run_id=run_id, resume=resume)


Driver = Callable[..., Awaitable[Run]]


def scripted_config(models: Model | Mapping[str, Model]) -> RunConfig:
    """A run config whose provider serves the scripted model(s) and never the network."""
    return RunConfig(model_provider=ScriptedProvider(models), tracing_disabled=True)


def check_client_stream(
    events: Sequence[BaseEvent], run_input: RunAgentInput, *, answers_moved: bool = False
) -> None:
    """Check a stream against the request the client sent.

    ``answers_moved``: the request held messages after a paused call, so the snapshot places
    the call's new result right after the call, ahead of those messages, where the checker
    expects the request's messages first. The stream is then checked once more with the
    snapshot in that order (:func:`input_first`), and the test asserts the real order itself.
    """
    try:
        check_stream(events, run_input=run_input)
    except StreamViolation as exc:
        if not answers_moved or exc.rule != "snapshot-input-lost":
            raise
        check_stream(input_first(events, run_input), run_input=run_input)


def input_first(events: Sequence[BaseEvent], run_input: RunAgentInput) -> list[BaseEvent]:
    """The events with the snapshot reordered: the request's messages first, then the rest."""
    order = {message.id: position for position, message in enumerate(run_input.messages)}
    out: list[BaseEvent] = []
    for event in events:
        if isinstance(event, MessagesSnapshotEvent):
            sent = sorted((m for m in event.messages if m.id in order), key=lambda m: order[m.id])
            rest = [m for m in event.messages if m.id not in order]
            event = event.model_copy(update={"messages": [*sent, *rest]})
        out.append(event)
    return out


async def run_direct(
    agent: Agent[Any],
    run_input: RunAgentInput,
    config: RunConfig,
    *,
    answers_moved: bool = False,
    **options: Any,
) -> Run:
    """The translator recipe: resume open calls, run the model only when none is undecided."""
    translator = AGUITranslator()
    resumed = await resume_tool_calls(agent, run_input, run_config=config)
    events: Any = None
    if not resumed.open_interrupts:
        translated = translator.to_openai(resumed.run_input)
        events = Runner.run_streamed(agent, input=translated.messages, run_config=config)
    collected: list[BaseEvent] = []
    error: BaseException | None = None
    try:
        async for event in translator.to_agui(
            events, resumed.run_input, resumed=resumed, **options
        ):
            collected.append(event)
    except Exception as exc:
        error = exc
    check_client_stream(collected, run_input, answers_moved=answers_moved)
    return Run(run_input, collected, error, resumed)


async def run_wrapper(
    agent: Agent[Any],
    run_input: RunAgentInput,
    config: RunConfig,
    *,
    answers_moved: bool = False,
    **options: Any,
) -> Run:
    """The same request through ``OpenAIAgentsAgent``."""
    wrapper = OpenAIAgentsAgent(agent, run_config=config, **options)
    collected: list[BaseEvent] = []
    error: BaseException | None = None
    try:
        async for event in wrapper.run_streamed(run_input):
            collected.append(event)
    except Exception as exc:
        error = exc
    check_client_stream(collected, run_input, answers_moved=answers_moved)
    return Run(run_input, collected, error)


@pytest.fixture(params=["direct", "wrapper"])
def drive(request: pytest.FixtureRequest) -> Driver:
    """Run one request through the translator recipe or through the wrapper."""
    return run_direct if request.param == "direct" else run_wrapper


@dataclass
class Shop:
    """An agent with two approval-gated tools, its scripted model and what its tools ran."""

    agent: Agent[Any]
    model: ScriptedResponsesModel
    ledger: Ledger
    config: RunConfig


def shop(turns: Sequence[Turn]) -> Shop:
    ledger = Ledger()
    agent = Agent(
        name="shop", instructions="Help.", tools=[refund_tool(ledger), cancel_tool(ledger)]
    )
    model = ScriptedResponsesModel(list(turns))
    return Shop(agent, model, ledger, scripted_config(model))


def both_calls_turn() -> Turn:
    """One model turn making the two gated calls in parallel, after a little text."""
    return Turn([Text("I will do both."), refund_call(), cancel_call()])


def outputs_seen(model: ScriptedResponsesModel, call: int) -> dict[str, str]:
    """The function_call_output items the model received on its ``call``-th call, by call id."""
    return {
        item["call_id"]: item["output"]
        for item in model.calls[call].input
        if item.get("type") == "function_call_output"
    }


def usage_by_model(event: RunFinishedEvent | RunErrorEvent) -> dict[str | None, dict[str, Any]]:
    """The usage entries of a terminal event, keyed by model."""
    entries = event.usage or []
    by_model = {
        entry.model: entry.model_dump(exclude_none=True, exclude={"model"}) for entry in entries
    }
    assert len(by_model) == len(entries), f"two entries for one model: {entries}"
    return by_model


def counts(input_tokens: int, output_tokens: int, **extra: Any) -> dict[str, Any]:
    """A usage entry's counts as ``model_dump(exclude_none=True)`` gives them."""
    total = input_tokens + output_tokens
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": total,
        **extra,
    }


# --------------------------------------------------------------------------- 1. pause


def assert_approval_interrupt(
    interrupt: Interrupt, call_id: str, tool_name: str, tool_input: dict[str, Any]
) -> None:
    """One interrupt asking to approve the paused call ``call_id``."""
    assert interrupt.id == call_id
    assert interrupt.tool_call_id == call_id
    assert interrupt.reason == TOOL_APPROVAL_REASON == "tool_approval"
    assert interrupt.metadata == {"tool_name": tool_name, "tool_input": tool_input}
    schema = interrupt.response_schema
    assert schema is not None and schema["type"] == "object"
    properties = schema["properties"]
    # No tool is made editable here, so no edits are offered (tests/approvals/test_edits.py).
    assert list(properties) == ["approved", "reason"]
    assert properties["approved"] == {"type": "boolean"}
    assert properties["reason"]["type"] == "string"
    assert schema.get("required") == ["approved"]


async def test_a_paused_run_ends_with_one_interrupt_per_paused_call(drive: Driver) -> None:
    s = shop([both_calls_turn()])

    paused = await drive(s.agent, first_request(), s.config)

    interrupts = paused.interrupts
    assert [i.id for i in interrupts] == ["call_refund", "call_cancel"]
    assert_approval_interrupt(interrupts[0], "call_refund", "issue_refund", REFUND_ARGS)
    assert_approval_interrupt(interrupts[1], "call_cancel", "cancel_order", CANCEL_ARGS)
    outcome = paused.finished.model_dump(by_alias=True, exclude_none=True)["outcome"]
    assert set(outcome) == {"type", "interrupts"}  # no pendingToolCallIds
    assert s.ledger.runs == []
    assert s.model.call_count == 1
    started = [event.tool_call_id for event in paused.of(ToolCallStartEvent)]
    assert started == ["call_refund", "call_cancel"]
    assert paused.results == {}


async def test_the_paused_calls_stay_in_the_snapshot_without_results(drive: Driver) -> None:
    s = shop([both_calls_turn()])

    paused = await drive(s.agent, first_request(), s.config)

    holders = [m for m in paused.snapshot if isinstance(m, AssistantMessage) and m.tool_calls]
    assert len(holders) == 1
    calls = {call.id: call.function for call in holders[0].tool_calls or []}
    assert {cid: (f.name, json.loads(f.arguments)) for cid, f in calls.items()} == {
        "call_refund": ("issue_refund", REFUND_ARGS),
        "call_cancel": ("cancel_order", CANCEL_ARGS),
    }
    answered = {m.tool_call_id for m in paused.snapshot if isinstance(m, ToolMessage)}
    assert answered.isdisjoint(calls)
    assert paused.snapshot[0].id == "user-1"


# --------------------------------------------------------------------------- 2. resume


async def test_an_approved_call_runs_once_and_its_result_leads_the_resumed_run(
    drive: Driver,
) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Refunded.")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)
    resume = paused.next("run-2", resume=[approve("call_refund")])

    resumed = await drive(s.agent, resume, s.config, initial_state={"step": "resume"})

    assert s.ledger.runs == [("issue_refund", "call_refund", REFUND_ARGS)]
    assert resumed.types[:3] == ["RUN_STARTED", "STATE_SNAPSHOT", "TOOL_CALL_RESULT"]
    result = resumed.results["call_refund"]
    assert result.message_id == "call_refund-result"
    assert result.content == "Refund issued for 1"
    assert s.model.call_count == 2
    assert outputs_seen(s.model, 1) == {"call_refund": "Refund issued for 1"}
    outcome = resumed.finished.outcome
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids is None
    assert resumed.text == "Refunded."


async def test_the_resumed_snapshot_answers_the_call_right_after_it(drive: Driver) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Refunded.")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)
    resume = paused.next("run-2", resume=[approve("call_refund")])

    resumed = await drive(s.agent, resume, s.config)

    kinds = [(type(m).__name__, m.id) for m in resumed.snapshot]
    holder = next(i for i, m in enumerate(resumed.snapshot) if isinstance(m, AssistantMessage))
    assert kinds[holder + 1] == ("ToolMessage", "call_refund-result")
    assert [m.id for m in resumed.snapshot[: len(resume.messages)]] == [
        m.id for m in resume.messages
    ]
    assert isinstance(resumed.snapshot[-1], AssistantMessage)
    assert resumed.snapshot[-1].content == "Refunded."


@pytest.mark.parametrize(
    ("decision", "expected"),
    [(reject, DEFAULT_APPROVAL_REJECTION_MESSAGE), (cancel, CANCELLED_RESULT)],
    ids=["rejected", "cancelled"],
)
async def test_a_refused_call_does_not_run_and_the_model_is_told_why(
    drive: Driver, decision: Callable[[str], ResumeEntry], expected: str
) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Understood.")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)

    resumed = await drive(s.agent, paused.next("run-2", resume=[decision("call_refund")]), s.config)

    assert s.ledger.runs == []
    assert resumed.results["call_refund"].content == expected
    assert resumed.types[:2] == ["RUN_STARTED", "TOOL_CALL_RESULT"]
    assert outputs_seen(s.model, 1) == {"call_refund": expected}
    assert isinstance(resumed.finished.outcome, RunFinishedSuccessOutcome)


@pytest.mark.parametrize("payload", [{"approved": False}, {}, None])
async def test_any_answer_but_approved_true_is_a_rejection(drive: Driver, payload: Any) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Understood.")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)
    entry = ResumeEntry(interrupt_id="call_refund", status="resolved", payload=payload)

    resumed = await drive(s.agent, paused.next("run-2", resume=[entry]), s.config)

    assert s.ledger.runs == []
    assert outputs_seen(s.model, 1) == {"call_refund": DEFAULT_APPROVAL_REJECTION_MESSAGE}
    assert isinstance(resumed.finished.outcome, RunFinishedSuccessOutcome)


async def test_parallel_calls_are_decided_one_by_one(drive: Driver) -> None:
    s = shop([both_calls_turn(), Turn([Text("Refunded; the cancellation was refused.")])])
    paused = await drive(s.agent, first_request(), s.config)
    entries = [reject("call_cancel"), approve("call_refund")]

    resumed = await drive(s.agent, paused.next("run-2", resume=entries), s.config)

    assert s.ledger.runs == [("issue_refund", "call_refund", REFUND_ARGS)]
    assert [e.tool_call_id for e in resumed.of(ToolCallResultEvent)] == [
        "call_refund",
        "call_cancel",
    ]
    assert resumed.types[:3] == ["RUN_STARTED", "TOOL_CALL_RESULT", "TOOL_CALL_RESULT"]
    assert outputs_seen(s.model, 1) == {
        "call_refund": "Refund issued for 1",
        "call_cancel": DEFAULT_APPROVAL_REJECTION_MESSAGE,
    }
    assert isinstance(resumed.finished.outcome, RunFinishedSuccessOutcome)


async def test_replaying_an_approval_runs_the_tool_again(drive: Driver) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Refunded.")]), Turn([Text("Refunded again.")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)
    resume = paused.next("run-2", resume=[approve("call_refund")])

    await drive(s.agent, resume, s.config)
    await drive(s.agent, resume, s.config)

    assert [run[1] for run in s.ledger.runs] == ["call_refund", "call_refund"]


# --------------------------------------------------------------------------- 3. undecided


UNDECIDED_CASES = {
    "no entry": ((), (), ["call_refund", "call_cancel"], {}),
    "partial resume": (
        (approve("call_refund"),),
        (),
        ["call_cancel"],
        {"call_refund": "Refund issued for 1"},
    ),
    "new user message": (
        (),
        (UserMessage(id="user-2", content="Actually, wait."),),
        ["call_refund", "call_cancel"],
        {},
    ),
}


@pytest.mark.parametrize("case", list(UNDECIDED_CASES))
async def test_an_undecided_approval_ends_the_run_with_its_interrupt_again(
    drive: Driver, case: str
) -> None:
    entries, added, still_open, answered = UNDECIDED_CASES[case]
    s = shop([both_calls_turn()])
    paused = await drive(s.agent, first_request(), s.config)
    request = paused.next("run-2", resume=entries, add=added)

    again = await drive(s.agent, request, s.config)

    assert s.model.call_count == 1  # the model was not called for the second request
    assert [i.id for i in again.interrupts] == still_open
    first = {i.id: i for i in paused.interrupts}
    assert [i.model_dump() for i in again.interrupts] == [first[c].model_dump() for c in still_open]
    assert {cid: str(e.content) for cid, e in again.results.items()} == answered
    assert [run[1] for run in s.ledger.runs] == list(answered)
    expected_types = ["RUN_STARTED", *["TOOL_CALL_RESULT"] * len(answered)]
    assert again.types == [*expected_types, "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert again.finished.usage is None
    snapshot_ids = [m.id for m in again.snapshot]
    assert all(m.id in snapshot_ids for m in request.messages)
    if added:
        assert snapshot_ids[-1] == "user-2"
    if again.resumed is not None:  # the translator recipe: nothing ran, to_agui got None
        assert [i.id for i in again.resumed.open_interrupts] == still_open


async def test_the_new_message_reaches_the_model_once_the_approval_is_decided(
    drive: Driver,
) -> None:
    s = shop([Turn([refund_call()]), Turn([Text("Refunded; what should I wait for?")])])
    paused = await drive(s.agent, first_request("Refund order 1."), s.config)
    waiting = await drive(
        s.agent,
        paused.next("run-2", add=[UserMessage(id="user-2", content="Actually, wait.")]),
        s.config,
    )
    assert [i.id for i in waiting.interrupts] == ["call_refund"]

    decided = await drive(
        s.agent,
        waiting.next("run-3", resume=[approve("call_refund")]),
        s.config,
        answers_moved=True,
    )

    assert isinstance(decided.finished.outcome, RunFinishedSuccessOutcome)
    ids = [m.id for m in decided.snapshot]
    assert ids[:4] == ["user-1", waiting.snapshot[1].id, "call_refund-result", "user-2"]
    assert len(ids) == 5 and decided.snapshot[-1].content == "Refunded; what should I wait for?"
    assert s.model.call_count == 2
    seen = [
        (item.get("type") or item.get("role"), item.get("call_id") or item.get("content"))
        for item in s.model.calls[1].input
    ]
    assert seen == [
        ("user", "Refund order 1."),
        ("function_call", "call_refund"),
        ("function_call_output", "call_refund"),
        ("user", "Actually, wait."),
    ]
    assert s.ledger.runs == [("issue_refund", "call_refund", REFUND_ARGS)]


# --------------------------------------------------------------------------- 4. usage


async def test_a_resumed_agent_tool_reports_its_usage_beside_the_outer_model(
    drive: Driver,
) -> None:
    outer_model = ScriptedResponsesModel(
        [
            Turn(
                [Call("refund_specialist", {"input": "refund order 1"}, call_id="call_spec")],
                usage=TurnUsage(11, 2),
            ),
            Turn([Text("All done.")], usage=TurnUsage(20, 4, cached=5)),
        ],
        model_name="outer-model",
    )
    sub_model = ScriptedResponsesModel(
        [Turn([Text("Refund done.")], usage=TurnUsage(7, 3, reasoning=1))], model_name="sub-model"
    )
    specialist = Agent(name="refunds", instructions="Refund orders.", model="sub-model")
    agent_tool = specialist.as_tool(
        tool_name="refund_specialist", tool_description="Handles refunds.", needs_approval=True
    )
    outer = Agent(name="support", instructions="Help.", model="outer-model", tools=[agent_tool])
    config = scripted_config({"outer-model": outer_model, "sub-model": sub_model})
    paused = await drive(outer, first_request("Refund order 1."), config)
    assert [i.id for i in paused.interrupts] == ["call_spec"]
    assert usage_by_model(paused.finished) == {"outer-model": counts(11, 2)}
    assert sub_model.call_count == 0

    resumed = await drive(outer, paused.next("run-2", resume=[approve("call_spec")]), config)

    assert resumed.results["call_spec"].content == "Refund done."
    assert (outer_model.call_count, sub_model.call_count) == (2, 1)
    assert usage_by_model(resumed.finished) == {
        "outer-model": counts(20, 4, cached_input_tokens=5),
        None: counts(7, 3, reasoning_tokens=1),
    }


# --------------------------------------------------------------------------- 5. unresumable


def nested_approval(
    ledger: Ledger, *, gate_agent_tool: bool
) -> tuple[Agent[Any], ScriptedResponsesModel, ScriptedResponsesModel, RunConfig]:
    """An outer agent whose agent tool runs a specialist with an approval-gated tool."""
    outer_model = ScriptedResponsesModel(
        [
            Turn(
                [Call("refund_specialist", {"input": "refund order 1"}, call_id="call_spec")],
                usage=TurnUsage(11, 2),
            )
        ],
        model_name="outer-model",
    )
    sub_model = ScriptedResponsesModel(
        [Turn([refund_call("call_inner")], usage=TurnUsage(7, 3))], model_name="sub-model"
    )
    specialist = Agent(
        name="refunds",
        instructions="Refund orders.",
        model="sub-model",
        tools=[refund_tool(ledger)],
    )
    agent_tool = specialist.as_tool(
        tool_name="refund_specialist",
        tool_description="Handles refunds.",
        needs_approval=gate_agent_tool,
    )
    outer = Agent(name="support", instructions="Help.", model="outer-model", tools=[agent_tool])
    config = scripted_config({"outer-model": outer_model, "sub-model": sub_model})
    return outer, outer_model, sub_model, config


async def test_an_approval_inside_an_agent_tool_ends_the_run_with_run_error(
    drive: Driver,
) -> None:
    ledger = Ledger()
    outer, outer_model, sub_model, config = nested_approval(ledger, gate_agent_tool=False)

    failed = await drive(outer, first_request("Refund order 1."), config)

    assert isinstance(failed.error, UnresumableApprovalError)
    error = failed.run_error
    assert error.code == "UnresumableApprovalError"
    assert "issue_refund" in error.message and "agent used as a tool" in error.message
    assert not failed.of(RunFinishedEvent)
    assert not failed.of(MessagesSnapshotEvent)
    assert failed.types[0] == "RUN_STARTED"
    assert "outer-model" in usage_by_model(error)
    assert ledger.runs == []
    assert (outer_model.call_count, sub_model.call_count) == (1, 1)


async def test_an_approved_agent_tool_whose_agent_pauses_cannot_resume() -> None:
    ledger = Ledger()
    outer, outer_model, sub_model, config = nested_approval(ledger, gate_agent_tool=True)
    paused = await run_direct(outer, first_request("Refund order 1."), config)
    assert [i.id for i in paused.interrupts] == ["call_spec"]
    request = paused.next("run-2", resume=[approve("call_spec")])

    with pytest.raises(UnresumableApprovalError, match="refund_specialist"):
        await run_direct(outer, request, config)  # the recipe fails before any event

    assert ledger.runs == []
    assert (outer_model.call_count, sub_model.call_count) == (1, 1)


async def test_an_approved_agent_tool_whose_agent_pauses_fails_through_the_wrapper() -> None:
    """The package's own error, written for the client, keeps its text and code."""
    ledger = Ledger()
    outer, outer_model, sub_model, config = nested_approval(ledger, gate_agent_tool=True)
    paused = await run_wrapper(outer, first_request("Refund order 1."), config)
    assert [i.id for i in paused.interrupts] == ["call_spec"]

    failed = await run_wrapper(outer, paused.next("run-2", resume=[approve("call_spec")]), config)

    assert isinstance(failed.error, UnresumableApprovalError)
    assert "refund_specialist" in str(failed.error)
    assert failed.types == ["RUN_STARTED", "RUN_ERROR"]
    assert failed.run_error.message == str(failed.error)
    assert failed.run_error.code == UNRESUMABLE_APPROVAL_CODE
    assert ledger.runs == []
    assert (outer_model.call_count, sub_model.call_count) == (1, 1)


# --------------------------------------------------------------------------- 6. failing tool


def failing_shop() -> Shop:
    ledger = Ledger()
    agent = Agent(name="shop", instructions="Help.", tools=[failing_refund_tool(ledger)])
    model = ScriptedResponsesModel([Turn([refund_call()])])
    return Shop(agent, model, ledger, scripted_config(model))


@pytest.mark.parametrize("safe_message", [None, "The refund could not be completed."])
async def test_an_approved_tool_that_raises_fails_the_request_as_a_valid_stream(
    safe_message: str | None,
) -> None:
    s = failing_shop()
    paused = await run_wrapper(s.agent, first_request("Refund order 1."), s.config)
    request = paused.next("run-2", resume=[approve("call_refund")])

    failed = await run_wrapper(s.agent, request, s.config, run_error_message=safe_message)

    assert isinstance(failed.error, RuntimeError) and "4242" in str(failed.error)
    assert failed.types == ["RUN_STARTED", "RUN_ERROR"]
    message = failed.run_error.message
    assert message == (safe_message or SETUP_ERROR_MESSAGE)
    assert "4242" not in message and "gateway" not in message
    assert [run[1] for run in s.ledger.runs] == ["call_refund"]
    assert s.model.call_count == 1


async def test_an_approved_tool_that_raises_over_http_is_a_valid_sse_stream() -> None:
    s = failing_shop()
    paused = await run_wrapper(s.agent, first_request("Refund order 1."), s.config)
    request = paused.next("run-2", resume=[approve("call_refund")])
    app = FastAPI()
    wrapper = OpenAIAgentsAgent(s.agent, run_config=s.config, run_error_message="Refund failed.")
    add_openai_agents_fastapi_endpoint(app, wrapper, path="/agent")
    transport = httpx.ASGITransport(app=app)

    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            "/agent", json=wire(request), headers={"accept": "text/event-stream"}
        )

    assert response.status_code == 200
    events = parse_sse(response.content)
    check_stream(events, run_input=request)
    assert [e.type for e in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    assert isinstance(events[-1], RunErrorEvent) and events[-1].message == "Refund failed."
    assert "4242" not in response.text
    assert len(s.ledger.runs) == 1


# --------------------------------------------------------------------------- 7. two processes


def wire(run_input: RunAgentInput) -> dict[str, Any]:
    """A request body as a client sends it."""
    return run_input.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Processes A and B, started separately (in parallel) on their own free ports.

    A process that fails to come up (say, its port was taken meanwhile) is replaced, at most
    twice. Every process started here is stopped when the test ends, whatever happens.
    """
    envs = {name: server_env(PROCESS_ENV, name, {"PYTHONUNBUFFERED": "1"}) for name in "AB"}
    with server_processes(
        "support.approval_app:app", ("A", "B"), envs, tmp_path, start_seconds=SERVER_START_SECONDS
    ) as (a, b):
        yield a, b


def post(client: httpx.Client, server: Server, run_input: RunAgentInput) -> Run:
    """POST one AG-UI request to ``server``; parse and check the SSE stream."""
    response = client.post(
        f"{server.url}/agent", json=wire(run_input), headers={"accept": "text/event-stream"}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.content)
    check_stream(events, run_input=run_input)
    return Run(run_input, events)


def tool_runs(client: httpx.Client, server: Server) -> list[dict[str, str]]:
    report = client.get(f"{server.url}/tool-runs").json()
    assert report["process"] == server.name and report["pid"] == server.process.pid
    runs: list[dict[str, str]] = report["runs"]
    return runs


@pytest.mark.slow
def test_a_pause_on_one_process_resumes_on_another(two_servers: tuple[Server, Server]) -> None:
    a, b = two_servers
    assert a.process.pid != b.process.pid
    first = make_request([UserMessage(id="user-1", content="Refund order 7")], run_id="run-1")
    with httpx.Client(timeout=REQUEST_SECONDS) as client:
        paused_on_a = post(client, a, first)
        approved_on_b = post(
            client, b, paused_on_a.next("run-2", resume=[approve(refund_call_id(1))])
        )
        second_ask = UserMessage(id="user-2", content="Refund order 8")
        paused_on_b = post(client, b, approved_on_b.next("run-3", add=[second_ask]))
        rejected_on_a = post(
            client, a, paused_on_b.next("run-4", resume=[reject(refund_call_id(2))])
        )
        runs_a, runs_b = tool_runs(client, a), tool_runs(client, b)

    runs = [paused_on_a, approved_on_b, paused_on_b, rejected_on_a]
    assert [run.finished.outcome.type for run in runs] == [  # type: ignore[union-attr]
        "interrupt",
        "success",
        "interrupt",
        "success",
    ]
    (first_pause,) = paused_on_a.interrupts
    assert_approval_interrupt(first_pause, refund_call_id(1), TOOL_NAME, {"order_id": "7"})
    ran = approved_on_b.results[refund_call_id(1)]
    assert ran.message_id == f"{refund_call_id(1)}-result"
    assert f"by process B (pid {b.process.pid})" in str(ran.content)
    assert approved_on_b.types[:2] == ["RUN_STARTED", "TOOL_CALL_RESULT"]
    assert str(ran.content) in approved_on_b.text
    (second_pause,) = paused_on_b.interrupts
    assert_approval_interrupt(second_pause, refund_call_id(2), TOOL_NAME, {"order_id": "8"})
    refused = rejected_on_a.results[refund_call_id(2)]
    assert refused.content == DEFAULT_APPROVAL_REJECTION_MESSAGE
    assert DEFAULT_APPROVAL_REJECTION_MESSAGE in rejected_on_a.text
    assert runs_a == []
    assert runs_b == [{"call_id": refund_call_id(1), "order_id": "7"}]
    final = rejected_on_a.snapshot
    assert [m.role for m in final] == ["user", "assistant", "tool", "assistant"] * 2
    assert [final[0].id, final[2].id, final[3].id, final[4].id, final[6].id, final[7].id] == [
        "user-1",
        f"{refund_call_id(1)}-result",
        "msg_answer_1",
        "user-2",
        f"{refund_call_id(2)}-result",
        "msg_answer_2",
    ]
