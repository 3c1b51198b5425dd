"""Tool calls and results: function, handoff and hosted calls as TOOL_CALL_* windows."""

from __future__ import annotations

import json
from typing import Any

import agents.tool
import pytest
from ag_ui.core import AssistantMessage, ToolCallStartEvent, ToolMessage
from agents import Agent, function_tool, set_tracing_disabled
from agents.items import ToolCallItem
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.stream_events import AgentUpdatedStreamEvent
from openai.types.responses import ResponseFunctionWebSearch
from openai.types.responses.response_output_item import ImageGenerationCall, McpCall

from ag_ui_openai_agents.outbound.tools import hosted_call_arguments, output_text
from support.runs import (
    AguiRun,
    brief,
    engine_steps,
    item_event,
    record,
    request,
    run_agui,
    sdk_kind,
    translate_events,
)
from support.scripted import Call, Hosted, Reasoning, Text, Turn, split_text

set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> str:
    """Report the weather of a city."""
    return f"Sunny in {city}"


@function_tool
def get_forecast(city: str) -> dict[str, Any]:
    """Report a structured forecast."""
    return {"city": city, "days": [1, 2]}


def weather_agent(name: str = "assistant") -> Agent[Any]:
    return Agent(name=name, tools=[get_weather, get_forecast])


def tool_events(run_or_events: AguiRun | list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The TOOL_CALL_* tuples of a run, in order."""
    events = run_or_events.brief if isinstance(run_or_events, AguiRun) else run_or_events
    return [event for event in events if event[0].startswith("TOOL_CALL")]


def parents(run: AguiRun) -> dict[str, str]:
    """tool_call_id → parent_message_id of every TOOL_CALL_START."""
    return {e.tool_call_id: str(e.parent_message_id) for e in run.of(ToolCallStartEvent)}


# --------------------------------------------------------------------------- function calls


async def test_function_call_streams_chunked_arguments_then_its_result() -> None:
    arguments = json.dumps({"city": "Paris"}, separators=(",", ":"))
    run = await run_agui(
        weather_agent(),
        request(),
        [
            Turn([Text("Checking", id="msg_t"), Call("get_weather", arguments, chunks=3)]),
            Turn([Text("Sunny.", id="msg_end")]),
        ],
    )

    pieces = split_text(arguments, 3)
    assert tool_events(run) == [
        ("TOOL_CALL_START", "call_1", "get_weather", "msg_t"),
        *[("TOOL_CALL_ARGS", "call_1", piece) for piece in pieces],
        ("TOOL_CALL_END", "call_1"),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", "Sunny in Paris"),
    ]
    assert len(pieces) == 3


async def test_arguments_sent_only_with_the_done_event_are_streamed_once() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Call("get_weather", {"city": "Oslo"}, chunks=0)]), Turn([Text("ok")])],
    )

    args = [e for e in tool_events(run) if e[0] == "TOOL_CALL_ARGS"]
    assert args == [("TOOL_CALL_ARGS", "call_1", '{"city":"Oslo"}')]


async def test_parallel_calls_share_their_message_and_results_follow_in_order() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [
            Turn(
                [
                    Call("get_weather", {"city": "Rome"}, chunks=1),
                    Call("get_weather", {"city": "Lima"}, chunks=1),
                ]
            ),
            Turn([Text("Both sunny.")]),
        ],
    )

    parent = parents(run)["call_1"]
    assert parent.startswith("msg_")
    assert tool_events(run) == [
        ("TOOL_CALL_START", "call_1", "get_weather", parent),
        ("TOOL_CALL_ARGS", "call_1", '{"city":"Rome"}'),
        ("TOOL_CALL_END", "call_1"),
        ("TOOL_CALL_START", "call_2", "get_weather", parent),
        ("TOOL_CALL_ARGS", "call_2", '{"city":"Lima"}'),
        ("TOOL_CALL_END", "call_2"),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", "Sunny in Rome"),
        ("TOOL_CALL_RESULT", "call_2-result", "call_2", "Sunny in Lima"),
    ]
    assistant = run.snapshot[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.id == parent
    assert [call.id for call in assistant.tool_calls or []] == ["call_1", "call_2"]


async def test_structured_function_output_is_sent_as_the_model_saw_it() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Call("get_forecast", {"city": "Bern"})]), Turn([Text("ok")])],
    )

    (result,) = [e for e in tool_events(run) if e[0] == "TOOL_CALL_RESULT"]
    assert run.model is not None
    (replayed,) = [
        item["output"]
        for item in run.model.calls[1].input
        if item.get("type") == "function_call_output"
    ]
    assert result == ("TOOL_CALL_RESULT", "call_1-result", "call_1", replayed)
    assert "Bern" in replayed


# --------------------------------------------------------------------------- late consumers


def _move_added_after_arguments(events: list[Any]) -> list[Any]:
    """Put the call's output_item.added after its argument deltas (a consumer started late)."""
    added = next(i for i, e in enumerate(events) if _is_call_event(e, "added"))
    moved = events.pop(added)
    done = next(
        i for i, e in enumerate(events) if sdk_kind(e) == "response.function_call_arguments.done"
    )
    events.insert(done, moved)
    return events


def _is_call_event(event: Any, stage: str) -> bool:
    return (
        sdk_kind(event) == f"response.output_item.{stage}"
        and event.data.item.type == "function_call"
    )


async def test_arguments_before_output_item_added_start_the_call_once() -> None:
    sdk_events, _ = await record(
        weather_agent(),
        [Turn([Call("get_weather", {"city": "Paris"}, chunks=3)]), Turn([Text("ok")])],
    )
    reordered = _move_added_after_arguments(list(sdk_events))

    run = await translate_events(reordered)

    pieces = split_text('{"city":"Paris"}', 3)
    parent = parents(run)["call_1"]
    assert tool_events(run) == [
        ("TOOL_CALL_START", "call_1", "get_weather", parent),
        *[("TOOL_CALL_ARGS", "call_1", piece) for piece in pieces],
        ("TOOL_CALL_END", "call_1"),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", "Sunny in Paris"),
    ]


async def test_arguments_with_no_output_item_added_wait_for_the_item_done() -> None:
    sdk_events, _ = await record(
        weather_agent(),
        [Turn([Call("get_weather", {"city": "Paris"}, chunks=2)]), Turn([Text("ok")])],
    )
    without_added = [e for e in sdk_events if not _is_call_event(e, "added")]

    steps, _ = engine_steps(without_added)

    delta_outputs = [
        out for e, out in steps if sdk_kind(e) == "response.function_call_arguments.delta"
    ]
    assert delta_outputs == [[], []]
    (opened,) = [(sdk_kind(e), brief(out)) for e, out in steps if out and _is_call_event(e, "done")]
    parent = opened[1][0][3]
    assert opened[1] == [
        ("TOOL_CALL_START", "call_1", "get_weather", parent),
        *[("TOOL_CALL_ARGS", "call_1", p) for p in split_text('{"city":"Paris"}', 2)],
        ("TOOL_CALL_END", "call_1"),
    ]


async def test_arguments_with_no_item_events_are_sent_once_by_the_committed_call() -> None:
    sdk_events, _ = await record(
        weather_agent(),
        [Turn([Call("get_weather", {"city": "Kyiv"}, chunks=2)]), Turn([Text("ok")])],
    )
    stripped = [
        e for e in sdk_events if not (_is_call_event(e, "added") or _is_call_event(e, "done"))
    ]

    run = await translate_events(stripped)

    parent = parents(run)["call_1"]
    assert tool_events(run) == [
        ("TOOL_CALL_START", "call_1", "get_weather", parent),
        ("TOOL_CALL_ARGS", "call_1", '{"city":"Kyiv"}'),
        ("TOOL_CALL_END", "call_1"),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", "Sunny in Kyiv"),
    ]


# --------------------------------------------------------------------------- hosted calls


@pytest.mark.parametrize(
    ("kind", "call_id", "arguments"),
    [
        ("web_search_call", "ws_1", {"action": {"type": "search", "query": "ag-ui"}}),
        ("file_search_call", "fs_1", {"queries": ["spec"]}),
        ("code_interpreter_call", "ci_1", {"code": "print(1)", "container_id": "cntr_scripted"}),
        ("image_generation_call", "ig_1", None),
    ],
)
async def test_provider_run_calls_report_their_final_status(
    kind: str, call_id: str, arguments: dict[str, Any] | None
) -> None:
    fields: dict[str, Any] = {
        "web_search_call": {"query": "ag-ui"},
        "file_search_call": {"queries": ["spec"]},
        "code_interpreter_call": {"code": "print(1)"},
        "image_generation_call": {},
    }[kind]
    run = await run_agui(
        Agent(name="assistant"), request(), [Turn([Hosted(kind, **fields)]), Turn([Text("ok")])]
    )

    parent = parents(run)[call_id]
    args = [] if arguments is None else [("TOOL_CALL_ARGS", call_id, json.dumps(arguments))]
    assert tool_events(run) == [
        ("TOOL_CALL_START", call_id, kind, parent),
        *args,
        ("TOOL_CALL_END", call_id),
        ("TOOL_CALL_RESULT", f"{call_id}-result", call_id, '{"status": "completed"}'),
    ]


async def test_failed_provider_call_reports_failed() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Hosted("web_search_call", status="failed", query="x")]), Turn([Text("ok")])],
    )

    results = [e for e in tool_events(run) if e[0] == "TOOL_CALL_RESULT"]
    assert results == [("TOOL_CALL_RESULT", "ws_1-result", "ws_1", '{"status": "failed"}')]


async def test_hosted_call_without_arguments_still_opens_and_closes() -> None:
    agent = Agent(name="assistant")
    item = ImageGenerationCall(id="ig_7", type="image_generation_call", status="completed")

    run = await translate_events(
        [item_event("tool_called", ToolCallItem(agent=agent, raw_item=item))]
    )

    parent = parents(run)["ig_7"]
    assert tool_events(run) == [
        ("TOOL_CALL_START", "ig_7", "image_generation_call", parent),
        ("TOOL_CALL_END", "ig_7"),
        ("TOOL_CALL_RESULT", "ig_7-result", "ig_7", '{"status": "completed"}'),
    ]


async def test_hosted_call_with_placeholder_id_gets_a_generated_call_id() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [Turn([Hosted("web_search_call", query="q")], fake_ids=True), Turn([Text("ok")])],
    )

    (start,) = run.of(ToolCallStartEvent)
    call_id = start.tool_call_id
    assert call_id.startswith("call_") and call_id != FAKE_RESPONSES_ID
    assert [e[1] for e in tool_events(run)] == [call_id, call_id, call_id, f"{call_id}-result"]
    held = [
        c.id for m in run.snapshot if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]
    assert held == [call_id]


# --------------------------------------------------------------------------- MCP calls


async def test_mcp_call_streams_its_arguments_and_result() -> None:
    run = await run_agui(
        Agent(name="assistant"),
        request(),
        [
            Turn([Hosted("mcp_call", name="lookup", arguments={"q": "docs"}, output="found it")]),
            Turn([Text("ok")]),
        ],
    )

    parent = parents(run)["mcp_1"]
    assert tool_events(run) == [
        ("TOOL_CALL_START", "mcp_1", "mcp_call", parent),
        ("TOOL_CALL_ARGS", "mcp_1", '{"q":"do'),
        ("TOOL_CALL_ARGS", "mcp_1", 'cs"}'),
        ("TOOL_CALL_END", "mcp_1"),
        ("TOOL_CALL_RESULT", "mcp_1-result", "mcp_1", "found it"),
    ]


def _mcp_call(**fields: Any) -> McpCall:
    values: dict[str, Any] = {
        "id": "mcp_9",
        "type": "mcp_call",
        "server_label": "docs",
        "name": "lookup",
        "arguments": '{"q":1}',
        "status": "completed",
    }
    values.update(fields)
    return McpCall.model_validate(values)


async def test_committed_mcp_call_without_raw_events_streams_call_and_result() -> None:
    agent = Agent(name="assistant")
    item = ToolCallItem(agent=agent, raw_item=_mcp_call(output="42 results"))

    run = await translate_events([item_event("tool_called", item)])

    parent = parents(run)["mcp_9"]
    assert tool_events(run) == [
        ("TOOL_CALL_START", "mcp_9", "mcp_call", parent),
        ("TOOL_CALL_ARGS", "mcp_9", '{"q":1}'),
        ("TOOL_CALL_END", "mcp_9"),
        ("TOOL_CALL_RESULT", "mcp_9-result", "mcp_9", "42 results"),
    ]


async def test_mcp_call_still_in_progress_has_no_result() -> None:
    agent = Agent(name="assistant")
    item = ToolCallItem(agent=agent, raw_item=_mcp_call(status="in_progress"))

    run = await translate_events([item_event("tool_called", item)])

    assert [e[0] for e in tool_events(run)] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
    ]


async def test_failed_mcp_call_reports_a_readable_error() -> None:
    agent = Agent(name="assistant")
    error = {"type": "http_error", "code": 403, "message": "access denied"}
    item = ToolCallItem(agent=agent, raw_item=_mcp_call(status="failed", error=error))

    run = await translate_events([item_event("tool_called", item)])

    (result,) = [e for e in tool_events(run) if e[0] == "TOOL_CALL_RESULT"]
    assert result == ("TOOL_CALL_RESULT", "mcp_9-result", "mcp_9", "Error: access denied")


async def test_completed_mcp_call_without_output_is_not_an_error() -> None:
    run = await run_agui(
        Agent(name="assistant"), request(), [Turn([Hosted("mcp_call")]), Turn([Text("ok")])]
    )

    (result,) = [e for e in tool_events(run) if e[0] == "TOOL_CALL_RESULT"]
    assert result == ("TOOL_CALL_RESULT", "mcp_1-result", "mcp_1", "")


# --------------------------------------------------------------------------- handoffs


async def test_handoff_is_a_tool_call_with_a_result_and_a_step_change() -> None:
    specialist = Agent(name="specialist")
    triage = Agent(name="triage", handoffs=[specialist])

    run = await run_agui(
        triage,
        request(),
        [
            Turn([Text("Passing you on", id="msg_t"), Call("transfer_to_specialist", {})]),
            Turn([Text("Specialist here", id="msg_s")]),
        ],
    )

    assert run.brief[1:-2] == [
        ("STEP_STARTED", "triage"),
        ("TEXT_MESSAGE_START", "msg_t"),
        ("TEXT_MESSAGE_CONTENT", "msg_t", "Passing"),
        ("TEXT_MESSAGE_CONTENT", "msg_t", " you"),
        ("TEXT_MESSAGE_CONTENT", "msg_t", " on"),
        ("TEXT_MESSAGE_END", "msg_t"),
        ("TOOL_CALL_START", "call_1", "transfer_to_specialist", "msg_t"),
        ("TOOL_CALL_ARGS", "call_1", "{}"),
        ("TOOL_CALL_END", "call_1"),
        ("TOOL_CALL_RESULT", "call_1-result", "call_1", '{"assistant": "specialist"}'),
        ("STEP_FINISHED", "triage"),
        ("STEP_STARTED", "specialist"),
        ("TEXT_MESSAGE_START", "msg_s"),
        ("TEXT_MESSAGE_CONTENT", "msg_s", "Specialist"),
        ("TEXT_MESSAGE_CONTENT", "msg_s", " here"),
        ("TEXT_MESSAGE_END", "msg_s"),
        ("STEP_FINISHED", "specialist"),
    ]


# --------------------------------------------------------------------------- parent messages


async def test_call_after_text_names_that_text_as_its_parent() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Text("Let me look", id="msg_look"), Call("get_weather", {"city": "A"})]), Turn([])],
    )

    assert parents(run) == {"call_1": "msg_look"}
    assistant = run.snapshot[1]
    assert isinstance(assistant, AssistantMessage)
    assert (assistant.id, assistant.content) == ("msg_look", "Let me look")
    assert [c.id for c in assistant.tool_calls or []] == ["call_1"]


async def test_call_without_text_gets_a_generated_message_kept_in_the_snapshot() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Call("get_weather", {"city": "A"}), Call("get_weather", {"city": "B"})]), Turn([])],
    )

    found = parents(run)
    assert found["call_1"] == found["call_2"]
    assert found["call_1"].startswith("msg_")
    assistant = run.snapshot[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.id == found["call_1"]
    assert assistant.content is None


async def test_reasoning_between_calls_starts_a_new_message() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [
            Turn(
                [
                    Call("get_weather", {"city": "A"}),
                    Reasoning(summary=["Need one more."], id="rs_mid"),
                    Call("get_weather", {"city": "B"}),
                ]
            ),
            Turn([]),
        ],
    )

    found = parents(run)
    assert found["call_1"] != found["call_2"]
    assert all(p.startswith("msg_") for p in found.values())
    layout = [(m.role, m.id) for m in run.snapshot[1:4]]
    assert layout == [
        ("assistant", found["call_1"]),
        ("reasoning", "rs_mid"),
        ("assistant", found["call_2"]),
    ]


async def test_call_after_a_tool_result_starts_a_new_message() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [
            Turn([Text("First", id="msg_first"), Call("get_weather", {"city": "A"})]),
            Turn([Call("get_weather", {"city": "B"})]),
            Turn([Text("Done", id="msg_done")]),
        ],
    )

    found = parents(run)
    assert found["call_1"] == "msg_first"
    assert found["call_2"].startswith("msg_") and found["call_2"] != "msg_first"
    assert [(m.role, m.id) for m in run.snapshot[1:]] == [
        ("assistant", "msg_first"),
        ("tool", "call_1-result"),
        ("assistant", found["call_2"]),
        ("tool", "call_2-result"),
        ("assistant", "msg_done"),
    ]


async def test_agent_change_between_text_and_call_starts_a_new_message() -> None:
    agent = weather_agent("first")
    sdk_events, _ = await record(
        agent,
        [Turn([Text("Hi", id="msg_hi"), Call("get_weather", {"city": "A"})]), Turn([])],
    )
    call_added = next(i for i, e in enumerate(sdk_events) if _is_call_event(e, "added"))
    changed = [
        *sdk_events[:call_added],
        AgentUpdatedStreamEvent(new_agent=weather_agent("second")),
        *sdk_events[call_added:],
    ]

    run = await translate_events(changed)

    found = parents(run)
    assert found["call_1"] != "msg_hi" and found["call_1"].startswith("msg_")
    steps = [e for e in run.brief if e[0].startswith("STEP_")]
    assert steps == [
        ("STEP_STARTED", "first"),
        ("STEP_FINISHED", "first"),
        ("STEP_STARTED", "second"),
        ("STEP_FINISHED", "second"),
    ]


# --------------------------------------------------------------------------- custom tools


async def test_custom_tool_call_input_is_streamed_as_its_arguments() -> None:
    custom_tool = getattr(agents.tool, "CustomTool", None)
    if custom_tool is None:
        pytest.skip("this openai-agents version has no custom tools")

    async def echo(context: Any, raw_input: str) -> str:
        return f"echo:{raw_input}"

    agent = Agent(
        name="assistant",
        tools=[custom_tool(name="patcher", description="Apply a patch", on_invoke_tool=echo)],
    )
    run = await run_agui(
        agent,
        request(),
        [Turn([Hosted("custom_tool_call", name="patcher", input="RAW INPUT")]), Turn([Text("ok")])],
    )

    streamed = "".join(e[2] for e in tool_events(run) if e[0] == "TOOL_CALL_ARGS")
    assert "RAW INPUT" in streamed
    held = [c for m in run.snapshot if isinstance(m, AssistantMessage) for c in m.tool_calls or []]
    assert [c.function.arguments for c in held] == [streamed]


# --------------------------------------------------------------------------- helpers


def test_hosted_call_arguments_describe_what_the_call_was_asked() -> None:
    search = ResponseFunctionWebSearch.model_validate(
        {
            "id": "ws",
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "q"},
        }
    )
    assert json.loads(hosted_call_arguments(search)) == {"action": {"type": "search", "query": "q"}}
    assert hosted_call_arguments(_mcp_call(arguments='{"a":1}')) == '{"a":1}'
    assert hosted_call_arguments({"type": "image_generation_call"}) == ""
    assert hosted_call_arguments({"type": "shell_call", "action": {"commands": ["ls"]}}) == (
        '{"action": {"commands": ["ls"]}}'
    )


def test_output_text_keeps_strings_and_encodes_everything_else() -> None:
    assert output_text("plain") == "plain"
    assert json.loads(output_text({"a": [1, 2]})) == {"a": [1, 2]}
    assert json.loads(output_text(_mcp_call(output="x"))) == _mcp_call(output="x").model_dump(
        mode="json", exclude_none=True
    )


async def test_tool_results_are_tool_messages_in_the_snapshot() -> None:
    run = await run_agui(
        weather_agent(),
        request(),
        [Turn([Call("get_weather", {"city": "Q"})]), Turn([Text("ok")])],
    )

    tools = [m for m in run.snapshot if isinstance(m, ToolMessage)]
    assert [(m.id, m.tool_call_id, m.content) for m in tools] == [
        ("call_1-result", "call_1", "Sunny in Q")
    ]
