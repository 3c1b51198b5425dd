"""Approvals a person can edit, end to end on the real runner: ``editedArgs`` and ``reason``.

Each flow runs through ``OpenAIAgentsAgent`` and through the translator recipe
(``resume_tool_calls`` → ``Runner.run_streamed`` → ``to_agui``), with and without signed
approvals, for a 1.0 client and for one that sends no ``protocolVersion``. Every stream is
checked by the invariant checker (:mod:`support.signed_approvals` does it), and every request
the scripted model receives by the Responses input checker (:mod:`support.scripted` does it).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from ag_ui.core import (
    AgentCapabilities,
    AssistantMessage,
    FunctionCall,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCall,
    UserMessage,
)
from agents import Agent, function_tool

from ag_ui_openai_agents import Approvals
from ag_ui_openai_agents.approvals.decisions import INVALID_APPROVAL_CODE
from ag_ui_openai_agents.approvals.verify import APPROVAL_REFUSED_CODE
from support.http import app_with, asgi_client, wrapper_for
from support.invariants import check_stream
from support.mcp import FakeMCPServer
from support.scripted import Call, ScriptedResponsesModel, Text, Turn
from support.signed_approvals import (
    SECRET,
    TOOL,
    Instance,
    Run,
    make_instance,
    make_request,
)

CALL = "call_refund_1"
EDITS = {"order_id": "A-18", "amount": 45.5}
REASON = "Refund 20 at most without a receipt."


@pytest.fixture(params=["wrapper", "translator"])
def via(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["signed", "unsigned"])
def signed(request: pytest.FixtureRequest) -> bool:
    return request.param == "signed"


@pytest.fixture(params=["1.0", None], ids=["v1.0", "pre-1.0"])
def protocol(request: pytest.FixtureRequest) -> str | None:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def server(via: str, signed: bool) -> Instance:
    return make_instance(SECRET if signed else None, via=via, editable=(TOOL,))


async def pause(server: Instance, protocol: str | None) -> Run:
    """The first request: the model proposes a refund of 30 on A-17 and the run pauses."""
    first = make_request(
        [UserMessage(id="user-1", content="Refund 30 on A-17")], protocol_version=protocol
    )
    paused = await server.run(first)
    assert [i.tool_call_id for i in paused.interrupts] == [CALL]
    assert server.ledger == []
    return paused


def answer(interrupt_id: str, payload: Any) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload=payload)


def model_inputs(server: Instance) -> list[list[dict[str, Any]]]:
    assert server.model is not None
    return [call.input for call in server.model.calls]


def function_call(items: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    [item] = [i for i in items if i.get("type") == "function_call" and i["call_id"] == call_id]
    return item


def output_of(items: list[dict[str, Any]], call_id: str) -> Any:
    [item] = [
        i for i in items if i.get("type") == "function_call_output" and i["call_id"] == call_id
    ]
    return item["output"]


def snapshot_call(run: Run, call_id: str) -> ToolCall:
    calls = [
        call
        for message in run.snapshot
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
        if call.id == call_id
    ]
    [call] = calls
    return call


# --------------------------------------------------------------------------- the offer


async def test_the_interrupt_offers_edits_typed_by_the_tool(
    server: Instance, protocol: str | None
) -> None:
    paused = await pause(server, protocol)

    [interrupt] = paused.interrupts
    schema = interrupt.response_schema
    assert schema is not None
    assert schema["required"] == ["approved"]
    assert schema["properties"]["approved"] == {"type": "boolean"}
    assert schema["properties"]["reason"]["type"] == "string"
    edits = schema["properties"]["editedArgs"]
    assert edits["properties"]["order_id"]["type"] == "string"
    assert edits["properties"]["amount"]["type"] == "number"
    assert sorted(edits["required"]) == ["amount", "order_id"]
    jsonschema.Draft202012Validator.check_schema(schema)
    accepts = jsonschema.Draft202012Validator(schema).is_valid
    assert accepts({"approved": True})
    assert accepts({"approved": True, "editedArgs": EDITS})
    assert accepts({"approved": False, "reason": REASON})
    assert not accepts({"approved": "yes"})
    assert not accepts({"approved": True, "editedArgs": {"order_id": "A-18"}})


# --------------------------------------------------------------------------- applied exactly


async def test_an_edit_runs_with_the_edited_arguments_and_the_model_sees_them(
    server: Instance, protocol: str | None
) -> None:
    paused = await pause(server, protocol)
    [interrupt] = paused.interrupts

    resumed = await server.run(
        paused.next("run-2", resume=[answer(interrupt.id, {"approved": True, "editedArgs": EDITS})])
    )

    assert server.ledger == [(CALL, EDITS)]
    assert resumed.results == {CALL: "Refunded 45.5 on A-18 by A"}
    assert isinstance(resumed.last, RunFinishedEvent)
    assert resumed.text == "Result: Refunded 45.5 on A-18 by A"
    # The model's next input holds the arguments that ran, under the original call id.
    after = model_inputs(server)[-1]
    assert json.loads(function_call(after, CALL)["arguments"]) == EDITS
    assert output_of(after, CALL) == "Refunded 45.5 on A-18 by A"
    # So does the snapshot the client keeps; the next turn sends it back unchanged.
    assert json.loads(snapshot_call(resumed, CALL).function.arguments) == EDITS
    later = await server.run(
        resumed.next("run-3", add=[UserMessage(id="user-2", content="Thanks")])
    )
    assert isinstance(later.last, RunFinishedEvent)
    assert json.loads(function_call(model_inputs(server)[-1], CALL)["arguments"]) == EDITS
    assert server.ledger == [(CALL, EDITS)]


async def test_edits_equal_to_the_proposal_keep_the_history_as_it_was(
    server: Instance, protocol: str | None
) -> None:
    paused = await pause(server, protocol)
    [interrupt] = paused.interrupts
    proposed = snapshot_call(paused, CALL).function.arguments
    same = {"amount": 30, "order_id": "A-17"}

    resumed = await server.run(
        paused.next("run-2", resume=[answer(interrupt.id, {"approved": True, "editedArgs": same})])
    )

    assert server.ledger == [(CALL, same)]
    assert snapshot_call(resumed, CALL).function.arguments == proposed


BAD_ANSWERS = {
    "approved not a boolean": ({"approved": "yes"}, "'approved' must be true or false"),
    "approved a number": ({"approved": 1, "editedArgs": EDITS}, "'approved' must be true"),
    "edits without approved": ({"editedArgs": EDITS}, "'approved' must be true or false"),
    "edits not an object": ({"approved": True, "editedArgs": "A-18"}, "'editedArgs' must be"),
    "edits a list": ({"approved": True, "editedArgs": [EDITS]}, "'editedArgs' must be"),
    "a required argument missing": (
        {"approved": True, "editedArgs": {"order_id": "A-18"}},
        "(rule 'required')",
    ),
    "an argument of the wrong type": (
        {"approved": True, "editedArgs": {"order_id": "A-18", "amount": "lots"}},
        "editedArgs['amount'] does not match the tool's argument schema (rule 'type')",
    ),
    "an argument the tool does not take": (
        {"approved": True, "editedArgs": {**EDITS, "card": "4242"}},
        "(rule 'additionalProperties')",
    ),
    "a reason that is not text": ({"approved": False, "reason": 7}, "'reason' must be a string"),
}


@pytest.mark.parametrize("case", list(BAD_ANSWERS))
async def test_a_bad_answer_runs_nothing_and_the_interrupt_stays_open(
    server: Instance, protocol: str | None, case: str
) -> None:
    payload, problem = BAD_ANSWERS[case]
    paused = await pause(server, protocol)
    [interrupt] = paused.interrupts
    calls_before = len(model_inputs(server))

    refused = await server.run(paused.next("run-2", resume=[answer(interrupt.id, payload)]))

    assert server.ledger == []  # never the original arguments in place of a bad edit
    assert len(model_inputs(server)) == calls_before
    error = refused.run_error
    assert error.code == INVALID_APPROVAL_CODE == "INVALID_APPROVAL"
    assert problem in error.message and CALL in error.message
    assert [e.type.value for e in refused.events] == ["RUN_STARTED", "RUN_ERROR"]
    # The call is still open: the same interrupt, answered again, is honoured.
    retry = await server.run(
        paused.next("run-3", resume=[answer(interrupt.id, {"approved": True, "editedArgs": EDITS})])
    )
    assert server.ledger == [(CALL, EDITS)]
    assert isinstance(retry.last, RunFinishedEvent)


async def test_the_error_does_not_echo_a_huge_answer(server: Instance) -> None:
    paused = await pause(server, "1.0")
    [interrupt] = paused.interrupts
    huge = "9" * 100_000
    payload = {"approved": True, "editedArgs": {"order_id": "A-18", "amount": huge, huge: 1}}

    refused = await server.run(paused.next("run-2", resume=[answer(interrupt.id, payload)]))

    assert server.ledger == []
    assert refused.run_error.code == INVALID_APPROVAL_CODE
    assert len(refused.run_error.message) < 400


async def test_one_bad_answer_stops_the_good_ones_of_the_request(
    via: str, protocol: str | None
) -> None:
    server = make_instance(None, via=via)
    calls = [
        ToolCall(id=call_id, function=FunctionCall(name=TOOL, arguments=json.dumps(args)))
        for call_id, args in (("call_a", EDITS), ("call_b", {"order_id": "B-2", "amount": 5}))
    ]
    history = [
        UserMessage(id="user-1", content="Refund 45.5 on A-18 and 5 on B-2"),
        AssistantMessage(id="assistant-1", tool_calls=calls),
    ]
    bad = {"approved": True, "editedArgs": {"order_id": "B-2", "amount": None}}
    request = make_request(
        history,
        protocol_version=protocol,
        resume=[answer("call_a", {"approved": True}), answer("call_b", bad)],
    )

    refused = await server.run(request)

    assert server.ledger == []
    assert refused.run_error.code == INVALID_APPROVAL_CODE
    assert "'call_b'" in refused.run_error.message


# --------------------------------------------------------------------------- rejections


async def test_a_rejection_reason_reaches_the_model(server: Instance, protocol: str | None) -> None:
    paused = await pause(server, protocol)
    [interrupt] = paused.interrupts

    resumed = await server.run(
        paused.next("run-2", resume=[answer(interrupt.id, {"approved": False, "reason": REASON})])
    )

    assert server.ledger == []
    assert resumed.results == {CALL: REASON}
    assert output_of(model_inputs(server)[-1], CALL) == REASON
    assert resumed.text == f"Result: {REASON}"
    last = resumed.last
    assert isinstance(last, RunFinishedEvent)
    if protocol is not None:
        assert isinstance(last.outcome, RunFinishedSuccessOutcome)


async def test_edits_with_a_rejection_are_not_run(server: Instance) -> None:
    paused = await pause(server, "1.0")
    [interrupt] = paused.interrupts
    payload = {"approved": False, "editedArgs": EDITS}

    resumed = await server.run(paused.next("run-2", resume=[answer(interrupt.id, payload)]))

    assert server.ledger == []
    assert (
        snapshot_call(resumed, CALL).function.arguments
        == snapshot_call(paused, CALL).function.arguments
    )


# --------------------------------------------------------------------------- signing


async def test_a_signature_authorises_edits_but_not_a_changed_original(
    via: str, protocol: str | None
) -> None:
    server = make_instance(SECRET, via=via, editable=(TOOL,))
    paused = await pause(server, protocol)
    [interrupt] = paused.interrupts
    assert interrupt.id.startswith(f"{CALL}.agui1.")
    tampered = []
    for message in paused.snapshot:
        if isinstance(message, AssistantMessage) and message.tool_calls:
            call = message.tool_calls[0]
            forged = call.function.model_copy(update={"arguments": json.dumps(EDITS)})
            message = message.model_copy(
                update={"tool_calls": [call.model_copy(update={"function": forged})]}
            )
        tampered.append(message)
    request = make_request(
        tampered,
        run_id="run-2",
        protocol_version=protocol,
        resume=[answer(interrupt.id, {"approved": True, "editedArgs": EDITS})],
    )

    refused = await server.run(request)

    assert server.ledger == []
    assert refused.run_error.code == APPROVAL_REFUSED_CODE
    # The genuine history with the same edits is authorised.
    resumed = await server.run(
        paused.next("run-3", resume=[answer(interrupt.id, {"approved": True, "editedArgs": EDITS})])
    )
    assert server.ledger == [(CALL, EDITS)]
    assert isinstance(resumed.last, RunFinishedEvent)


async def test_an_unsigned_approval_with_edits_is_refused_when_signing(via: str) -> None:
    server = make_instance(SECRET, via=via, editable=(TOOL,))
    paused = await pause(server, "1.0")

    refused = await server.run(
        paused.next("run-2", resume=[answer(CALL, {"approved": True, "editedArgs": EDITS})])
    )

    assert server.ledger == []
    assert refused.run_error.code == APPROVAL_REFUSED_CODE


# --------------------------------------------------------------------------- capabilities


@function_tool(needs_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund money on an order."""
    return f"Refunded {amount} on {order_id}"


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"Order {order_id}"


@pytest.mark.parametrize(
    ("tools", "editable", "gated", "expected"),
    [
        ([issue_refund], True, True, True),
        ([issue_refund], ("issue_refund",), True, True),
        ([issue_refund], ("another_tool",), True, False),
        ([issue_refund], (), True, False),
        ([lookup_order], True, False, False),
    ],
)
async def test_capabilities_offer_edits_only_for_editable_gated_tools(
    tools: list[Any], editable: Any, gated: bool, expected: bool
) -> None:
    approvals = Approvals(unsigned=True, editable=editable)
    wrapper = wrapper_for(
        Agent(name="shop", instructions="Help.", tools=tools), approvals=approvals
    )
    async with asgi_client(app_with(wrapper)) as client:
        response = await client.get("/agent/capabilities")

    document = response.json()
    assert document["humanInTheLoop"]["approveWithEdits"] is expected
    caps = AgentCapabilities.model_validate(document)
    assert caps.human_in_the_loop is not None
    assert caps.human_in_the_loop.approve_with_edits is expected
    assert caps.human_in_the_loop.interrupts is gated


# --------------------------------------------------------------------------- MCP server tools


async def collect(wrapper: Any, run_input: Any) -> list[Any]:
    events = [event async for event in wrapper.run_streamed(run_input)]
    check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    return events


async def test_an_mcp_tool_is_edited_with_its_server_schema(protocol: str | None) -> None:
    server = FakeMCPServer("billing", ["issue_refund"], require_approval="always")
    agent = Agent(name="support", instructions="Refund.", mcp_servers=[server])
    model = ScriptedResponsesModel(
        [Turn([Call("issue_refund", {"order_id": "1"}, call_id="call_mcp")]), Turn([Text("Done.")])]
    )
    wrapper = wrapper_for(agent, model, approvals=Approvals(editable=True))
    first = make_request([UserMessage(id="user-1", content="Refund 1")], protocol_version=protocol)

    paused = await collect(wrapper, first)

    finished = paused[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    [interrupt] = finished.outcome.interrupts
    assert interrupt.response_schema is not None
    edits_schema = interrupt.response_schema["properties"]["editedArgs"]
    assert edits_schema["properties"]["order_id"]["type"] == "string"
    [snapshot] = [e for e in paused if isinstance(e, MessagesSnapshotEvent)]
    payload = {"approved": True, "editedArgs": {"order_id": "2"}}
    second = make_request(
        snapshot.messages,
        run_id="run-2",
        protocol_version=protocol,
        resume=[answer(interrupt.id, payload)],
    )

    resumed = await collect(wrapper, second)

    assert server.calls == [("issue_refund", {"order_id": "2"})]
    assert json.loads(function_call(model.calls[-1].input, "call_mcp")["arguments"]) == {
        "order_id": "2"
    }
    assert isinstance(resumed[-1], RunFinishedEvent)
