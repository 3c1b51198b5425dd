"""Isolation: concurrent runs share nothing, and nothing of the server leaks to the client.

One FastAPI app, one ``OpenAIAgentsAgent``, one scripted model. Every run has its own thread
id, state, client tool and AG-UI context, all marked with the run's tag. The model echoes what
it received (instructions, tool names, tool outputs) into its text; a server tool reads the
run's shared state and SDK context and changes the state. Each stream must carry only its own
ids, state and tool, each model call must have seen only its own tools and context block, and
the shared Agent must be exactly as it was.

No leaks: with ``run_error_message`` set, no part of an exception's text (a unique secret)
reaches the client, whether the model, a tool, a guardrail, dynamic instructions, run setup or
a lifecycle factory raised; the server log still gets the error. No response body ever holds a
traceback, with or without ``run_error_message``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Context,
    FunctionCall,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    Tool,
    ToolCall,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)
from agents import (
    Agent,
    GuardrailFunctionOutput,
    RunConfig,
    function_tool,
    input_guardrail,
    set_tracing_disabled,
)
from agents.tool_context import ToolContext
from fastapi import FastAPI

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from support.invariants import check_stream, parse_sse
from support.reliability_harness import TRACEBACK_MARK, asgi_client
from support.runs import request
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)

set_tracing_disabled(True)

RUNS = 200
SERVER_TOOL = "remember"
_TAG = re.compile(r"(?<![A-Za-z0-9])t\d{3}(?!\d)")


def tag_of(index: int) -> str:
    return f"t{index:03d}"


def tags_in(text: str) -> set[str]:
    return set(_TAG.findall(text))


@dataclass
class Observed:
    """What the server side saw, across all runs."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    active: int = 0
    most_active: int = 0


def _echo(call: RecordedCall, tag: str) -> str:
    outputs = [i.get("output") for i in call.input if i.get("type") == "function_call_output"]
    return json.dumps(
        {
            "tag": tag,
            "instructions": call.instructions,
            "tools": sorted(call.tool_names),
            "outputs": outputs,
        }
    )


def decide(call: RecordedCall) -> Turn:
    """Turn 1: echo, then call the server tool. Turn 2: echo, then call the run's client tool."""
    users = [i for i in call.input if i.get("role") == "user"]
    tag = sorted(tags_in(str(users[-1].get("content"))))[0]
    if not any(i.get("type") == "function_call_output" for i in call.input):
        remember = Call(SERVER_TOOL, {"tag": tag}, call_id=f"call-{tag}-server", id=f"fc-{tag}-1")
        return Turn([Text(_echo(call, tag), id=f"msg-{tag}-1", chunks=4), remember])
    client = Call(f"client_{tag}", {"tag": tag}, call_id=f"call-{tag}-client", id=f"fc-{tag}-2")
    return Turn([Text(_echo(call, tag), id=f"msg-{tag}-2", chunks=4), client])


def build(observed: Observed) -> tuple[FastAPI, Agent[Any], ScriptedResponsesModel]:
    @function_tool(name_override=SERVER_TOOL)
    async def remember(ctx: ToolContext[Any], tag: str) -> str:
        """Remember the run's tag in its state."""
        observed.active += 1
        observed.most_active = max(observed.most_active, observed.active)
        state = shared_state()
        owner = state.value.get("owner")
        contexts = [item.value for item in ctx.context]
        await asyncio.sleep(0.005)
        state.update(seen=tag)
        observed.active -= 1
        seen = {"tag": tag, "owner": owner, "contexts": contexts, "call": ctx.tool_call_id}
        observed.tool_calls.append(seen)
        return json.dumps(seen)

    model = ScriptedResponsesModel(decide, model_name="echo-model", delay=0.0002)
    agent: Agent[Any] = Agent(name="shared", instructions="Be brief.", tools=[remember])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, OpenAIAgentsAgent(agent, run_config=config), "/agent")
    return app, agent, model


def run_input(index: int) -> RunAgentInput:
    tag = tag_of(index)
    return RunAgentInput(
        thread_id=f"thread-{tag}",
        run_id=f"run-{tag}",
        protocol_version="1.0",
        state={"owner": tag, "items": [tag] * (index % 3)},
        messages=[UserMessage(id=f"user-{tag}", content=f"Hello from run {tag}")],
        tools=[
            Tool(
                name=f"client_{tag}",
                description=f"The client tool of {tag}",
                parameters={"type": "object", "properties": {"tag": {"const": tag}}},
            )
        ],
        context=[Context(description="page", value=f"ctx-{tag}")],
        forwarded_props={"tag": tag},
    )


def _wire_text(events: list[BaseEvent]) -> str:
    return "".join(e.model_dump_json(by_alias=True) for e in events)


def check_own_run(events: list[BaseEvent], given: RunAgentInput, tag: str) -> None:
    """The stream of run ``tag`` is valid and holds nothing of any other run."""
    check_stream(events, run_input=given)
    assert tags_in(_wire_text(events)) == {tag}, f"{tag}: {tags_in(_wire_text(events))}"
    states = [e.snapshot for e in events if isinstance(e, StateSnapshotEvent)]
    assert states and states[-1] == {**(given.state or {}), "seen": tag}
    results = [json.loads(str(e.content)) for e in events if isinstance(e, ToolCallResultEvent)]
    assert results == [
        {"tag": tag, "owner": tag, "contexts": [f"ctx-{tag}"], "call": f"call-{tag}-server"}
    ]
    starts = [e.tool_call_name for e in events if isinstance(e, ToolCallStartEvent)]
    assert starts == [SERVER_TOOL, f"client_{tag}"]
    texts: dict[str, str] = {}
    for event in events:
        if isinstance(event, TextMessageContentEvent):
            texts[event.message_id] = texts.get(event.message_id, "") + event.delta
    assert list(texts) == [f"msg-{tag}-1", f"msg-{tag}-2"]
    echoes = [json.loads(text) for text in texts.values()]
    assert json.loads(echoes[1]["outputs"][0])["owner"] == tag
    for echo in echoes:
        assert echo["tools"] == sorted([SERVER_TOOL, f"client_{tag}"])
        assert f"page: ctx-{tag}" in echo["instructions"]
    end = events[-1]
    assert isinstance(end, RunFinishedEvent)
    pending = getattr(end.outcome, "pending_tool_call_ids", None)
    assert pending == [f"call-{tag}-client"]
    snapshot = next(e for e in events if isinstance(e, MessagesSnapshotEvent))
    assert all(tag in m.id for m in snapshot.messages)


def check_model_calls(model: ScriptedResponsesModel) -> None:
    """Each model call saw one run's messages, tools and context block, never another's."""
    assert model.call_count == 2 * RUNS
    per_tag: dict[str, int] = {}
    for call in model.calls:
        seen = tags_in(json.dumps(call.input))
        assert len(seen) == 1, seen
        (tag,) = seen
        per_tag[tag] = per_tag.get(tag, 0) + 1
        assert sorted(call.tool_names) == sorted([SERVER_TOOL, f"client_{tag}"])
        assert tags_in(call.instructions or "") == {tag}
        assert (call.instructions or "").count("ctx-") == 1
        client = [t for t in call.tools if t.name == f"client_{tag}"]
        assert client and tag in getattr(client[0], "description", "")
    assert per_tag == {tag_of(i): 2 for i in range(RUNS)}


@pytest.mark.slow
async def test_two_hundred_concurrent_runs_share_nothing() -> None:
    observed = Observed()
    app, agent, model = build(observed)
    tools_list, tools = agent.tools, list(agent.tools)
    instructions, behavior = agent.instructions, agent.tool_use_behavior
    inputs = [run_input(i) for i in range(RUNS)]
    async with asgi_client(app) as client:
        responses = await asyncio.gather(
            *(
                client.post(
                    "/agent",
                    content=given.model_dump_json(by_alias=True, exclude_none=True),
                    headers={"content-type": "application/json"},
                )
                for given in inputs
            )
        )
    for index, (given, response) in enumerate(zip(inputs, responses, strict=True)):
        assert response.status_code == 200
        check_own_run(parse_sse(response.text), given, tag_of(index))
    check_model_calls(model)
    assert sorted(c["tag"] for c in observed.tool_calls) == sorted(tag_of(i) for i in range(RUNS))
    assert all(c["tag"] == c["owner"] for c in observed.tool_calls)
    assert observed.most_active > 10, "the runs did not overlap"
    assert agent.tools is tools_list and agent.tools == tools and len(tools) == 1
    assert all(a is b for a, b in zip(agent.tools, tools, strict=True))
    assert agent.instructions is instructions and agent.tool_use_behavior == behavior
    assert [i.state for i in inputs] == [run_input(i).state for i in range(RUNS)]


# --------------------------------------------------------------------------- no leaks

SECRET = f"secret-{uuid.uuid4().hex}"
SAFE = "The agent could not complete this request."


@function_tool(failure_error_function=None)
def leaky_tool(q: str) -> str:
    """A tool that fails with a secret in its error."""
    raise RuntimeError(f"tool failed: {SECRET}")


@input_guardrail
async def leaky_guardrail(context: Any, agent: Any, given: Any) -> GuardrailFunctionOutput:
    """A guardrail that fails with a secret in its error."""
    raise RuntimeError(f"guardrail failed: {SECRET}")


@input_guardrail
async def tripping_guardrail(context: Any, agent: Any, given: Any) -> GuardrailFunctionOutput:
    """A guardrail whose tripwire carries a secret."""
    return GuardrailFunctionOutput(output_info={"why": SECRET}, tripwire_triggered=True)


def _secret_instructions(context: Any, agent: Any) -> str:
    raise RuntimeError(f"instructions failed: {SECRET}")


def _secret_context(run_input: RunAgentInput, request: Any) -> Any:
    raise RuntimeError(f"context failed: {SECRET}")


def _secret_state() -> Any:
    raise RuntimeError(f"state failed: {SECRET}")


@function_tool(needs_approval=True, failure_error_function=None)
def approved_leaky(q: str) -> str:
    """An approval-gated tool that fails when run on resume."""
    raise RuntimeError(f"resumed tool failed: {SECRET}")


def _leak_case(name: str) -> tuple[Agent[Any], list[Turn], dict[str, Any], RunAgentInput]:
    """Agent, model turns, wrapper options and request of one failure with a secret."""
    plain = request(UserMessage(id="user-1", content="Hello"))
    turns = [Turn([Text("Hi")])]
    agent: Agent[Any] = Agent(name="leaky", instructions="Help.")
    options: dict[str, Any] = {}
    if name == "model raises before streaming":
        turns = [Turn(raise_before=RuntimeError(f"model failed: {SECRET}"))]
    elif name == "model raises mid-stream":
        turns = [Turn([Text("Hello there")], raise_after_events=4, error=RuntimeError(SECRET))]
    elif name == "model response failed":
        turns = [Turn([Text("Hi")], status="failed", failure_message=f"upstream: {SECRET}")]
    elif name == "tool raises":
        agent = agent.clone(tools=[leaky_tool])
        turns = [Turn([Call("leaky_tool", {"q": "x"})]), Turn([Text("never")])]
    elif name == "guardrail raises":
        agent = agent.clone(input_guardrails=[leaky_guardrail])
    elif name == "guardrail trips":
        agent = agent.clone(input_guardrails=[tripping_guardrail])
    elif name == "dynamic instructions raise":
        agent = agent.clone(instructions=_secret_instructions)
    elif name == "setup: context factory raises":
        options["context"] = _secret_context
    elif name == "setup: approved tool raises on resume":
        agent = agent.clone(tools=[approved_leaky])
        call = ToolCall(
            id="call-1", function=FunctionCall(name="approved_leaky", arguments='{"q": "x"}')
        )
        plain = plain.model_copy(
            update={
                "messages": [*plain.messages, AssistantMessage(id="a-1", tool_calls=[call])],
                "resume": [ResumeEntry(interrupt_id="call-1", status="resolved",
                                       payload={"approved": True})],
            }
        )  # fmt: skip
    elif name == "final state raises":
        options["final_state"] = _secret_state
    return agent, turns, options, plain


LEAK_CASES = [
    "model raises before streaming",
    "model raises mid-stream",
    "model response failed",
    "tool raises",
    "guardrail raises",
    "guardrail trips",
    "dynamic instructions raise",
    "setup: context factory raises",
    "setup: approved tool raises on resume",
    "final state raises",
]


async def _post_leak_case(name: str, **extra: Any) -> tuple[httpx.Response, RunAgentInput]:
    agent, turns, options, given = _leak_case(name)
    model = ScriptedResponsesModel(turns)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    app = FastAPI()
    wrapped = OpenAIAgentsAgent(agent, run_config=config, **options, **extra)
    add_openai_agents_fastapi_endpoint(app, wrapped, "/agent")
    async with asgi_client(app) as client:
        response = await client.post(
            "/agent",
            content=given.model_dump_json(by_alias=True, exclude_none=True),
            headers={"content-type": "application/json"},
        )
    return response, given


@pytest.mark.parametrize("name", LEAK_CASES)
async def test_no_error_text_reaches_the_client_with_a_run_error_message(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="ag_ui_openai_agents"):
        response, given = await _post_leak_case(name, run_error_message=SAFE)
    events = parse_sse(response.text)
    check_stream(events, run_input=given)
    end = events[-1]
    assert isinstance(end, RunErrorEvent) and end.message == SAFE and end.code == "AGENT_ERROR"
    assert SECRET not in response.text
    assert TRACEBACK_MARK not in response.text and "Traceback" not in response.text
    logged = "\n".join(r.getMessage() + str(r.exc_info and r.exc_info[1]) for r in caplog.records)
    assert SECRET in logged or name == "guardrail trips", "the server log lost the error"


@pytest.mark.parametrize("name", LEAK_CASES)
async def test_no_traceback_reaches_the_client_without_a_run_error_message(name: str) -> None:
    response, given = await _post_leak_case(name)
    events = parse_sse(response.text)
    check_stream(events, run_input=given)
    assert isinstance(events[-1], RunErrorEvent)
    assert "Traceback" not in response.text
    if name.startswith("setup:"):
        assert SECRET not in response.text, "a setup failure showed its error text"


async def test_no_traceback_in_rejections_health_or_capabilities() -> None:
    agent, turns, _, _ = _leak_case("model raises before streaming")
    app = FastAPI()
    config = RunConfig(
        model_provider=ScriptedProvider(ScriptedResponsesModel(turns)), tracing_disabled=True
    )
    add_openai_agents_fastapi_endpoint(app, OpenAIAgentsAgent(agent, run_config=config), "/agent")
    async with asgi_client(app) as client:
        bodies = [
            await client.post("/agent", content=b"{", headers={"content-type": "application/json"}),
            await client.post("/agent", json={"threadId": 1}),
            await client.post(
                "/agent", content=b"\xff\xfe", headers={"content-type": "application/json"}
            ),
            await client.get("/agent/health"),
            await client.get("/agent/capabilities"),
        ]
    assert [b.status_code for b in bodies] == [422, 422, 422, 200, 200]
    assert all("Traceback" not in b.text for b in bodies)
