"""Every example played through the real TypeScript AG-UI clients (1.0 and 0.0.59), and the
subagents example through 0.0.57 too (the Dojo's), by default and with the subagents opt-in.

The clients validate each event and the order of the whole stream; a rejected run fails its
turn. Skipped when Node is not installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.e2e import ensure_node_modules, run_client, serve_app, turn_errors

from agents_examples import ExampleSettings
from dojo_pages import (
    A2UI_CONTEXT,
    A2UI_MARK,
    CHANGE_BACKGROUND,
    CONFIRM_CHANGES,
    DOCUMENT_STATE,
    RECIPE_STATE,
    RENDER_A2UI,
    TRAVEL_STATE,
    WRITE_DOCUMENT,
    attachment_parts_json,
)
from example_client import HAIKU, TASK_STEPS
from server import create_app

pytestmark = pytest.mark.slow

SCENARIOS: dict[str, dict[str, Any]] = {
    "agentic_chat": {"turns": [{"user": "Say hello in one sentence."}, {"user": "Once more."}]},
    "v1_agentic_chat": {"turns": [{"user": "Hello"}, {"user": "Once more."}]},
    "backend_tool_rendering": {"turns": [{"user": "What's the weather in Paris?"}]},
    "media_results": {
        "turns": [
            {"user": "Draw a chart of monthly sales"},
            {"user": "Generate a picture of a sunset"},
            {"user": "Thanks!"},
        ]
    },
    "human_in_the_loop": {
        "tools": [TASK_STEPS.model_dump(mode="json")],
        "turns": [
            {"user": "Plan the steps to bake a cake"},
            {"toolResult": {"content": "The user kept every step."}},
        ],
    },
    "human_in_the_loop_approval": {
        "turns": [
            {"user": "Please refund 30 dollars on order A-17"},
            {"resume": {"payload": {"approved": True}}},
            {"user": "Refund 5 dollars on order B-2"},
            {"resume": {"payload": {"approved": False}}},
            {"user": "Refund 7 dollars on order C-3"},
            {"resume": {"status": "cancelled"}},
        ]
    },
    "tool_based_generative_ui": {
        "tools": [HAIKU.model_dump(mode="json")],
        "turns": [
            {"user": "Write a haiku about autumn leaves"},
            {"toolResult": {"content": "Haiku shown."}},
        ],
    },
    "subagents": {
        "turns": [
            {"user": "Write a short article about the history of AI"},
            {"user": "What is 2 + 2?"},
        ]
    },
    "custom_lifecycle_events": {
        "turns": [{"user": "Count the words in: the quick brown fox"}, {"user": "Thanks!"}]
    },
    "dynamic_system_prompt": {
        "context": [
            {"description": "Reply language", "value": "French"},
            {"description": "User name", "value": "Ada"},
        ],
        "turns": [{"user": "Who am I?"}],
    },
    "agentic_chat_reasoning": {
        "tools": [CHANGE_BACKGROUND.model_dump(mode="json")],
        "turns": [
            {"user": "What is the best car to buy?"},
            {"user": "Change the background to something new."},
            {"toolResult": {"content": "Background changed."}},
        ],
    },
    "agentic_chat_multimodal": {
        "turns": [
            {"user": attachment_parts_json("Describe what you see in the image I upload.")},
            {"user": "Which file was the text?"},
        ]
    },
    "agentic_generative_ui": {
        "turns": [{"user": "Please build a plan to go to mars in 5 steps."}, {"user": "Thanks!"}]
    },
    "shared_state": {
        "state": RECIPE_STATE,
        "turns": [
            {"user": "Create a delicious Italian pasta recipe."},
            {"user": "Improve the recipe"},
            {"user": "What are the ingredients?"},
        ],
    },
    "subgraphs": {
        "state": TRAVEL_STATE,
        "turns": [
            {"user": "Plan a trip to San Francisco"},
            {"user": "Book the United flight instead"},
        ],
    },
    "predictive_state_updates": {
        "tools": [WRITE_DOCUMENT.model_dump(mode="json"), CONFIRM_CHANGES.model_dump(mode="json")],
        "state": DOCUMENT_STATE,
        "turns": [
            {"user": "Please write a story about a pirate named Candy Beard."},
            {"toolResult": {"toolName": "confirm_changes", "content": {"accepted": True}}},
            {"user": "Please add a character named Courage."},
            {"toolResult": {"toolName": "confirm_changes", "content": {"accepted": False}}},
        ],
    },
    "a2ui_fixed_schema": {
        "turns": [
            {"user": "Find flights from SFO to JFK for next Tuesday."},
            {"user": "Find hotels in downtown Manhattan for next weekend."},
        ]
    },
    **{
        name: {
            "tools": [RENDER_A2UI.model_dump(mode="json")],
            "context": [entry.model_dump(mode="json") for entry in A2UI_CONTEXT],
            "forwardedProps": A2UI_MARK,
            "turns": turns,
        }
        for name, turns in {
            "a2ui_dynamic_schema": [
                {"user": "Compare 3 luxury hotels in different cities with ratings and prices."},
                {"user": "Show a team of 4 people with their roles and departments."},
            ],
            "a2ui_advanced": [
                {"user": "Use the generate_a2ui tool to create a product comparison of 3 phones"}
            ],
            "a2ui_recovery": [
                {"user": "Compare 3 luxury hotels with ratings and prices."},
                {"user": "Compare 3 broken hotels with ratings and prices."},
                {"user": "Thanks, tell me in words instead"},
            ],
        }.items()
    },
    "ag_ui_docs_copilot": {
        "turns": [
            {"user": "What does the README say about examples?"},
            {"user": "List the headings of the AG-UI protocol docs"},
            {"user": "What does the AG-UI protocol say about interrupts?"},
        ]
    },
}

# What each Dojo page looks for, as the real client delivered it: per turn, the names of the
# tool calls it renders, and the CUSTOM events it listens for.
TOOL_NAMES: dict[str, list[list[str]]] = {
    "predictive_state_updates": [
        ["write_document_local", "confirm_changes"],
        [],
        ["write_document_local", "confirm_changes"],
        [],
    ],
    "a2ui_fixed_schema": [["search_flights"], ["search_hotels"]],
    "a2ui_dynamic_schema": [["generate_a2ui"], ["generate_a2ui"]],
    "a2ui_advanced": [["generate_a2ui"]],
    "a2ui_recovery": [["generate_a2ui"], ["generate_a2ui"], []],
    "subagents": [["research_topic", "write_prose", "critique_draft"], []],
    "ag_ui_docs_copilot": [
        ["read_ag_ui_openai_agents_docs"],
        ["read_ag_ui_protocol_docs"],
        ["read_ag_ui_protocol_docs"],
    ],
}


def _tool_names(events: list[dict[str, Any]]) -> list[str]:
    """The tool calls the agent itself made (its subagents' calls carry ``subagentRunId``)."""
    return [
        e["toolCallName"]
        for e in events
        if e["type"] == "TOOL_CALL_START" and "subagentRunId" not in e
    ]


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    ensure_node_modules()
    with serve_app(create_app(ExampleSettings.offline_demo())) as url:
        yield url


@pytest.mark.parametrize("client", ["v1", "v0"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_real_client_accepts_every_turn(base_url: str, name: str, client: str) -> None:
    scenario = {"url": f"{base_url}/{name}", "threadId": f"{name}-{client}", **SCENARIOS[name]}
    result = run_client(client, scenario)  # type: ignore[arg-type]
    assert result["ok"], turn_errors(result)
    outcomes = [turn["outcome"] for turn in result["turns"]]
    if name == "human_in_the_loop_approval":
        assert [o["type"] for o in outcomes] == ["interrupt", "success"] * 3
    events = [turn["events"] for turn in result["turns"]]
    if name in TOOL_NAMES:
        assert [_tool_names(turn) for turn in events] == TOOL_NAMES[name]
    if name == "subagents":
        _check_subagents(events, shown=client == "v1")
    if name == "custom_lifecycle_events":
        for turn in events:
            assert [e["type"] for e in turn[-3:]] == ["MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]
            assert turn[-2]["name"] == "run_usage"
            assert set(turn[-2]["value"]) == {"input_tokens", "output_tokens"}
    if name == "dynamic_system_prompt":
        assert _text(events[0]) == "Vous êtes Ada, d'après la page."
    if name in PAGE_CHECKS:
        PAGE_CHECKS[name](result["turns"])
    if name == "media_results":
        check_media(result["turns"], parts=client == "v1")
    if name in {"human_in_the_loop", "tool_based_generative_ui"} and client == "v1":
        assert outcomes[0]["pendingToolCallIds"], "the frontend tool call is left to the client"
        assert not outcomes[1].get("pendingToolCallIds")


def _types(turn: dict[str, Any]) -> list[str]:
    return [str(kind) for kind in turn["eventTypes"]]


def _check_reasoning(turns: list[dict[str, Any]]) -> None:
    """The reasoning reached the client before the answer; the background call waited for it."""
    types = _types(turns[0])
    assert types.index("REASONING_START") < types.index("TEXT_MESSAGE_START")
    assert [call["name"] for call in turns[1]["pendingToolCalls"]] == ["change_background"]


def _check_multimodal(turns: list[dict[str, Any]]) -> None:
    """The attachments were described, and went out again with the next request."""
    assert "You attached an image (image/png" in _text(turns[0]["events"])
    kinds = [part["type"] for part in turns[1]["request"]["messages"][0]["content"]]
    assert kinds == ["text", "image", "document"]


def _check_generative_ui(turns: list[dict[str, Any]]) -> None:
    """The client's state holds the five steps, all completed: it applied the snapshot and the
    five patches that completed them."""
    steps = turns[0]["state"]["steps"]
    assert [step["status"] for step in steps] == ["completed"] * 5
    assert _types(turns[0]).count("STATE_SNAPSHOT") == 1
    assert _types(turns[0]).count("STATE_DELTA") == 5
    assert turns[1]["request"]["state"] == turns[0]["state"]


def _check_shared_state(turns: list[dict[str, Any]]) -> None:
    """The recipe reached the client's state, and the client sent it back."""
    assert turns[0]["state"]["recipe"]["title"] == "Garlic Tomato Pasta"
    assert turns[1]["request"]["state"] == turns[0]["state"]
    assert turns[2]["state"] == turns[1]["state"]


def _check_subgraphs(turns: list[dict[str, Any]]) -> None:
    """The client's itinerary was built, then changed."""
    first, second = (turn["state"]["itinerary"] for turn in turns)
    assert (first["flight"]["airline"], first["hotel"]["name"]) == ("KLM", "Hotel Zoe")
    assert second["flight"]["airline"] == "United"
    assert turns[0]["state"]["active_agent"] == "supervisor"


def _check_document(turns: list[dict[str, Any]]) -> None:
    """The client's state holds the document written by the call CopilotKit was told about
    (PredictState), and the edited one after; the rejection went back as the page sends it."""
    predicted = [e for e in turns[0]["events"] if e["type"] == "CUSTOM"]
    assert [e["name"] for e in predicted] == ["PredictState"]
    assert turns[0]["state"]["document"].startswith("# Candy Beard the Pirate")
    assert "a stranger named Courage arrived" in turns[2]["state"]["document"]
    assert _text(turns[3]["events"]).startswith("You rejected the changes")


def _results(turn: dict[str, Any]) -> list[str]:
    return [
        e["content"]
        for e in turn["events"]
        if e["type"] == "TOOL_CALL_RESULT" and "subagentRunId" not in e
    ]


def _check_surfaces(turns: list[dict[str, Any]]) -> None:
    """Every surface tool's result is an A2UI envelope (or, for the broken hotels, the failure
    one), and the chat went on."""
    for turn in turns:
        for content in _results(turn):
            parsed = json.loads(content)
            assert "a2ui_operations" in parsed or parsed["code"] == "a2ui_recovery_exhausted"
    assert _text(turns[-1]["events"])


def check_media(turns: list[dict[str, Any]], *, parts: bool) -> None:
    """A 1.0 client gets the chart and the generated picture as content parts, sends them back
    as they came, and follows the picture's activity (its messages keep it); an older client gets
    the results as text and no activity. The next turn is accepted either way."""
    chart, picture, thanks = turns
    (chart_result,) = _results(chart)
    (picture_result,) = _results(picture)
    activity = [e for e in picture["events"] if e["type"].startswith("ACTIVITY_")]
    held = [m for m in picture["messages"] if m["role"] == "activity"]
    if parts:
        text, image = chart_result
        assert text["text"].startswith("Monthly sales, Jan to Jun")
        assert image["source"]["type"] == "data" and image["source"]["mimeType"] == "image/png"
        assert image["metadata"] == {"detail": "low", "openai": {"v": 1}}
        assert [p["type"] for p in picture_result] == ["text", "image"]
        assert [e["type"] for e in activity][:2] == ["ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"]
        assert {e["activityType"] for e in activity} == {"image_generation"}
        assert [(m["activityType"], m["content"]) for m in held] == [
            ("image_generation", {"status": "completed"})
        ]
        sent = [m["content"] for m in thanks["request"]["messages"] if m["role"] == "tool"]
        assert sent == [chart_result, picture_result]  # the parts go back as they came
    else:
        assert isinstance(chart_result, str) and '"input_image"' in chart_result
        assert picture_result == '{"status": "completed"}'
        assert activity == [] and held == []
    assert _text(thanks["events"])


PAGE_CHECKS = {
    "predictive_state_updates": _check_document,
    "a2ui_fixed_schema": _check_surfaces,
    "a2ui_dynamic_schema": _check_surfaces,
    "a2ui_advanced": _check_surfaces,
    "a2ui_recovery": _check_surfaces,
    "agentic_chat_reasoning": _check_reasoning,
    "agentic_chat_multimodal": _check_multimodal,
    "agentic_generative_ui": _check_generative_ui,
    "shared_state": _check_shared_state,
    "subgraphs": _check_subgraphs,
}


@pytest.fixture(scope="module")
def opted_in_url() -> Iterator[str]:
    """The example server with ``subagents_for_pre_1_0_clients`` on."""
    ensure_node_modules()
    settings = ExampleSettings.offline_demo(subagents_for_pre_1_0_clients=True)
    with serve_app(create_app(settings)) as url:
        yield url


def test_0_0_57_accepts_every_turn_of_the_subagents_example(base_url: str) -> None:
    """The Dojo's client: the three calls and their results, no subagent events."""
    scenario = {
        "url": f"{base_url}/subagents",
        "threadId": "subagents-v057",
        **SCENARIOS["subagents"],
    }
    result = run_client("v057", scenario)
    assert result["ok"], turn_errors(result)
    events = [turn["events"] for turn in result["turns"]]
    assert [_tool_names(turn) for turn in events] == TOOL_NAMES["subagents"]
    _check_subagents(events, shown=False)


@pytest.mark.parametrize("client", ["v1", "v0"])
def test_opt_in_shows_the_subagents_to_both_clients(opted_in_url: str, client: str) -> None:
    scenario = {
        "url": f"{opted_in_url}/subagents",
        "threadId": f"subagents-opted-in-{client}",
        **SCENARIOS["subagents"],
    }
    result = run_client(client, scenario)  # type: ignore[arg-type]
    assert result["ok"], turn_errors(result)
    events = [turn["events"] for turn in result["turns"]]
    assert [_tool_names(turn) for turn in events] == TOOL_NAMES["subagents"]
    _check_subagents(events, shown=True)


def _check_subagents(turns: list[list[dict[str, Any]]], *, shown: bool) -> None:
    """The three specialists streamed as subagents inside the manager's calls, then none; or,
    not ``shown``, the manager's calls and their results only."""
    first, second = turns
    assert not any(e["type"].startswith("SUBAGENT_") for e in second)
    if not shown:
        assert not any(e["type"].startswith("SUBAGENT_") or "subagentRunId" in e for e in first)
        assert sum(e["type"] == "TOOL_CALL_RESULT" for e in first) == 3
        return
    started = [e for e in first if e["type"] == "SUBAGENT_STARTED"]
    assert [e["name"] for e in started] == ["Researcher", "Writer", "Critic"]
    calls = [
        e["toolCallId"]
        for e in first
        if e["type"] == "TOOL_CALL_START" and "subagentRunId" not in e
    ]
    assert [e["parentToolCallId"] for e in started] == calls
    for sub in started:
        own = [e for e in first if e.get("subagentRunId") == sub["subagentRunId"]]
        kinds = {e["type"] for e in own}
        assert {"TOOL_CALL_START", "TOOL_CALL_RESULT", "TEXT_MESSAGE_CONTENT"} <= kinds
        assert own[-1]["type"] == "SUBAGENT_FINISHED"
