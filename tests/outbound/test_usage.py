"""Token usage on RUN_FINISHED and RUN_ERROR: one entry per model, summed over the run."""

from __future__ import annotations

from types import SimpleNamespace

from ag_ui.core import TokenUsage
from ag_ui.core.token_usage import aggregate_token_usage
from agents import Agent, function_tool, set_tracing_disabled
from agents.usage import Usage
from openai.types.responses.response_usage import (
    InputTokensDetails,
    OutputTokensDetails,
    ResponseUsage,
)

from ag_ui_openai_agents.outbound.usage import UsageTally, token_usage
from support.runs import request, run_agui
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, TurnUsage

set_tracing_disabled(True)


@function_tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def entry(
    model: str | None,
    input_tokens: int,
    output_tokens: int,
    *,
    reasoning: int | None = None,
    cached: int | None = None,
) -> TokenUsage:
    return TokenUsage(
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        reasoning_tokens=reasoning,
        cached_input_tokens=cached,
    )


async def test_usage_of_every_turn_is_summed_per_model() -> None:
    run = await run_agui(
        Agent(name="a", tools=[ping]),
        request(),
        [
            Turn([Call("ping")], usage=TurnUsage(100, 20, cached=40, reasoning=5)),
            Turn([Text("pong")], usage=TurnUsage(150, 30, cached=60, reasoning=7)),
        ],
    )

    assert run.finished.usage == [entry("scripted-model", 250, 50, reasoning=12, cached=100)]


async def test_incomplete_turn_counts_toward_the_usage_on_run_error() -> None:
    run = await run_agui(
        Agent(name="a", tools=[ping]),
        request(),
        [
            Turn([Call("ping")], usage=TurnUsage(10, 4)),
            Turn([Text("cut")], status="incomplete", usage=TurnUsage(12, 64)),
        ],
        expect_error=True,
    )

    assert run.run_error.usage == [entry("scripted-model", 22, 68)]


async def test_failed_turn_counts_toward_the_usage_on_run_error() -> None:
    run = await run_agui(
        Agent(name="a"),
        request(),
        [Turn([Text("x")], status="failed", usage=TurnUsage(9, 1))],
        expect_error=True,
    )

    assert run.run_error.usage == [entry("scripted-model", 9, 1)]


async def test_each_model_gets_its_own_entry() -> None:
    second = ScriptedResponsesModel(
        [Turn([Text("Specialist answer")], usage=TurnUsage(30, 3))], model_name="model-b"
    )
    specialist = Agent(name="specialist", model=second)
    first = ScriptedResponsesModel(
        [Turn([Call("transfer_to_specialist", {})], usage=TurnUsage(11, 2))],
        model_name="model-a",
    )
    triage = Agent(name="triage", handoffs=[specialist])

    run = await run_agui(triage, request(), model=first)

    assert run.finished.usage == [entry("model-a", 11, 2), entry("model-b", 30, 3)]


async def test_usage_is_absent_when_no_turn_reported_any() -> None:
    run = await run_agui(
        Agent(name="a", tools=[ping]),
        request(),
        [Turn([Call("ping")], usage=None), Turn([Text("done")], usage=None)],
    )

    assert run.finished.usage is None
    assert "usage" not in run.finished.model_dump(exclude_none=True)


async def test_agents_used_as_tools_add_one_entry_without_a_model() -> None:
    helper = Agent(name="helper")
    outer = Agent(
        name="outer",
        tools=[helper.as_tool(tool_name="ask_helper", tool_description="Ask the helper.")],
    )

    run = await run_agui(
        outer,
        request(),
        [
            Turn([Call("ask_helper", {"input": "question"})], usage=TurnUsage(10, 5)),
            Turn([Text("helper's answer")], usage=TurnUsage(200, 40)),
            Turn([Text("final")], usage=TurnUsage(3, 2)),
        ],
    )

    assert run.finished.usage == [entry("scripted-model", 13, 7), entry(None, 200, 40)]


async def test_usage_accrued_before_a_failure_is_on_run_error() -> None:
    run = await run_agui(
        Agent(name="a", tools=[ping]),
        request(),
        [
            Turn([Call("ping")], usage=TurnUsage(8, 2)),
            Turn([], raise_before=RuntimeError("provider down")),
        ],
        expect_error=True,
    )

    assert run.run_error.usage == [entry("scripted-model", 8, 2)]


# --------------------------------------------------------------------------- units


def _response_usage(
    input_tokens: int, output_tokens: int, cached: int = 0, reasoning: int = 0
) -> ResponseUsage:
    return ResponseUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=cached, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=reasoning),
    )


def test_token_usage_keeps_cached_and_reasoning_as_parts_of_the_totals() -> None:
    converted = token_usage(_response_usage(50, 20, cached=10, reasoning=4), "m")

    assert converted == entry("m", 50, 20, reasoning=4, cached=10)


def test_token_usage_of_nothing_is_none() -> None:
    assert token_usage(None, "m") is None
    assert token_usage(_response_usage(0, 0), "m") is None


def test_tally_adds_only_what_the_stream_did_not_show() -> None:
    tally = UsageTally()
    tally.add_response(
        SimpleNamespace(usage=_response_usage(10, 5), model="m"), counted_by_sdk=True
    )
    tally.add_response(
        SimpleNamespace(usage=_response_usage(4, 1), model="m"), counted_by_sdk=False
    )

    tally.add_unstreamed(Usage(requests=2, input_tokens=60, output_tokens=15, total_tokens=75))

    assert tally.entries() == [entry("m", 14, 6), entry(None, 50, 10)]


def test_tally_adds_nothing_when_the_run_total_matches_the_stream() -> None:
    tally = UsageTally()
    tally.add_response(
        SimpleNamespace(usage=_response_usage(10, 5), model="m"), counted_by_sdk=True
    )

    tally.add_unstreamed(Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15))
    tally.add_unstreamed(None)

    assert tally.entries() == [entry("m", 10, 5)]


def test_empty_tally_reports_no_usage() -> None:
    tally = UsageTally()
    tally.add_entry(None)
    tally.add_response(SimpleNamespace(usage=None, model="m"), counted_by_sdk=True)

    assert tally.entries() is None


def test_tally_sums_like_the_protocols_aggregation() -> None:
    reports = [
        TokenUsage(provider="openai", model="m", input_tokens=3, output_tokens=1, total_tokens=4),
        TokenUsage(model="m", input_tokens=5, output_tokens=2, reasoning_tokens=1),
        TokenUsage(provider="openai", model="m", input_tokens=1, cache_write_input_tokens=7),
        TokenUsage(model="other", output_tokens=9, cached_input_tokens=0),
    ]
    tally = UsageTally()
    for report in reports:
        tally.add_entry(report)

    assert tally.entries() == aggregate_token_usage(reports)


def test_counts_the_wire_cannot_carry_are_dropped_not_raised() -> None:
    huge = SimpleNamespace(
        input_tokens=2**60,
        output_tokens=3,
        total_tokens=2**60 + 3,
        input_tokens_details=SimpleNamespace(cached_tokens=2**70),
        output_tokens_details=SimpleNamespace(reasoning_tokens=-1),
    )
    tally = UsageTally()
    tally.add_response(SimpleNamespace(usage=huge, model="m"), counted_by_sdk=True)

    assert tally.entries() == [TokenUsage(model="m", output_tokens=3, total_tokens=3)]


def test_sums_the_wire_cannot_carry_are_left_unset() -> None:
    near_cap = 2**53 - 10
    tally = UsageTally()
    for _ in range(2):
        tally.add_response(
            SimpleNamespace(usage=_response_usage(near_cap, 5), model="m"), counted_by_sdk=True
        )

    assert tally.entries() == [TokenUsage(model="m", output_tokens=10)]


def test_resumed_tools_usage_leaves_out_what_their_subagents_streamed() -> None:
    tally = UsageTally()
    streamed = SimpleNamespace(model="inner-model", usage=Usage(input_tokens=7, output_tokens=3))
    tally.add_response(streamed, counted_by_sdk=True)
    tally.add_resumed(Usage(input_tokens=9, output_tokens=4))  # 2 + 1 came from elsewhere
    # The run's own total is then compared only with what streams after the resume.
    tally.add_response(
        SimpleNamespace(model="outer", usage=Usage(input_tokens=5, output_tokens=5)),
        counted_by_sdk=True,
    )
    tally.add_unstreamed(Usage(input_tokens=5, output_tokens=5))
    entries = {(e.model, e.input_tokens, e.output_tokens) for e in tally.entries() or []}
    assert entries == {("inner-model", 7, 3), (None, 2, 1), ("outer", 5, 5)}


def test_resumed_tools_usage_without_subagents_is_one_entry() -> None:
    tally = UsageTally()
    tally.add_resumed(Usage(input_tokens=9, output_tokens=4))
    assert [(e.model, e.input_tokens) for e in tally.entries() or []] == [(None, 9)]
