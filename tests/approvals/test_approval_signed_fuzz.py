"""Fuzzed resume requests never run a tool without a valid signature.

Hypothesis builds histories of tool calls (genuine, tampered, reformatted, invented) in the
right or a wrong thread, and resume entries whose ids are genuine signed ids, plain call ids,
mutated tokens, tokens of other calls or other keys, expired tokens or noise, with every kind of
payload. The oracle knows which ids the server issued for which (thread, call, tool, arguments),
and which of them have expired: a tool runs only for a call whose deciding entry approves with
exactly such an id still valid; an expired one is asked again and runs nothing, without stopping
the rest; a request in which any deciding approval is forged runs nothing. Requests go through
``resume_tool_calls`` and, fewer, through ``OpenAIAgentsAgent`` and the real runner (every
stream checked). Derandomized, no example database.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ResumeEntry,
    RunAgentInput,
    ToolCall,
    UserMessage,
)
from agents import Agent, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from ag_ui_openai_agents import Approvals, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import (
    ApprovalSigner,
    ApprovalSubject,
    canonical_arguments,
)
from support.budget import examples
from support.signed_approvals import SECRET, make_instance, make_request

set_tracing_disabled(True)

NOW = 1_800_000_000.0
THREAD = "thread-1"
OTHER_THREAD = "thread-2"
SIGNER = ApprovalSigner.from_secret(SECRET, 3600, clock=lambda: NOW)
OTHER_KEY = ApprovalSigner.from_secret("other-secret-99999999999999", 3600, clock=lambda: NOW)
OLD = ApprovalSigner.from_secret(SECRET, 3600, clock=lambda: NOW - 7200)

GATED, PLAIN = "issue_refund", "lookup_order"
ARGS = {
    "call_refund_1": '{"order_id": "A-17", "amount": 30}',
    "call_refund_2": '{"order_id": "B-2", "amount": 5}',
    "call_lookup_1": '{"order_id": "C-3"}',
}
NAMES = {"call_refund_1": GATED, "call_refund_2": GATED, "call_lookup_1": PLAIN}

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _issued(signer: ApprovalSigner, thread: str, call_id: str) -> str:
    token = signer.sign(ApprovalSubject(thread, call_id, NAMES[call_id], ARGS[call_id])).token
    return f"{call_id}.{token}"


Subject = tuple[str, str, str, str]
"""(thread, call id, tool, canonical arguments)."""


def _subject(thread: str, call_id: str, name: str, arguments: str) -> Subject:
    return (thread, call_id, name, json.dumps(canonical_arguments(arguments)))


GENUINE: dict[Subject, set[str]] = {
    _subject(THREAD, call_id, NAMES[call_id], ARGS[call_id]): {_issued(SIGNER, THREAD, call_id)}
    for call_id in ARGS
}
"""The interrupt ids the server issued, still valid, by the call they were issued for."""
EXPIRED: dict[Subject, set[str]] = {
    _subject(THREAD, "call_refund_1", GATED, ARGS["call_refund_1"]): {
        _issued(OLD, THREAD, "call_refund_1")
    }
}
"""Ids the server issued for a call too long ago: the call is asked again, never run."""

NOT_VALID = [
    _issued(OTHER_KEY, THREAD, "call_refund_1"),
    *EXPIRED[_subject(THREAD, "call_refund_1", GATED, ARGS["call_refund_1"])],
    _issued(SIGNER, OTHER_THREAD, "call_refund_2"),
]


def _mutations(interrupt_id: str) -> list[str]:
    call_id, _, token = interrupt_id.partition(".")
    mark, key_id, issued, mac = token.split(".")
    flipped = mac[:-1] + ("A" if mac[-1] != "A" else "B")
    return [
        call_id,
        f"{call_id}.{mark}.{key_id}.{issued}.{flipped}",
        f"{call_id}.{mark}.{key_id}.{int(issued) + 1}.{mac}",
        f"{call_id}.{mark}.{key_id}.{issued}",
        f"{call_id}.{mark}.{key_id[::-1]}.{issued}.{mac}",
        f"{call_id}.{mark}.{key_id}.{issued}.{mac}{mac}",
    ]


GENUINE_IDS = sorted(i for ids in GENUINE.values() for i in ids)
CALL_IDS = [*ARGS, "call_forged", "call_refund_1.agui1.x"]
ids = st.one_of(
    st.sampled_from(GENUINE_IDS),
    st.sampled_from(NOT_VALID),
    st.sampled_from([m for i in GENUINE_IDS for m in _mutations(i)]),
    st.builds(
        lambda call, token: f"{call}.{token.partition('.')[2]}",
        st.sampled_from(CALL_IDS),
        st.sampled_from(GENUINE_IDS),
    ),
    st.sampled_from(CALL_IDS),
    st.text(max_size=20),
)
payloads = st.sampled_from(
    [{"approved": True}, {"approved": False}, None, {"approved": "true"}, {"approved": 1}, [True]]
)
entries = st.builds(
    lambda interrupt_id, status, payload: ResumeEntry(
        interrupt_id=interrupt_id, status=status, payload=payload
    ),
    ids,
    st.sampled_from(["resolved", "resolved", "resolved", "cancelled"]),
    payloads,
)
arguments = st.one_of(
    st.none(),  # the call's genuine arguments
    st.just('{"order_id": "ANY-ORDER", "amount": 99999}'),
    st.just('{"amount": 30, "order_id": "A-17"}'),
    st.just('{"order_id": "A-17", "amount": 30, "amount": 99999}'),
    st.just("not json"),
)


@st.composite
def requests(draw: st.DrawFn) -> RunAgentInput:
    """A hostile request, or (one in two) an honest one with a little noise added."""
    honest = draw(st.booleans())
    pool = list(ARGS) if honest else CALL_IDS
    calls = draw(
        st.lists(
            st.tuples(st.sampled_from(pool), st.none() if honest else arguments),
            max_size=3,
            unique_by=lambda c: c[0],
        )
    )
    messages: list[Message] = [UserMessage(id="user-1", content="Refund 30 on A-17")]
    resume: list[ResumeEntry] = []
    for index, (call_id, args) in enumerate(calls):
        name = NAMES.get(call_id) or draw(st.sampled_from([GATED, PLAIN]))
        raw = args if args is not None else ARGS.get(call_id, "{}")
        call = ToolCall(id=call_id, function=FunctionCall(name=name, arguments=raw))
        messages.append(AssistantMessage(id=f"assistant-{index}", tool_calls=[call]))
        if honest:
            # The id the client kept: the one issued, or (for a client slow to answer) an
            # earlier one of the same call that has expired since.
            [genuine] = [i for i in GENUINE_IDS if i.startswith(f"{call_id}.")]
            stale = sorted(EXPIRED.get(_subject(THREAD, call_id, name, raw), set()))
            kept = draw(st.sampled_from([genuine, genuine, *stale]))
            status = draw(st.sampled_from(["resolved", "resolved", "cancelled"]))
            payload = draw(st.one_of(st.just({"approved": True}), payloads))
            resume.append(ResumeEntry(interrupt_id=kept, status=status, payload=payload))
    thread = THREAD if honest else draw(st.sampled_from([THREAD, THREAD, OTHER_THREAD]))
    protocol = draw(st.sampled_from(["1.0", None]))
    resume += draw(st.lists(entries, max_size=1 if honest else 4))
    return make_request(messages, thread_id=thread, resume=resume, protocol_version=protocol)


# --------------------------------------------------------------------------- the oracle


@dataclass(frozen=True)
class Decision:
    call_id: str
    verdict: str
    """``genuine`` (issued for this call and valid), ``expired`` (issued for it, too old) or
    ``forged`` (anything else)."""
    approves: bool


def deciding_entries(run_input: RunAgentInput) -> list[Decision]:
    """For each open call (latest of its id), the last entry naming it, as the server picks."""
    open_calls: dict[str, tuple[str, str]] = {}
    for message in run_input.messages:
        for call in getattr(message, "tool_calls", None) or []:
            open_calls[call.id] = (call.function.name, call.function.arguments)
    decisions = []
    for call_id, (name, args) in open_calls.items():
        named = [
            e
            for e in run_input.resume or []
            if e.interrupt_id == call_id or e.interrupt_id.rpartition(".agui1.")[0] == call_id
        ]
        if not named:
            continue
        entry = named[-1]
        key = _subject(run_input.thread_id, call_id, name, args)
        approves = (
            entry.status == "resolved"
            and isinstance(entry.payload, dict)
            and entry.payload.get("approved") is True
        )
        verdict = "forged"
        if entry.interrupt_id in GENUINE.get(key, set()):
            verdict = "genuine"
        elif entry.interrupt_id in EXPIRED.get(key, set()):
            verdict = "expired"
        decisions.append(Decision(call_id, verdict, approves))
    return decisions


def check_runs(run_input: RunAgentInput, ran: list[str]) -> None:
    decisions = deciding_entries(run_input)
    allowed = {d.call_id for d in decisions if d.approves and d.verdict == "genuine"}
    assert set(ran) <= allowed, f"ran {ran} without a valid signature"
    if any(d.approves and d.verdict == "forged" for d in decisions):
        assert ran == [], "a request with a refused approval ran a tool"


# --------------------------------------------------------------------------- the tests


def fuzz_agent(ran: list[str]) -> Agent[Any]:
    @function_tool(name_override=GATED, needs_approval=True)
    def issue_refund(ctx: ToolContext[Any], order_id: str, amount: float) -> str:
        """Refund."""
        ran.append(ctx.tool_call_id)
        return "refunded"

    @function_tool(name_override=PLAIN)
    def lookup_order(ctx: ToolContext[Any], order_id: str) -> str:
        """Look up an order (no approval needed)."""
        ran.append(ctx.tool_call_id)
        return "found"

    return Agent(name="fuzz", instructions="Refund.", tools=[issue_refund, lookup_order])


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    package = logging.getLogger("ag_ui_openai_agents")
    level = package.level
    package.setLevel(logging.CRITICAL)
    event_loop = asyncio.new_event_loop()
    try:
        yield event_loop
    finally:
        event_loop.close()
        package.setLevel(level)


@settings(FUZZ, max_examples=examples(200))
@given(run_input=requests())
def test_resume_never_runs_without_a_valid_signature(
    loop: asyncio.AbstractEventLoop, run_input: RunAgentInput
) -> None:
    ran: list[str] = []
    agent = fuzz_agent(ran)
    loop.run_until_complete(resume_tool_calls(agent, run_input, approvals=Approvals(signer=SIGNER)))
    check_runs(run_input, ran)


@settings(FUZZ, max_examples=examples(60))
@given(run_input=requests())
def test_wrapper_never_runs_without_a_valid_signature(
    loop: asyncio.AbstractEventLoop, run_input: RunAgentInput
) -> None:
    instance = make_instance(SIGNER, name="fuzz")
    loop.run_until_complete(instance.run(run_input))  # Checks the stream.
    check_runs(run_input, [call_id for call_id, _ in instance.ledger])


def _resumed(loop: asyncio.AbstractEventLoop, run_input: RunAgentInput) -> list[str]:
    ran: list[str] = []
    loop.run_until_complete(
        resume_tool_calls(fuzz_agent(ran), run_input, approvals=Approvals(signer=SIGNER))
    )
    return ran


@pytest.mark.slow
@pytest.mark.parametrize(
    "what",
    ["a tool runs", "a forged approval stops a genuine one", "an expired one beside a genuine one"],
)
def test_the_requests_drawn_reach_every_outcome(loop: asyncio.AbstractEventLoop, what: str) -> None:
    """Guard against a fuzz that never lets anything run, or never mixes what it draws (then
    it would prove nothing): the same strategy, searched, reaches each outcome the oracle
    tells apart."""

    def genuine_approvals(run_input: RunAgentInput) -> set[str]:
        decisions = deciding_entries(run_input)
        return {d.call_id for d in decisions if d.approves and d.verdict == "genuine"}

    def reached(run_input: RunAgentInput) -> bool:
        decisions = deciding_entries(run_input)
        verdicts = {d.verdict for d in decisions if d.approves}
        if what == "a tool runs":
            return bool(_resumed(loop, run_input))
        if what == "a forged approval stops a genuine one":
            wanted = {"forged", "genuine"} <= verdicts
            return wanted and not _resumed(loop, run_input)
        wanted = {"expired", "genuine"} <= verdicts and "forged" not in verdicts
        ran = _resumed(loop, run_input) if wanted else []
        return bool(ran) and set(ran) <= genuine_approvals(run_input)

    found = find(requests(), reached, settings=settings(FUZZ, max_examples=2000))
    check_runs(found, _resumed(loop, found))
