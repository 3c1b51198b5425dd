"""Fuzzing: hostile requests never raise, and always get a 422 or one valid, terminated run.

Generated ``RunAgentInput``s (valid by schema, hostile in content, see
``support.reliability_strategies``) go through ``AGUITranslator().to_openai``,
``resume_tool_calls`` and the HTTP endpoint; raw bodies that are not ``RunAgentInput``s go to
the endpoint and must get a 422. Hypothesis runs derandomized (the same examples on every run)
with no example database, so CI sees a stable set. Each test counts the examples it ran and
asserts the count; the module prints the total.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar, cast

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    RunAgentInput,
    RunErrorEvent,
    ToolCall,
    ToolCallResultEvent,
    ToolMessage,
    UserMessage,
)
from agents import Agent, FunctionTool, set_tracing_disabled
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ag_ui_openai_agents import AGUITranslator, resume_tool_calls
from ag_ui_openai_agents.inbound.messages import PRODUCED_WIRE_TYPES
from ag_ui_openai_agents.protocol import is_hosted_call_name
from support.budget import examples
from support.invariants import check_stream, parse_sse
from support.reliability_harness import (
    TRACEBACK_MARK,
    asgi_client,
    build_fuzz_app,
    read_sse,
    terminal_of,
    wire,
)
from support.reliability_strategies import GATED_TOOL, PLAIN_TOOL, invalid_bodies, run_inputs

set_tracing_disabled(True)

T = TypeVar("T")

UNDER_DEV = {"to_openai": 400, "resume": 200, "endpoint": 250, "invalid_body": 200}
EXAMPLES = {name: examples(count) for name, count in UNDER_DEV.items()}
"""Examples per test (a fifth of these under the ``ci`` profile), all derandomized."""

COUNTS: Counter[str] = Counter()
OUTCOMES: Counter[str] = Counter()

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)


@pytest.fixture(autouse=True)
def _quiet_package_log() -> Iterator[None]:
    """Hostile input makes the package log a lot of warnings; keep them out of the output."""
    package = logging.getLogger("ag_ui_openai_agents")
    level = package.level
    package.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        package.setLevel(level)


@pytest.fixture(scope="module", autouse=True)
def _total_report() -> Iterator[None]:
    """Print how many examples this module ran, and how the endpoint runs ended."""
    yield
    total = sum(COUNTS.values())
    print(f"\nfuzz examples run: {total} {dict(COUNTS)}; endpoint outcomes: {dict(OUTCOMES)}")


class _Loop:
    """One event loop for all examples of a test (Hypothesis drives sync functions)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def run(self, factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
        return self.loop.run_until_complete(factory())

    def close(self) -> None:
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()


@pytest.fixture
def loop() -> Iterator[_Loop]:
    runner = _Loop()
    try:
        yield runner
    finally:
        runner.close()


def _history_calls(run_input: RunAgentInput) -> dict[str, str]:
    return {
        call.id: call.function.name
        for message in run_input.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
    }


def _fuzz_agent() -> Agent[Any]:
    return build_fuzz_app()[2]


# --------------------------------------------------------------------------- to_openai


def _check_translated(run_input: RunAgentInput) -> None:
    before = run_input.model_dump()
    translated = AGUITranslator().to_openai(run_input)
    assert run_input.model_dump() == before, "to_openai changed the request"
    assert (translated.thread_id, translated.run_id, translated.parent_run_id) == (
        run_input.thread_id,
        run_input.run_id,
        run_input.parent_run_id,
    )
    assert translated.state == run_input.state
    assert translated.forwarded_props == run_input.forwarded_props
    assert translated.resume == run_input.resume
    assert translated.context == list(run_input.context or [])
    json.dumps(translated.messages)
    calls = _history_calls(run_input)
    answered = {m.tool_call_id for m in run_input.messages if isinstance(m, ToolMessage)}
    for raw in translated.messages:
        item = cast(dict[str, Any], raw)
        kind = item.get("type")
        if kind is None:
            assert item["role"] in PRODUCED_WIRE_TYPES["message_role"], item
            assert item["content"], f"an empty {item['role']} message was sent"
        else:
            assert kind in PRODUCED_WIRE_TYPES["input_item_type"], item
        if kind == "function_call":
            assert item["call_id"] in calls and not is_hosted_call_name(item["name"])
        if kind == "function_call_output":
            assert item["call_id"] in answered
            assert not is_hosted_call_name(calls.get(item["call_id"], ""))
    names = [tool.name for tool in translated.tools]
    assert len(names) == len(set(names)), f"client tool names repeat: {names}"
    for tool in translated.tools:
        assert isinstance(tool, FunctionTool) and tool.name and not is_hosted_call_name(tool.name)
        assert isinstance(tool.params_json_schema, dict)


def test_to_openai_never_raises_on_hostile_requests() -> None:
    @settings(FUZZ, max_examples=EXAMPLES["to_openai"])
    @given(run_inputs(max_messages=8))
    def check(run_input: RunAgentInput) -> None:
        COUNTS["to_openai"] += 1
        _check_translated(run_input)

    check()
    assert COUNTS["to_openai"] >= EXAMPLES["to_openai"]


# --------------------------------------------------------------------------- resume


def _is_subsequence(small: list[Any], big: list[Any]) -> bool:
    position = iter(big)
    return all(any(item == other for other in position) for item in small)


async def _check_resume(agent: Agent[Any], run_input: RunAgentInput) -> None:
    before = run_input.model_dump()
    resumed = await resume_tool_calls(agent, run_input)
    assert run_input.model_dump() == before, "resume_tool_calls changed the request"
    sent = [m.model_dump() for m in run_input.messages]
    now = [m.model_dump() for m in resumed.run_input.messages]
    assert _is_subsequence(sent, now), "the request's messages were lost or reordered"
    added = [m for m in resumed.run_input.messages if m.model_dump() not in sent]
    assert [(m.id, m.tool_call_id) for m in added if isinstance(m, ToolMessage)] == [
        (e.message_id, e.tool_call_id) for e in resumed.events
    ]
    assert len(added) == len(resumed.events)
    calls = _history_calls(run_input)
    for interrupt in resumed.open_interrupts:
        assert calls.get(interrupt.tool_call_id or "") == GATED_TOOL, interrupt
    answered_now = {e.tool_call_id for e in resumed.events}
    assert not answered_now & {i.tool_call_id for i in resumed.open_interrupts}
    AGUITranslator().to_openai(resumed.run_input)


def test_resume_tool_calls_never_raises_on_hostile_requests(loop: _Loop) -> None:
    agent = _fuzz_agent()

    @settings(FUZZ, max_examples=EXAMPLES["resume"])
    @given(run_inputs(max_messages=8))
    def check(run_input: RunAgentInput) -> None:
        COUNTS["resume"] += 1
        loop.run(lambda: _check_resume(agent, run_input))

    check()
    assert COUNTS["resume"] >= EXAMPLES["resume"]


# --------------------------------------------------------------------------- endpoint


def test_endpoint_answers_hostile_requests_with_one_valid_run(loop: _Loop) -> None:
    app, model, _ = build_fuzz_app(run_error_message="The run failed.")
    client = loop.run(lambda: _open(app))

    @settings(FUZZ, max_examples=EXAMPLES["endpoint"])
    @given(run_inputs(max_messages=6))
    def check(run_input: RunAgentInput) -> None:
        COUNTS["endpoint"] += 1
        body = wire(run_input)
        response = loop.run(
            lambda: client.post(
                "/agent", content=body, headers={"content-type": "application/json"}
            )
        )
        events = read_sse(response, run_input)
        assert TRACEBACK_MARK not in response.text
        OUTCOMES[_outcome(events)] += 1

    try:
        check()
    finally:
        loop.run(client.aclose)
    assert COUNTS["endpoint"] >= EXAMPLES["endpoint"]
    assert model.call_count > 0


def _outcome(events: list[BaseEvent]) -> str:
    """A short name for how a run ended, to show what the fuzz reached."""
    end = terminal_of(events)
    resumed = "resumed+" if any(isinstance(e, ToolCallResultEvent) for e in events[1:2]) else ""
    if isinstance(end, RunErrorEvent):
        return f"{resumed}error"
    outcome = end.outcome
    kind = getattr(outcome, "type", "success")
    if getattr(outcome, "pending_tool_call_ids", None):
        kind = "pending"
    return f"{resumed}{kind}"


async def _open(app: Any) -> Any:
    return asgi_client(app)


def test_endpoint_rejects_bodies_that_are_not_run_inputs_with_422(loop: _Loop) -> None:
    app, model, _ = build_fuzz_app()
    client = loop.run(lambda: _open(app))

    @settings(FUZZ, max_examples=EXAMPLES["invalid_body"])
    @given(invalid_bodies, st.sampled_from(["application/json", "text/plain", ""]))
    def check(body: str, content_type: str) -> None:
        COUNTS["invalid_body"] += 1
        headers = {"content-type": content_type} if content_type else {}
        response = loop.run(
            lambda: client.post("/agent", content=body.encode("utf-8"), headers=headers)
        )
        assert response.status_code == 422, (body[:200], response.status_code, response.text[:300])
        assert "detail" in response.json()
        assert TRACEBACK_MARK not in response.text

    try:
        check()
    finally:
        loop.run(client.aclose)
    assert COUNTS["invalid_body"] >= EXAMPLES["invalid_body"]
    assert model.call_count == 0, "the model ran for a body that is not a RunAgentInput"


# --------------------------------------------------------------------------- found by fuzzing


@pytest.mark.parametrize(
    ("thread_id", "message_id", "content"),
    [("t", "u", "half an emoji: \\ud83d"), ("t", "\\udfff", "hi"), ("\\ud800", "u", "hi")],
    ids=["content", "message id", "thread id"],
)
async def test_a_lone_surrogate_escape_gets_a_422_or_a_terminated_stream(
    thread_id: str, message_id: str, content: str
) -> None:
    """JSON may escape a lone surrogate, which no UTF-8 stream can carry back."""
    app, _, _ = build_fuzz_app()
    message = f'{{"id": "{message_id}", "role": "user", "content": "{content}"}}'
    body = f'{{"threadId": "{thread_id}", "runId": "r", "messages": [{message}]}}'
    async with asgi_client(app) as client:
        response = await client.post(
            "/agent", content=body, headers={"content-type": "application/json"}
        )
    if response.status_code == 422:
        return
    assert response.status_code == 200
    events = parse_sse(response.text)
    if [e.type.value for e in events] == ["RUN_ERROR"]:
        return  # AG-UI allows a run that could not start to end with RUN_ERROR alone
    check_stream(events, run_input=RunAgentInput.model_validate(json.loads(body)))
    assert isinstance(terminal_of(events), RunErrorEvent)


async def test_an_answer_on_resume_never_reuses_a_message_id() -> None:
    app, _, _ = build_fuzz_app()
    call = ToolCall(id="call-9", function=FunctionCall(name=PLAIN_TOOL, arguments='{"q": "x"}'))
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        protocol_version="1.0",
        messages=[
            UserMessage(id="call-9-result", content="Look this up"),
            AssistantMessage(id="a-1", tool_calls=[call]),
        ],
        tools=[],
        context=[],
        state={},
    )
    async with asgi_client(app) as client:
        response = await client.post(
            "/agent", content=wire(run_input), headers={"content-type": "application/json"}
        )
    read_sse(response, run_input)
