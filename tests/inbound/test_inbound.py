"""AG-UI messages → OpenAI Agents SDK input: one test per row of the message table.

Each row is round-tripped: the translated items go through a real ``Runner.run_streamed`` run
with a scripted model, and the test checks the model received exactly those items.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import pytest
from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    Context,
    DeveloperMessage,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from agents import Agent, FunctionTool, set_tracing_disabled
from agents.items import TResponseInputItem

from ag_ui_openai_agents.inbound.messages import (
    CONTEXT_HEADER,
    AGUIToOpenAITranslator,
    TranslatedInput,
)
from support.scripted import Text, Turn, collect, run_streamed

set_tracing_disabled(True)

INBOUND_LOGGER = "ag_ui_openai_agents.inbound.messages"


def call(call_id: str, name: str, arguments: str = "{}") -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


async def model_input(items: list[TResponseInputItem]) -> list[dict[str, Any]]:
    """Run the items through the real SDK runner; return what the model received."""
    result, model = run_streamed(Agent(name="echo"), items, turns=[Turn([Text("ok")])])
    await collect(result.stream_events())
    assert result.final_output == "ok"
    assert model.call_count == 1
    return model.calls[0].input


async def assert_round_trip(messages: list[Any], expected: list[dict[str, Any]]) -> None:
    """Translate ``messages``, check the items, and check the model received them unchanged."""
    items = AGUIToOpenAITranslator().translate_messages(messages)
    assert items == expected
    assert await model_input(items) == expected


# --- system / developer / user ----------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        SystemMessage(id="sys-1", content="Be brief."),
        DeveloperMessage(id="dev-1", content="Use metric units."),
        UserMessage(id="user-1", content="Say hello.", name="Ada"),
    ],
    ids=lambda message: str(message.role),
)
async def test_text_message_becomes_role_and_content_without_id(message: Any) -> None:
    await assert_round_trip(
        [message, UserMessage(id="u-last", content="Go")],
        [{"role": message.role, "content": message.content}, {"role": "user", "content": "Go"}],
    )


async def test_user_parts_message_becomes_content_list() -> None:
    message = UserMessage(
        id="user-1",
        content=[
            TextPart(text="What is this?"),
            ImagePart(source=UrlSource(value="https://example.com/cat.png")),
        ],
    )
    await assert_round_trip(
        [message],
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {
                        "type": "input_image",
                        "image_url": "https://example.com/cat.png",
                        "detail": "auto",
                    },
                ],
            }
        ],
    )


def test_empty_text_messages_are_not_sent() -> None:
    translator = AGUIToOpenAITranslator()
    items = translator.translate_messages(
        [
            SystemMessage(id="s", content=""),
            UserMessage(id="u", content=""),
            UserMessage(id="u2", content="kept"),
        ]
    )
    assert items == [{"role": "user", "content": "kept"}]


# --- assistant ---------------------------------------------------------------------------------


async def test_assistant_text_becomes_assistant_message_without_id() -> None:
    await assert_round_trip(
        [
            UserMessage(id="u-1", content="Hi"),
            AssistantMessage(id="a-1", content="Hello!"),
            UserMessage(id="u-2", content="Again"),
        ],
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Again"},
        ],
    )


async def test_assistant_tool_calls_become_function_calls_with_unchanged_call_ids() -> None:
    await assert_round_trip(
        [
            UserMessage(id="u-1", content="Weather in Oslo and Rome?"),
            AssistantMessage(
                id="a-1",
                content="Checking both.",
                tool_calls=[
                    call("call_oslo", "get_weather", '{"city": "Oslo"}'),
                    call("call_rome", "get_weather", '{"city": "Rome"}'),
                ],
            ),
            ToolMessage(id="t-1", tool_call_id="call_oslo", content="-3C"),
            ToolMessage(id="t-2", tool_call_id="call_rome", content="18C"),
        ],
        [
            {"role": "user", "content": "Weather in Oslo and Rome?"},
            {"role": "assistant", "content": "Checking both."},
            {
                "type": "function_call",
                "call_id": "call_oslo",
                "name": "get_weather",
                "arguments": '{"city": "Oslo"}',
            },
            {
                "type": "function_call",
                "call_id": "call_rome",
                "name": "get_weather",
                "arguments": '{"city": "Rome"}',
            },
            {"type": "function_call_output", "call_id": "call_oslo", "output": "-3C"},
            {"type": "function_call_output", "call_id": "call_rome", "output": "18C"},
        ],
    )


async def test_assistant_with_empty_text_sends_only_its_calls() -> None:
    await assert_round_trip(
        [
            UserMessage(id="u-1", content="Plan it"),
            AssistantMessage(id="a-1", content="", tool_calls=[call("c1", "plan")]),
            ToolMessage(id="t-1", tool_call_id="c1", content="done"),
        ],
        [
            {"role": "user", "content": "Plan it"},
            {"type": "function_call", "call_id": "c1", "name": "plan", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
        ],
    )


def test_assistant_without_content_or_calls_produces_nothing() -> None:
    translator = AGUIToOpenAITranslator()
    assert translator.translate_assistant_message(AssistantMessage(id="a")) == []
    assert translator.translate_assistant_message(AssistantMessage(id="a", content="")) == []


# --- tool results ------------------------------------------------------------------------------


def tool_exchange(result: ToolMessage) -> list[Any]:
    return [
        UserMessage(id="u-1", content="Go"),
        AssistantMessage(id="a-1", tool_calls=[call(result.tool_call_id, "lookup")]),
        result,
    ]


def exchange_items(call_id: str, output: Any) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Go"},
        {"type": "function_call", "call_id": call_id, "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call_id, "output": output},
    ]


CHART = ImagePart(source=UrlSource(value="https://example.com/chart.png"))
TOOL_RESULT_ROWS: list[tuple[str, ToolMessage, Any]] = [
    ("text", ToolMessage(id="t", tool_call_id="c", content='{"ok": true}'), '{"ok": true}'),
    (
        "text parts joined",
        ToolMessage(id="t", tool_call_id="c", content=[TextPart(text="a"), TextPart(text="b")]),
        "a\nb",
    ),
    (
        "media parts as content list",
        ToolMessage(id="t", tool_call_id="c", content=[TextPart(text="Chart:"), CHART]),
        [
            {"type": "input_text", "text": "Chart:"},
            {"type": "input_image", "image_url": "https://example.com/chart.png", "detail": "auto"},
        ],
    ),
    (
        "empty content with error",
        ToolMessage(id="t", tool_call_id="c", content="", error="Timed out"),
        "Timed out",
    ),
    (
        "content and error keeps content",
        ToolMessage(id="t", tool_call_id="c", content="partial", error="Timed out"),
        "partial",
    ),
]


@pytest.mark.parametrize(
    ("label", "message", "output"), TOOL_RESULT_ROWS, ids=[row[0] for row in TOOL_RESULT_ROWS]
)
async def test_tool_message_becomes_function_call_output(
    label: str, message: ToolMessage, output: Any
) -> None:
    await assert_round_trip(tool_exchange(message), exchange_items("c", output))


def test_tool_message_empty_parts_and_error_sends_error_text() -> None:
    message = ToolMessage(id="t", tool_call_id="c", content=[], error="boom")
    assert AGUIToOpenAITranslator().translate_tool_output(message) == "boom"


# --- reasoning and activity --------------------------------------------------------------------


def replay(**layout: Any) -> dict[str, Any]:
    """Replay metadata as the snapshot writes it (layout version 1)."""
    return {"openai": {"v": 1, **layout}}


ANSWER = AssistantMessage(id="msg_1", content="Answer", metadata=replay(id="msg_1", after="rs_abc"))
ANSWER_ITEM = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Answer", "annotations": []}],
}

REASONING_ROWS: list[tuple[str, ReasoningMessage, list[dict[str, Any]]]] = [
    (
        "with summary",
        ReasoningMessage(
            id="rs_abc",
            content="Weighing options",
            encrypted_value="gAAAA==",
            metadata=replay(id="rs_abc", part="summary", next="msg_1"),
        ),
        [
            {
                "type": "reasoning",
                "id": "rs_abc",
                "summary": [{"type": "summary_text", "text": "Weighing options"}],
                "encrypted_content": "gAAAA==",
            },
            ANSWER_ITEM,
        ],
    ),
    (
        "without summary",
        ReasoningMessage(
            id="rs_abc",
            content="",
            encrypted_value="opaque",
            metadata=replay(id="rs_abc", part="summary", next="msg_1"),
        ),
        [
            {"type": "reasoning", "id": "rs_abc", "summary": [], "encrypted_content": "opaque"},
            ANSWER_ITEM,
        ],
    ),
    (
        "without encrypted value",
        ReasoningMessage(
            id="rs_abc",
            content="plain thoughts",
            metadata=replay(id="rs_abc", part="summary", next="msg_1"),
        ),
        [{"role": "assistant", "content": "Answer"}],
    ),
    (
        "without replay metadata",
        ReasoningMessage(id="rs_abc", content="Weighing options", encrypted_value="gAAAA=="),
        [{"role": "assistant", "content": "Answer"}],
    ),
]


@pytest.mark.parametrize(
    ("label", "message", "expected"), REASONING_ROWS, ids=[row[0] for row in REASONING_ROWS]
)
async def test_reasoning_is_replayed_only_with_encrypted_value_and_its_pair(
    label: str, message: ReasoningMessage, expected: list[dict[str, Any]]
) -> None:
    await assert_round_trip(
        [
            UserMessage(id="u-1", content="Think"),
            message,
            ANSWER,
            UserMessage(id="u-2", content="More"),
        ],
        [
            {"role": "user", "content": "Think"},
            *expected,
            {"role": "user", "content": "More"},
        ],
    )


async def test_activity_message_is_dropped_with_debug_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger=INBOUND_LOGGER)
    activity = ActivityMessage(id="act-1", activity_type="progress", content={"pct": 50})
    await assert_round_trip(
        [UserMessage(id="u-1", content="Hi"), activity, UserMessage(id="u-2", content="Bye")],
        [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Bye"}],
    )
    dropped = [r for r in caplog.records if "act-1" in r.getMessage()]
    assert dropped and all(r.levelno == logging.DEBUG for r in dropped)


# --- unknown messages, plain mappings ------------------------------------------------------------


async def test_unknown_message_roles_are_skipped_not_fatal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=INBOUND_LOGGER)
    stranger = UserMessage.model_construct(id="x-1", role="narrator", content="Once upon a time")
    no_role = object()
    await assert_round_trip(
        [UserMessage(id="u-1", content="Hi"), stranger, no_role, {"id": "m", "role": "robot"}],
        [{"role": "user", "content": "Hi"}],
    )
    # One line for the request, the first of its kind with the number of the others.
    (line,) = [r.getMessage() for r in caplog.records if "unknown role" in r.getMessage()]
    assert (
        line == "Skipping a message with unknown role 'narrator'. (2 more like it in this request)"
    )


async def test_plain_mapping_messages_are_validated_and_translated() -> None:
    await assert_round_trip(
        [
            {"id": "u-1", "role": "user", "content": "Hi"},
            {
                "id": "a-1",
                "role": "assistant",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"id": "t-1", "role": "tool", "toolCallId": "c1", "content": "r"},
            {"id": "bad", "role": "user"},
        ],
        [
            {"role": "user", "content": "Hi"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "r"},
        ],
    )


# --- hosted calls ------------------------------------------------------------------------------


async def test_hosted_calls_and_their_results_are_not_replayed() -> None:
    await assert_round_trip(
        [
            UserMessage(id="u-1", content="Search and compute"),
            AssistantMessage(
                id="a-1",
                content="Searching.",
                tool_calls=[
                    call("ws_1", "web_search_call", '{"query": "x"}'),
                    call("call_2", "compute"),
                    call("mcp_3", "mcp_call"),
                ],
            ),
            ToolMessage(id="ws_1-result", tool_call_id="ws_1", content="completed"),
            ToolMessage(id="call_2-result", tool_call_id="call_2", content="42"),
            ToolMessage(id="mcp_3-result", tool_call_id="mcp_3", content="mcp output"),
            AssistantMessage(id="a-2", tool_calls=[call("ci_4", "code_interpreter_call")]),
            ToolMessage(id="ci_4-result", tool_call_id="ci_4", content="completed"),
        ],
        [
            {"role": "user", "content": "Search and compute"},
            {"role": "assistant", "content": "Searching."},
            {"type": "function_call", "call_id": "call_2", "name": "compute", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_2", "output": "42"},
        ],
    )


def test_hosted_calls_in_plain_mappings_are_recognised() -> None:
    items = AGUIToOpenAITranslator().translate_messages(
        [
            {"id": "u", "role": "user", "content": "Find it"},
            {
                "id": "a",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": "fs_1",
                        "type": "function",
                        "function": {"name": "file_search_call", "arguments": "{}"},
                    }
                ],
            },
            {"id": "fs_1-result", "role": "tool", "toolCallId": "fs_1", "content": "completed"},
        ]
    )
    assert items == [{"role": "user", "content": "Find it"}]


# --- order and the whole request ---------------------------------------------------------------


async def test_long_conversation_keeps_order() -> None:
    await assert_round_trip(
        [
            SystemMessage(id="s", content="sys"),
            UserMessage(id="u1", content="one"),
            ReasoningMessage(
                id="rs_1",
                content="r",
                encrypted_value="enc",
                metadata=replay(id="rs_1", part="summary", next="fc_1"),
            ),
            AssistantMessage(
                id="a1",
                tool_calls=[
                    ToolCall(
                        id="c1",
                        function=FunctionCall(name="t", arguments="{}"),
                        metadata=replay(id="fc_1", after="rs_1"),
                    )
                ],
            ),
            ToolMessage(id="t1", tool_call_id="c1", content="out"),
            AssistantMessage(id="a2", content="two"),
            DeveloperMessage(id="d", content="dev"),
            UserMessage(id="u2", content="three"),
        ],
        [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "one"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "r"}],
                "encrypted_content": "enc",
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "t",
                "arguments": "{}",
                "id": "fc_1",
            },
            {"type": "function_call_output", "call_id": "c1", "output": "out"},
            {"role": "assistant", "content": "two"},
            {"role": "developer", "content": "dev"},
            {"role": "user", "content": "three"},
        ],
    )


def full_request() -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-2",
        parent_run_id="run-1",
        state={"items": ["a"]},
        messages=[UserMessage(id="u-1", content="Hi")],
        tools=[Tool(name="pick_color", description="Let the user pick", parameters=None)],
        context=[Context(description="Page", value="Settings")],
        forwarded_props={"locale": "fr"},
        resume=[ResumeEntry(interrupt_id="call_1", status="resolved", payload={"approved": True})],
    )


async def test_translate_preserves_request_metadata_and_runs() -> None:
    run_input = full_request()
    translated = AGUIToOpenAITranslator().translate(run_input)
    assert isinstance(translated, TranslatedInput)
    assert translated.messages == [{"role": "user", "content": "Hi"}]
    assert [tool.name for tool in translated.tools] == ["pick_color"]
    assert all(isinstance(tool, FunctionTool) for tool in translated.tools)
    assert (translated.thread_id, translated.run_id, translated.parent_run_id) == (
        "thread-1",
        "run-2",
        "run-1",
    )
    assert translated.state == {"items": ["a"]}
    assert translated.context == run_input.context
    assert translated.forwarded_props == {"locale": "fr"}
    assert translated.resume == run_input.resume
    assert await model_input(translated.messages) == translated.messages


def test_translate_defaults_for_absent_fields() -> None:
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[])
    translated = AGUIToOpenAITranslator().translate(run_input)
    assert translated.messages == []
    assert translated.tools == []
    assert translated.parent_run_id is None
    assert translated.state is None
    assert translated.context == []
    assert translated.forwarded_props is None
    assert translated.resume is None


def test_translated_input_is_frozen() -> None:
    translated = AGUIToOpenAITranslator().translate(full_request())
    assert dataclasses.is_dataclass(translated)
    with pytest.raises(dataclasses.FrozenInstanceError):
        translated.run_id = "other"  # type: ignore[misc]


def test_translate_does_not_mutate_the_request() -> None:
    run_input = full_request()
    before = run_input.model_dump()
    AGUIToOpenAITranslator().translate(run_input)
    assert run_input.model_dump() == before


# --- context -----------------------------------------------------------------------------------


def test_translate_context_renders_header_and_lines() -> None:
    rendered = AGUIToOpenAITranslator().translate_context(
        [
            Context(description="Current page", value="Billing"),
            Context(description="User plan", value="Pro"),
        ]
    )
    assert rendered == f"{CONTEXT_HEADER}\nCurrent page: Billing\nUser plan: Pro"
    assert rendered.splitlines()[0] == "Context from the application:"


def test_translate_context_is_empty_without_items() -> None:
    translator = AGUIToOpenAITranslator()
    assert translator.translate_context([]) == ""
    assert translator.translate_context(None) == ""


# --- customisation and reuse -------------------------------------------------------------------


class ShoutingSystem(AGUIToOpenAITranslator):
    def translate_system_message(self, message: SystemMessage) -> list[TResponseInputItem]:
        return [{"role": "system", "content": message.content.upper()}]


async def test_subclass_override_changes_only_that_mapping() -> None:
    messages: list[Any] = [
        SystemMessage(id="s", content="be brief"),
        UserMessage(id="u", content="be brief"),
        AssistantMessage(id="a", content="be brief"),
        UserMessage(id="u2", content="next"),
    ]
    base = AGUIToOpenAITranslator().translate_messages(messages)
    custom = ShoutingSystem().translate_messages(messages)
    assert custom[0] == {"role": "system", "content": "BE BRIEF"}
    assert custom[1:] == base[1:]
    assert base[0] == {"role": "system", "content": "be brief"}
    assert await model_input(custom) == custom


class NoImages(AGUIToOpenAITranslator):
    def translate_image_part(self, part: ImagePart) -> None:
        return None


def test_part_override_changes_only_that_part_kind() -> None:
    message = UserMessage(
        id="u",
        content=[TextPart(text="see"), ImagePart(source=UrlSource(value="https://x/y.png"))],
    )
    base = AGUIToOpenAITranslator().translate_messages([message])
    custom = NoImages().translate_messages([message])
    assert custom == [{"role": "user", "content": [{"type": "input_text", "text": "see"}]}]
    first: dict[str, Any] = dict(base[0])
    assert [part["type"] for part in first["content"]] == ["input_text", "input_image"]


async def test_one_translator_serves_concurrent_runs() -> None:
    translator = AGUIToOpenAITranslator()

    async def one(n: int) -> bool:
        translated = translator.translate(
            RunAgentInput(
                thread_id=f"t{n}",
                run_id=f"r{n}",
                messages=[UserMessage(id=f"u{n}", content=f"message {n}")],
            )
        )
        await asyncio.sleep(0)
        received = await model_input(translated.messages)
        return received == [{"role": "user", "content": f"message {n}"}]

    assert all(await asyncio.gather(*(one(n) for n in range(8))))
