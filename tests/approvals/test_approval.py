"""Backend tool approval: interrupts from a paused run, and the stateless resume."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ResumeEntry,
    RunAgentInput,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    ShellTool,
    function_tool,
    handoff,
    set_tracing_disabled,
    tool_namespace,
)
from agents.items import ToolApprovalItem, ToolCallItem
from agents.run_config import ToolErrorFormatterArgs
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE, default_tool_error_function
from agents.tool_context import ToolContext

from ag_ui_openai_agents.approvals.interrupts import (
    APPROVAL_RESPONSE_SCHEMA,
    TOOL_APPROVAL_REASON,
    UnresumableApprovalError,
    approval_interrupt,
    interrupts_from_result,
)
from ag_ui_openai_agents.approvals.resume import (
    ABANDONED_RESULT,
    AMBIGUOUS_RESULT,
    CANCELLED_RESULT,
    ResumedToolCalls,
    resume_tool_calls,
)
from support.mcp import FakeMCPServer
from support.scripted import (
    Call,
    Hosted,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    collect,
    run_streamed,
)

set_tracing_disabled(True)


# --------------------------------------------------------------------------- helpers


@dataclass
class Ledger:
    """What the tools of a test actually ran: (tool, call id, argument, owning agent name)."""

    runs: list[tuple[str, str, str, str | None]] = field(default_factory=list)


def refund_tool(ledger: Ledger, *, name: str = "issue_refund", needs_approval: Any = True) -> Any:
    """A function tool recording every run, with the call id from its ToolContext."""

    @function_tool(name_override=name, needs_approval=needs_approval)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        owner = ctx.agent.name if ctx.agent is not None else None
        ledger.runs.append((name, ctx.tool_call_id, order_id, owner))
        return f"Refund issued for {order_id}"

    return issue_refund


"""The refund tool's argument schema, which types the ``editedArgs`` its interrupts offer."""


def lookup_tool(ledger: Ledger) -> Any:
    """A tool that needs no approval."""

    @function_tool
    def lookup(ctx: ToolContext[Any], order_id: str) -> str:
        """Look an order up."""
        ledger.runs.append(("lookup", ctx.tool_call_id, order_id, None))
        return f"Order {order_id}"

    return lookup


def call(call_id: str, name: str, arguments: dict[str, Any] | str) -> ToolCall:
    """An AG-UI tool call as a client keeps it in its history."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=args))


def assistant(message_id: str, *calls: ToolCall, content: str | None = None) -> AssistantMessage:
    return AssistantMessage(id=message_id, content=content, tool_calls=list(calls) or None)


def answered(call_id: str, content: str) -> ToolMessage:
    return ToolMessage(id=f"{call_id}-result", tool_call_id=call_id, content=content)


def user(message_id: str, text: str) -> UserMessage:
    return UserMessage(id=message_id, content=text)


def approve(call_id: str) -> ResumeEntry:
    return ResumeEntry(interrupt_id=call_id, status="resolved", payload={"approved": True})


def request(
    messages: Sequence[Message],
    *,
    resume: Sequence[ResumeEntry] = (),
    client_tools: Sequence[str] = (),
) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-2",
        messages=list(messages),
        tools=[
            Tool(name=name, description="client tool", parameters={"type": "object"})
            for name in client_tools
        ],
        context=[],
        state={},
        resume=list(resume) or None,
    )


def paused_history(*calls: ToolCall) -> list[Message]:
    """A conversation whose last assistant turn made ``calls`` and got no result yet."""
    return [user("u1", "Please refund order 1."), assistant("a1", *calls)]


def answers(resumed: ResumedToolCalls) -> dict[str, str]:
    """Tool results ``resume_tool_calls`` added, by call id, checked against its events."""
    added = {
        m.tool_call_id: m
        for m in resumed.run_input.messages
        if isinstance(m, ToolMessage) and m.id == f"{m.tool_call_id}-result"
    }
    by_event = {e.tool_call_id: e for e in resumed.events}
    for call_id, event in by_event.items():
        assert event.message_id == f"{call_id}-result"
        assert added[call_id].content == event.content
    return {call_id: str(event.content) for call_id, event in by_event.items()}


def silent_model() -> ScriptedResponsesModel:
    """A model that must never be called during a resume."""
    return ScriptedResponsesModel([])


# --------------------------------------------------------------------------- interrupts


def test_approval_interrupt_fields() -> None:
    interrupt = approval_interrupt("call_9", "issue_refund", '{"order_id": "9"}')
    assert interrupt.id == interrupt.tool_call_id == "call_9"
    assert interrupt.reason == TOOL_APPROVAL_REASON == "tool_approval"
    assert interrupt.metadata == {"tool_name": "issue_refund", "tool_input": {"order_id": "9"}}
    assert interrupt.response_schema == APPROVAL_RESPONSE_SCHEMA
    assert APPROVAL_RESPONSE_SCHEMA["properties"]["approved"] == {"type": "boolean"}


def test_approval_interrupt_keeps_arguments_that_are_not_json() -> None:
    interrupt = approval_interrupt("call_9", "issue_refund", "order 9, quickly")
    assert interrupt.metadata is not None
    assert interrupt.metadata["tool_input"] == "order 9, quickly"


async def test_real_pause_maps_to_interrupts() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger), lookup_tool(ledger)])
    model = ScriptedResponsesModel(
        [
            Turn(
                [
                    Call("lookup", {"order_id": "1"}, call_id="call_look"),
                    Call("issue_refund", {"order_id": "1"}, call_id="call_refund"),
                ]
            )
        ]
    )
    result, _ = run_streamed(agent, "Refund order 1", model=model)
    await collect(result.stream_events())

    assert model.call_count == 1
    assert [type(i) for i in result.interruptions] == [ToolApprovalItem]
    assert [r[0] for r in ledger.runs] == ["lookup"]  # the gated tool did not run
    known = {str(i.raw_item.call_id) for i in result.new_items if isinstance(i, ToolCallItem)}
    interrupts = interrupts_from_result(result.interruptions, known)
    assert interrupts == [approval_interrupt("call_refund", "issue_refund", '{"order_id": "1"}')]


async def test_real_pause_inside_agent_tool_is_unresumable() -> None:
    ledger = Ledger()
    inner = Agent(name="refunds", tools=[refund_tool(ledger)])
    outer = Agent(
        name="support", tools=[inner.as_tool(tool_name="refunds", tool_description="Refunds.")]
    )
    model = ScriptedResponsesModel(
        [
            Turn([Call("refunds", {"input": "refund order 1"}, call_id="call_outer")]),
            Turn([Call("issue_refund", {"order_id": "1"}, call_id="call_inner")]),
        ]
    )
    result, _ = run_streamed(outer, "Refund order 1", model=model)
    await collect(result.stream_events())

    assert model.call_count == 2
    assert [i.call_id for i in result.interruptions] == ["call_inner"]
    assert ledger.runs == []
    known = {str(i.raw_item.call_id) for i in result.new_items if isinstance(i, ToolCallItem)}
    with pytest.raises(UnresumableApprovalError, match="issue_refund"):
        interrupts_from_result(result.interruptions, known | {"call_outer"})


async def test_real_pause_of_builtin_tool_is_unresumable() -> None:
    commands: list[Any] = []

    def executor(request: Any) -> str:
        commands.append(request)
        return "ok"

    agent = Agent(name="ops", tools=[ShellTool(executor=executor, needs_approval=True)])
    model = ScriptedResponsesModel([Turn([Hosted("shell_call", call_id="call_shell")])])
    result, _ = run_streamed(agent, "Run true", model=model)
    await collect(result.stream_events())

    assert len(result.interruptions) == 1
    assert commands == []
    with pytest.raises(UnresumableApprovalError, match="built-in"):
        interrupts_from_result(result.interruptions, {"call_shell"})


# --------------------------------------------------------------------------- resume: answers


async def test_approved_call_runs_the_tool_and_answers_it() -> None:
    ledger = Ledger()
    model = silent_model()
    agent = Agent(name="support", model=model, tools=[refund_tool(ledger)])
    history = [*paused_history(call("call_1", "issue_refund", {"order_id": "1"}))]

    resumed = await resume_tool_calls(agent, request(history, resume=[approve("call_1")]))

    assert ledger.runs == [("issue_refund", "call_1", "1", "support")]
    assert answers(resumed) == {"call_1": "Refund issued for 1"}
    assert resumed.run_input.messages[:2] == history
    added = resumed.run_input.messages[2]
    assert isinstance(added, ToolMessage) and added.id == "call_1-result"
    assert resumed.open_interrupts == []
    assert resumed.usage is None
    assert model.call_count == 0


@pytest.mark.parametrize("payload", [{"approved": False}, {"ok": True}, None, True])
async def test_any_other_answer_gives_the_rejection_text(payload: Any) -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    entry = ResumeEntry(interrupt_id="call_1", status="resolved", payload=payload)
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(agent, request(history, resume=[entry]))

    assert ledger.runs == []
    assert answers(resumed) == {"call_1": DEFAULT_APPROVAL_REJECTION_MESSAGE}
    assert resumed.open_interrupts == []


async def test_rejection_text_comes_from_the_run_config_formatter() -> None:
    seen: list[tuple[str, str, str]] = []

    def formatter(args: ToolErrorFormatterArgs[Any]) -> str:
        seen.append((args.kind, args.tool_name, args.call_id))
        return f"{args.tool_name} was declined by the reviewer"

    agent = Agent(name="support", tools=[refund_tool(Ledger())])
    entry = ResumeEntry(interrupt_id="call_1", status="resolved", payload={"approved": False})
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(
        agent,
        request(history, resume=[entry]),
        run_config=RunConfig(tool_error_formatter=formatter),
    )

    assert seen == [("approval_rejected", "issue_refund", "call_1")]
    assert answers(resumed) == {"call_1": "issue_refund was declined by the reviewer"}


async def test_cancelled_interrupt_answers_cancelled() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    entry = ResumeEntry(interrupt_id="call_1", status="cancelled")
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(agent, request(history, resume=[entry]))

    assert ledger.runs == []
    assert answers(resumed) == {"call_1": CANCELLED_RESULT}


async def test_context_reaches_the_tool() -> None:
    seen: list[Any] = []

    @function_tool(needs_approval=True)
    def issue_refund(ctx: RunContextWrapper[dict[str, str]], order_id: str) -> str:
        """Refund an order."""
        seen.append(ctx.context)
        return "done"

    agent = Agent(name="support", tools=[issue_refund])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))
    app_context = {"tenant": "acme"}

    await resume_tool_calls(
        agent, request(history, resume=[approve("call_1")]), context=app_context
    )

    assert seen == [app_context]


# --------------------------------------------------------------------------- resume: undecided


async def test_new_user_message_instead_of_an_answer_keeps_the_call_open() -> None:
    ledger = Ledger()
    model = silent_model()
    agent = Agent(name="support", model=model, tools=[refund_tool(ledger)])
    history = [
        *paused_history(call("call_1", "issue_refund", {"order_id": "1"})),
        user("u2", "Actually, what is the status of order 2?"),
    ]

    resumed = await resume_tool_calls(agent, request(history))

    assert ledger.runs == []
    assert resumed.events == []
    assert resumed.open_interrupts == [
        approval_interrupt("call_1", "issue_refund", '{"order_id": "1"}')
    ]
    assert resumed.run_input.messages == history  # the new message waits for the decision
    assert model.call_count == 0


async def test_partial_resume_applies_the_entries_it_has() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    history = paused_history(
        call("call_1", "issue_refund", {"order_id": "1"}),
        call("call_2", "issue_refund", {"order_id": "2"}),
    )

    resumed = await resume_tool_calls(agent, request(history, resume=[approve("call_2")]))

    assert [r[1] for r in ledger.runs] == ["call_2"]
    assert answers(resumed) == {"call_2": "Refund issued for 2"}
    assert [i.id for i in resumed.open_interrupts] == ["call_1"]


async def test_unfinished_call_that_needed_no_approval_is_abandoned() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[lookup_tool(ledger)])
    history = paused_history(
        call("call_look", "lookup", {"order_id": "1"}),
        call("call_ui", "show_dialog", {"text": "hi"}),
    )

    resumed = await resume_tool_calls(agent, request(history, client_tools=["show_dialog"]))

    assert ledger.runs == []
    assert answers(resumed) == {"call_look": ABANDONED_RESULT}
    assert resumed.open_interrupts == []


async def test_callable_policy_keeps_the_call_open_until_decided() -> None:
    ledger = Ledger()
    policy_calls: list[tuple[str, dict[str, Any], Any]] = []

    async def only_large(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
        policy_calls.append((call_id, params, ctx.context))
        return True

    agent = Agent(name="support", tools=[refund_tool(ledger, needs_approval=only_large)])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    undecided = await resume_tool_calls(agent, request(history))
    assert policy_calls == []  # undecided: the call stays open, the policy is not asked
    decided = await resume_tool_calls(
        agent, request(history, resume=[approve("call_1")]), context={"user": "u"}
    )

    assert [i.id for i in undecided.open_interrupts] == ["call_1"]
    assert undecided.events == []
    assert answers(decided) == {"call_1": "Refund issued for 1"}
    # An unsigned approval proves no pause: the policy is asked again, with this request's context.
    assert policy_calls == [("call_1", {"order_id": "1"}, {"user": "u"})]


async def test_approval_the_policy_would_not_have_asked_for_is_abandoned() -> None:
    ledger = Ledger()

    def only_large(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
        return int(params["order_id"]) > 100

    agent = Agent(name="support", tools=[refund_tool(ledger, needs_approval=only_large)])
    history = paused_history(
        call("call_small", "issue_refund", {"order_id": "5"}),
        call("call_large", "issue_refund", {"order_id": "500"}),
        call("call_odd", "issue_refund", "not json"),
    )
    entries = [approve("call_small"), approve("call_large"), approve("call_odd")]

    resumed = await resume_tool_calls(agent, request(history, resume=entries))

    assert answers(resumed)["call_small"] == ABANDONED_RESULT
    assert [run[1] for run in ledger.runs] == ["call_large"]
    assert "call_odd" in answers(resumed)  # arguments a policy cannot read need approval
    assert resumed.open_interrupts == []


async def test_approval_of_a_tool_that_needs_none_is_abandoned() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[lookup_tool(ledger), refund_tool(ledger)])
    history = paused_history(
        call("call_look", "lookup", {"order_id": "1"}),
        call("call_refund", "issue_refund", {"order_id": "2"}),
    )
    entries = [approve("call_look"), approve("call_refund")]

    resumed = await resume_tool_calls(agent, request(history, resume=entries))

    assert answers(resumed) == {
        "call_look": ABANDONED_RESULT,
        "call_refund": "Refund issued for 2",
    }
    assert [run[1] for run in ledger.runs] == ["call_refund"]


# --------------------------------------------------------------------------- resume: other calls


async def test_client_and_hosted_calls_are_left_alone() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    history = paused_history(
        call("call_ui", "show_dialog", {"text": "hi"}),
        call("ws_1", "web_search_call", {"query": "refund policy"}),
        call("call_1", "issue_refund", {"order_id": "1"}),
    )
    entries = [approve("call_1"), approve("call_ui"), approve("ws_1")]

    resumed = await resume_tool_calls(
        agent, request(history, resume=entries, client_tools=["show_dialog"])
    )

    assert answers(resumed) == {"call_1": "Refund issued for 1"}
    assert resumed.open_interrupts == []


async def test_server_tool_wins_over_a_client_tool_of_the_same_name() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(
        agent, request(history, resume=[approve("call_1")], client_tools=["issue_refund"])
    )

    assert answers(resumed) == {"call_1": "Refund issued for 1"}


async def test_nothing_open_leaves_the_request_untouched() -> None:
    server = FakeMCPServer("billing", ["issue_refund"], require_approval="always")
    agent = Agent(name="support", mcp_servers=[server])
    history = [
        *paused_history(call("call_1", "issue_refund", {"order_id": "1"})),
        answered("call_1", "done"),
    ]
    run_input = request(history, resume=[approve("call_1")])

    resumed = await resume_tool_calls(agent, run_input)

    assert resumed.run_input is run_input
    assert (resumed.events, resumed.open_interrupts, resumed.usage) == ([], [], None)
    assert server.listed == 0 and server.calls == []


# --------------------------------------------------------------------------- history positions


async def test_results_are_inserted_after_the_block_of_their_call() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger), lookup_tool(ledger)])
    history = [
        user("u1", "Refund orders 1 and 2."),
        assistant(
            "a1",
            call("call_look", "lookup", {"order_id": "1"}),
            call("call_1", "issue_refund", {"order_id": "1"}),
            call("call_2", "issue_refund", {"order_id": "2"}),
        ),
        answered("call_look", "Order 1"),
        user("u2", "Go ahead."),
    ]
    entries = [approve("call_2"), approve("call_1")]

    resumed = await resume_tool_calls(agent, request(history, resume=entries))

    assert [m.id for m in resumed.run_input.messages] == [
        "u1",
        "a1",
        "call_look-result",
        "call_1-result",
        "call_2-result",
        "u2",
    ]
    assert [r[1] for r in ledger.runs] == ["call_1", "call_2"]


async def test_reused_call_id_is_matched_by_position() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger), lookup_tool(ledger)])
    history = [
        user("u1", "Refund order 1."),
        assistant("a1", call("call_x", "issue_refund", {"order_id": "1"})),
        assistant("a2", call("call_x", "lookup", {"order_id": "7"})),
        answered("call_x", "Order 7"),  # answers the nearest earlier call: the lookup
    ]

    resumed = await resume_tool_calls(agent, request(history))

    assert resumed.open_interrupts == [
        approval_interrupt("call_x", "issue_refund", '{"order_id": "1"}')
    ]

    approved = await resume_tool_calls(agent, request(history, resume=[approve("call_x")]))

    assert [m.id for m in approved.run_input.messages] == [
        "u1",
        "a1",
        "call_x-result-2",
        "a2",
        "call_x-result",
    ]
    # The history already holds "call_x-result": the new answer takes a fresh id.
    assert ledger.runs == [("issue_refund", "call_x", "1", "support")]


async def test_resume_entry_answers_the_latest_open_call_of_its_id() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    history = [
        user("u1", "Refund orders 1 and 2."),
        assistant("a1", call("call_x", "issue_refund", {"order_id": "1"})),
        user("u2", "And order 2."),
        assistant("a2", call("call_x", "issue_refund", {"order_id": "2"})),
    ]

    resumed = await resume_tool_calls(agent, request(history, resume=[approve("call_x")]))

    assert ledger.runs == [("issue_refund", "call_x", "2", "support")]
    assert resumed.open_interrupts == [
        approval_interrupt("call_x", "issue_refund", '{"order_id": "1"}')
    ]


# --------------------------------------------------------------------------- handoffs and names


async def test_tools_of_handoff_targets_are_found() -> None:
    ledger = Ledger()
    billing = Agent(name="billing", tools=[refund_tool(ledger)])
    shipping = Agent(name="shipping", tools=[lookup_tool(ledger)])
    triage = Agent(name="triage", handoffs=[handoff(billing), shipping])
    billing.handoffs = [triage]  # a cycle back to the start
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(triage, request(history, resume=[approve("call_1")]))

    assert ledger.runs == [("issue_refund", "call_1", "1", "billing")]
    assert answers(resumed) == {"call_1": "Refund issued for 1"}


async def test_open_handoff_call_is_abandoned() -> None:
    billing = Agent(name="billing")
    triage = Agent(name="triage", handoffs=[handoff(billing)])
    history = paused_history(call("call_h", "transfer_to_billing", {}))

    resumed = await resume_tool_calls(triage, request(history))

    assert answers(resumed) == {"call_h": ABANDONED_RESULT}


async def test_same_name_stays_open_if_any_agent_may_need_approval() -> None:
    ledger = Ledger()
    billing = Agent(name="billing", tools=[refund_tool(ledger)])
    triage = Agent(
        name="triage",
        tools=[refund_tool(ledger, needs_approval=False)],
        handoffs=[billing],
    )
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(triage, request(history))

    assert [i.id for i in resumed.open_interrupts] == ["call_1"]
    assert resumed.events == []


async def test_different_tools_of_the_same_name_are_ambiguous() -> None:
    ledger = Ledger()
    billing = Agent(name="billing", tools=[refund_tool(ledger)])
    triage = Agent(name="triage", tools=[refund_tool(ledger)], handoffs=[handoff(billing)])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(triage, request(history, resume=[approve("call_1")]))

    assert ledger.runs == []
    assert answers(resumed) == {"call_1": AMBIGUOUS_RESULT}


async def test_one_tool_shared_by_two_agents_is_not_ambiguous() -> None:
    ledger = Ledger()
    shared = refund_tool(ledger)
    billing = Agent(name="billing", tools=[shared])
    triage = Agent(name="triage", tools=[shared], handoffs=[billing])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(triage, request(history, resume=[approve("call_1")]))

    assert [r[1] for r in ledger.runs] == ["call_1"]
    assert answers(resumed) == {"call_1": "Refund issued for 1"}


async def test_same_name_in_two_namespaces_is_ambiguous() -> None:
    ledger = Ledger()
    agent = Agent(
        name="support",
        tools=[
            *tool_namespace(name="billing", description="Billing.", tools=[refund_tool(ledger)]),
            *tool_namespace(name="store", description="Store credit.", tools=[refund_tool(ledger)]),
        ],
    )
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    undecided = await resume_tool_calls(agent, request(history))
    approved = await resume_tool_calls(agent, request(history, resume=[approve("call_1")]))

    assert [i.id for i in undecided.open_interrupts] == ["call_1"]
    assert answers(approved) == {"call_1": AMBIGUOUS_RESULT}
    assert ledger.runs == []


async def test_namespaced_tool_runs_with_its_namespace() -> None:
    seen: list[tuple[str | None, str]] = []

    @function_tool(needs_approval=True)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        seen.append((ctx.tool_namespace, ctx.tool_call_id))
        return "done"

    tools = tool_namespace(name="billing", description="Billing.", tools=[issue_refund])
    agent = Agent(name="support", tools=list(tools))
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(agent, request(history, resume=[approve("call_1")]))

    assert seen == [("billing", "call_1")]
    assert answers(resumed) == {"call_1": "done"}


async def test_mcp_server_shared_by_two_agents_counts_once() -> None:
    server = FakeMCPServer("billing", ["issue_refund"], require_approval="always")
    billing = Agent(name="billing", mcp_servers=[server])
    triage = Agent(name="triage", mcp_servers=[server], handoffs=[billing])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    undecided = await resume_tool_calls(triage, request(history))
    approved = await resume_tool_calls(triage, request(history, resume=[approve("call_1")]))

    assert [i.id for i in undecided.open_interrupts] == ["call_1"]
    assert server.calls == [("issue_refund", {"order_id": "1"})]
    assert "billing did it" in answers(approved)["call_1"]


async def test_two_mcp_servers_with_the_same_tool_name_are_ambiguous() -> None:
    first = FakeMCPServer("billing", ["issue_refund"], require_approval="always")
    second = FakeMCPServer("store", ["issue_refund"], require_approval="always")
    billing = Agent(name="billing", mcp_servers=[second])
    triage = Agent(name="triage", mcp_servers=[first], handoffs=[billing])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(triage, request(history, resume=[approve("call_1")]))

    assert answers(resumed) == {"call_1": AMBIGUOUS_RESULT}
    assert first.calls == second.calls == []


# --------------------------------------------------------------------------- failures


async def test_tool_error_with_default_handler_becomes_the_result() -> None:
    @function_tool(needs_approval=True)
    def issue_refund(order_id: str) -> str:
        """Refund an order."""
        raise RuntimeError("payment gateway down")

    agent = Agent(name="support", tools=[issue_refund])
    history = paused_history(call("call_1", "issue_refund", {"order_id": "1"}))

    resumed = await resume_tool_calls(agent, request(history, resume=[approve("call_1")]))

    expected = default_tool_error_function(RunContextWrapper(None), RuntimeError("x"))
    assert answers(resumed) == {"call_1": expected}


async def test_tool_error_without_handler_fails_the_request() -> None:
    ledger = Ledger()

    @function_tool(needs_approval=True, failure_error_function=None)
    def charge(order_id: str) -> str:
        """Charge an order."""
        raise RuntimeError("payment gateway down")

    agent = Agent(name="support", tools=[refund_tool(ledger), charge])
    history = paused_history(
        call("call_1", "issue_refund", {"order_id": "1"}),
        call("call_2", "charge", {"order_id": "2"}),
    )
    entries = [approve("call_1"), approve("call_2")]

    with pytest.raises(RuntimeError, match="payment gateway down"):
        await resume_tool_calls(agent, request(history, resume=entries))
    assert [r[1] for r in ledger.runs] == ["call_1"]  # ran before the failure, not reported


# --------------------------------------------------------------------------- agents as tools


def agent_tool_setup(
    sub_turns: list[Turn], ledger: Ledger
) -> tuple[Agent[Any], FunctionTool, ScriptedResponsesModel, ScriptedResponsesModel]:
    sub_model = ScriptedResponsesModel(sub_turns)
    specialist = Agent(name="refunds", tools=[refund_tool(ledger)])
    agent_tool = specialist.as_tool(
        tool_name="refund_specialist", tool_description="Handles refunds.", needs_approval=True
    )
    outer_model = silent_model()
    outer = Agent(name="support", model=outer_model, tools=[agent_tool])
    return outer, agent_tool, outer_model, sub_model


async def test_approved_agent_tool_runs_its_agent_and_reports_usage() -> None:
    ledger = Ledger()
    outer, _, outer_model, sub_model = agent_tool_setup([Turn([Text("Refund done.")])], ledger)
    history = paused_history(call("call_1", "refund_specialist", {"input": "refund order 1"}))
    config = RunConfig(model_provider=ScriptedProvider(sub_model), tracing_disabled=True)

    resumed = await resume_tool_calls(
        outer, request(history, resume=[approve("call_1")]), run_config=config
    )

    assert answers(resumed) == {"call_1": "Refund done."}
    assert sub_model.call_count == 1 and outer_model.call_count == 0
    reported = sub_model.responses[0].usage
    assert reported is not None and resumed.usage is not None
    assert resumed.usage.requests == 1
    assert resumed.usage.input_tokens == reported.input_tokens
    assert resumed.usage.output_tokens == reported.output_tokens
    assert resumed.usage.total_tokens == reported.total_tokens


async def test_approved_agent_tool_whose_agent_pauses_is_unresumable() -> None:
    ledger = Ledger()
    inner_call = Turn([Call("issue_refund", {"order_id": "1"}, call_id="call_inner")])
    outer, _, outer_model, sub_model = agent_tool_setup([inner_call], ledger)
    history = paused_history(call("call_1", "refund_specialist", {"input": "refund order 1"}))
    config = RunConfig(model_provider=ScriptedProvider(sub_model), tracing_disabled=True)

    with pytest.raises(UnresumableApprovalError, match="refund_specialist"):
        await resume_tool_calls(
            outer, request(history, resume=[approve("call_1")]), run_config=config
        )
    assert ledger.runs == []
    assert sub_model.call_count == 1 and outer_model.call_count == 0


# --------------------------------------------------------------------------- end to end


async def test_pause_then_resume_with_the_real_runner() -> None:
    ledger = Ledger()
    agent = Agent(name="support", tools=[refund_tool(ledger)])
    model = ScriptedResponsesModel(
        [Turn([Call("issue_refund", {"order_id": "5"}, call_id="call_5")])]
    )
    result, _ = run_streamed(agent, "Refund order 5", model=model)
    await collect(result.stream_events())
    interrupts = interrupts_from_result(result.interruptions, {"call_5"})

    # The client keeps the paused call in its history and answers the interrupt.
    paused = result.interruptions[0]
    history = paused_history(call(str(paused.call_id), str(paused.name), paused.arguments or ""))
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
        for i in interrupts
    ]
    resumed = await resume_tool_calls(agent, request(history, resume=entries))

    assert ledger.runs == [("issue_refund", "call_5", "5", "support")]
    assert answers(resumed) == {"call_5": "Refund issued for 5"}
    assert model.call_count == 1
