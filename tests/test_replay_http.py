"""The SDK's real OpenAI model classes over HTTP: the next request replays what the API sent.

Each test plays streamed API answers (written from the API reference, see
`support.wire_responses`) to `OpenAIResponsesModel` / `OpenAIChatCompletionsModel` through a
local respx server, runs AG-UI turns through the package, and checks the next request body:
the request checker runs on every Responses request the server receives, and the replayed
items are compared one by one with what the API had returned.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import AssistantMessage, Message, ReasoningMessage, ToolCall
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    function_tool,
)

from support.runs import AguiRun, request, user
from support.wire_responses import (
    WireItem,
    code_interpreter_call,
    compaction,
    function_call,
    mcp_call,
    mcp_list_tools,
    message,
    reasoning,
    responses_body,
    web_search_call,
)
from support.wire_server import ChatToolCall, WireServer, chat_body, run_wire


@function_tool
def lookup(q: str) -> str:
    """Look a word up."""
    return f"found {q}"


def responses_agent(server: WireServer) -> Agent[Any]:
    model = OpenAIResponsesModel(model="gpt-5.5", openai_client=server.client())
    settings = ModelSettings(store=False, response_include=["reasoning.encrypted_content"])
    return Agent(name="assistant", model=model, model_settings=settings, tools=[lookup])


def replayed(items: list[dict[str, Any]], sent: list[WireItem]) -> None:
    """Every item the API sent comes back in `items`, in order, as the API sent it."""
    by_id = {item.get("id"): (index, item) for index, item in enumerate(items) if item.get("id")}
    positions = []
    for wire in sent:
        done = wire.done
        assert done["id"] in by_id, f"{done['type']} {done['id']} was not replayed"
        index, item = by_id[done["id"]]
        positions.append(index)
        assert item["type"] == done["type"]
        if done["type"] == "reasoning":
            assert item["summary"] == done["summary"]
            assert item.get("content") == done.get("content")
            # The value of output_item.done, not the in-progress one nor the completed one.
            assert item["encrypted_content"] == done["encrypted_content"]
        elif done["type"] == "message":
            assert item.get("phase") == done.get("phase")
            assert [part["text"] for part in item["content"]] == [
                part["text"] for part in done["content"]
            ]
        elif done["type"] == "function_call":
            for key in ("call_id", "name", "arguments"):
                assert item[key] == done[key]
        else:
            assert item == done
    assert positions == sorted(positions)
    for number, wire in enumerate(sent[:-1]):
        if wire.done["type"] == "reasoning":
            # Directly followed by the item that followed it.
            assert positions[number + 1] == positions[number] + 1


async def two_runs(server: WireServer, first: list[bytes], second: bytes) -> AguiRun:
    agent = responses_agent(server)
    server.queue(*first)
    run = await run_wire(agent, request(user("Question")))
    assert run.error is None
    server.queue(second)
    history = [*run.snapshot, user("And then?", id="user-2")]
    next_run = await run_wire(agent, request(*history, run_id="run-2"))
    assert next_run.error is None
    return run


TOOL_TURN = [
    reasoning(
        "rs_1",
        ["Reading the question.", "A lookup helps.", "Call it once.", "Then answer."],
        encrypted=("gA-rs1-part", "gA-rs1-done-VALUE", "gA-rs1-final-VALU"),
    ),
    message("msg_1", "Let me look that up.", phase="commentary"),
    function_call("fc_1", "call_1", "lookup", '{"q": "ag-ui"}'),
]
ANSWER_TURN = [
    reasoning("rs_2", ["Have the result."], encrypted=("gA-2", "gA-rs2-done", "gA-rs2-fin")),
    message("msg_2", "It is a protocol.", phase="final_answer"),
]
LAST = responses_body("resp_3", [message("msg_3", "Nothing more.", phase="final_answer")])


async def test_reasoning_phase_and_function_call_come_back_as_the_api_sent_them() -> None:
    server = WireServer()
    await two_runs(
        server,
        [responses_body("resp_1", TOOL_TURN), responses_body("resp_2", ANSWER_TURN)],
        LAST,
    )

    assert len(server.requests) == 3
    items = server.requests[2]["input"]
    replayed(items, TOOL_TURN + ANSWER_TURN)
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds == [
        "user", "reasoning", "message", "function_call", "function_call_output",
        "reasoning", "message", "user",
    ]  # fmt: skip
    assert items[4] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "found ag-ui",
    }
    assert [items[0]["role"], items[-1]["role"]] == ["user", "user"]


async def test_the_sdk_itself_sends_the_same_items_within_a_run() -> None:
    server = WireServer()
    await two_runs(
        server,
        [responses_body("resp_1", TOOL_TURN), responses_body("resp_2", ANSWER_TURN)],
        LAST,
    )
    within = [item for item in server.requests[1]["input"] if item.get("id")]
    across = [item for item in server.requests[2]["input"] if item.get("id")]
    assert [(i["type"], i["id"]) for i in within] == [(i["type"], i["id"]) for i in across[:3]]


HOSTED_TURN = [
    reasoning("rs_h1", ["Search first."], encrypted=("gA-h", "gA-h1-done", "gA-h1-fin")),
    web_search_call("ws_1", "ag-ui protocol"),
    reasoning("rs_h2", ["Now compute."], encrypted=("gA-i", "gA-h2-done", "gA-h2-fin")),
    code_interpreter_call("ci_1", "print(6 * 7)", "42\n"),
    message("msg_h", "The answer is 42.", phase="final_answer"),
]


async def test_hosted_web_search_and_code_interpreter_are_replayed_in_place() -> None:
    server = WireServer()
    run = await two_runs(server, [responses_body("resp_1", HOSTED_TURN)], LAST)

    replayed(server.requests[1]["input"], HOSTED_TURN)
    calls = [c for m in run.snapshot if isinstance(m, AssistantMessage) for c in m.tool_calls or []]
    assert [c.function.name for c in calls] == ["web_search_call", "code_interpreter_call"]
    assert all(c.encrypted_value for c in calls)


MCP_TURN = [
    mcp_list_tools("mcpl_1", "docs", ["search_docs", "fetch_page"]),
    reasoning(
        "rs_m", ["Use the docs server.", "Search it."], encrypted=("a", "gA-m-done", "gA-m-f")
    ),
    mcp_call("mcp_1", "docs", "search_docs", '{"query": "events"}', "17 events"),
    message("msg_m", "There are 17 events.", phase="final_answer"),
]


async def test_hosted_mcp_listing_and_call_are_replayed_in_place() -> None:
    server = WireServer()
    await two_runs(server, [responses_body("resp_1", MCP_TURN)], LAST)
    replayed(server.requests[1]["input"], MCP_TURN)


COMPACTION_TURN = [
    compaction("cmp_1", "gA-compacted-context"),
    reasoning("rs_c", ["Context was compacted."], encrypted=("c", "gA-c-done", "gA-c-fin")),
    message("msg_c", "Continuing.", phase="final_answer"),
]


async def test_compaction_is_replayed_in_place() -> None:
    server = WireServer()
    await two_runs(server, [responses_body("resp_1", COMPACTION_TURN)], LAST)
    replayed(server.requests[1]["input"], COMPACTION_TURN)


REASONING_TEXT_TURN = [
    reasoning(
        "rs_t",
        ["Summary one.", "Summary two."],
        encrypted=("t", "gA-t-done", "gA-t-final"),
        text=["raw thinking"],
    ),
    message("msg_t", "Done.", phase="final_answer"),
]


async def test_reasoning_text_parts_come_back_as_content() -> None:
    server = WireServer()
    await two_runs(server, [responses_body("resp_1", REASONING_TEXT_TURN)], LAST)
    replayed(server.requests[1]["input"], REASONING_TEXT_TURN)


def strip_replay_fields(messages: list[Message]) -> list[Message]:
    """What a client that drops metadata and encrypted values sends back."""
    stripped: list[Message] = []
    for msg in messages:
        update: dict[str, Any] = {"metadata": None}
        if isinstance(msg, ReasoningMessage):
            update["encrypted_value"] = None
        if isinstance(msg, AssistantMessage) and msg.tool_calls:
            update["tool_calls"] = [ToolCall(id=c.id, function=c.function) for c in msg.tool_calls]
        stripped.append(msg.model_copy(update=update))
    return stripped


async def test_a_history_without_replay_fields_still_makes_a_valid_request() -> None:
    server = WireServer()
    agent = responses_agent(server)
    server.queue(responses_body("resp_1", TOOL_TURN), responses_body("resp_2", HOSTED_TURN))
    run = await run_wire(agent, request(user("Question")))
    server.queue(LAST)
    history = [*strip_replay_fields(run.snapshot), user("And then?", id="user-2")]
    await run_wire(agent, request(*history, run_id="run-2"))

    items = server.requests[2]["input"]
    assert not [item for item in items if item.get("type") == "reasoning" or item.get("id")]
    assert [item.get("type", item.get("role")) for item in items] == [
        "user", "assistant", "function_call", "function_call_output", "assistant", "user",
    ]  # fmt: skip


async def test_an_edited_history_drops_reasoning_rather_than_break_its_pair() -> None:
    server = WireServer()
    agent = responses_agent(server)
    server.queue(responses_body("resp_1", HOSTED_TURN))
    run = await run_wire(agent, request(user("Question")))
    # The application removes the assistant message holding the hosted calls.
    hosted = {"ws_1", "ci_1"}
    edited = [
        m
        for m in run.snapshot
        if not (isinstance(m, AssistantMessage) and m.tool_calls)
        and getattr(m, "tool_call_id", None) not in hosted
    ]
    server.queue(LAST)
    await run_wire(agent, request(*edited, user("And then?", id="user-2"), run_id="run-2"))

    items = server.requests[1]["input"]
    # Both reasoning items lost the item that followed them; the message followed the code
    # interpreter call, not a reasoning item, so it keeps its id.
    assert [(item.get("type"), item.get("id")) for item in items if item.get("id")] == [
        ("message", "msg_h")
    ]
    assert not [item for item in items if item.get("type") == "reasoning"]


async def test_chat_completions_tool_calls_and_usage_over_http() -> None:
    server = WireServer()
    model = OpenAIChatCompletionsModel(model="gpt-4.1", openai_client=server.client())
    agent = Agent(name="assistant", model=model, tools=[lookup])
    server.queue(
        chat_body("Checking.", (ChatToolCall("call_c1", "lookup", '{"q": "sse"}'),)),
        chat_body("SSE is a format."),
    )
    run = await run_wire(agent, request(user("What is SSE?")))
    assert run.finished.usage is not None
    assert sum(entry.input_tokens or 0 for entry in run.finished.usage) == 60
    server.queue(chat_body("You are welcome."))
    await run_wire(agent, request(*run.snapshot, user("Thanks", id="user-2"), run_id="run-2"))

    body = server.requests[2]
    assert "__fake_id__" not in str(body)
    # Chat Completions items have no provider ids: the text goes back as its own assistant
    # message before the one with the tool call (the SDK merges them within a run).
    messages = body["messages"]
    assert [m["role"] for m in messages] == [
        "user", "assistant", "assistant", "tool", "assistant", "user",
    ]  # fmt: skip
    assert messages[1] == {"role": "assistant", "content": "Checking."}
    within = server.requests[1]["messages"]
    assert messages[2]["tool_calls"] == within[1]["tool_calls"]
    assert messages[3] == within[2] == {
        "role": "tool", "tool_call_id": "call_c1", "content": "found sse",
    }  # fmt: skip
    assert messages[4] == {"role": "assistant", "content": "SSE is a format."}
