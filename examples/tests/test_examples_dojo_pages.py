"""The new examples answered as the AG-UI Dojo's end-to-end runs answer them: by a mock of the
OpenAI API that matches the last user message and replies with the fixtures' fixed reasoning,
text or tool calls (their names and argument shapes), and with "Done!" once a tool result is the
last message. The examples' tool names and schemas must take those answers as they are, so the
same mock drives them. Over HTTP, for a 1.0 client and for one that sends no
``protocolVersion`` (as the Dojo's CopilotKit runtime does).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import pytest
from ag_ui.core import EventType, RunFinishedSuccessOutcome
from agents import RunConfig
from support.scripted import (
    Call,
    Reasoning,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
)

from agents_examples import ExampleSettings, agentic_generative_ui
from dojo_mock_a2ui import FLIGHTS, HOTELS, STORY, mock_a2ui, operations
from dojo_pages import (
    A2UI_CONTEXT,
    A2UI_MARK,
    CONFIRM_CHANGES,
    DOCUMENT_STATE,
    RECIPE_STATE,
    RENDER_A2UI,
    WRITE_DOCUMENT,
    attachment_message,
)
from example_client import Chat, Run
from server import create_app

TOOL_RESULT_REPLY = "Done! I've completed that for you."

BROWNIE_STEPS = [
    {"description": "Gathering the cocoa, butter, eggs and flour", "status": "pending"},
    {"description": "Melting the butter into the cocoa", "status": "pending"},
    {"description": "Folding in the eggs and flour", "status": "pending"},
    {"description": "Baking for 25 minutes", "status": "pending"},
]
PASTA = {
    "skill_level": "Intermediate",
    "special_preferences": [],
    "cooking_time": "45 min",
    "ingredients": [
        {"icon": "🍝", "name": "Penne", "amount": "350g"},
        {"icon": "🧄", "name": "Garlic", "amount": "3 cloves"},
        {"icon": "🍅", "name": "Passata", "amount": "500 ml"},
    ],
    "instructions": ["Cook the penne", "Simmer the garlic in the passata", "Combine and serve"],
}
"""A recipe shaped as the fixtures write it: no title, so the page keeps its own."""

MOCK_ANSWERS: Mapping[str, Turn] = {
    "best car to buy": Turn(
        [
            Reasoning(summary=["Weighing reliability, value and running costs."]),
            Text("1. **Toyota Camry**: reliable\n2. **Honda Civic**: economical"),
        ]
    ),
    "what do you see in this image": Turn([Text("I can see the image you shared.")]),
    "plan to make brownies": Turn(
        [Call("generate_task_steps_generative_ui", {"steps": BROWNIE_STEPS})]
    ),
    "pasta recipe": Turn([Call("updateWorkingMemory", {"memory": {"recipe": PASTA}})]),
    "Hello": Turn([Text("Hello! How can I help you today?")]),
}


def _user_text(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in content or [] if isinstance(p, Mapping))


def mock_openai(call: RecordedCall) -> Turn:
    """The Dojo mock's rule: a tool result last gets the generic reply, then the A2UI
    predicates (on the request's tools, the user's words and the prompt), else the first answer
    whose key the last user message contains."""
    if call.input and call.input[-1].get("type") == "function_call_output":
        return Turn([Text(TOOL_RESULT_REPLY)])
    users = [i for i in call.input if i.get("role") == "user"]
    text = _user_text(users[-1]) if users else ""
    a2ui = mock_a2ui(call, text)
    if a2ui is not None:
        return a2ui
    for key, turn in MOCK_ANSWERS.items():
        if key.lower() in text.lower():
            return turn
    raise AssertionError(f"no mock answer for {text!r}")


@pytest.fixture
def model() -> ScriptedResponsesModel:
    return ScriptedResponsesModel(mock_openai)


@pytest.fixture
async def mocked(model: ScriptedResponsesModel) -> AsyncIterator[httpx.AsyncClient]:
    """The example server with every model call answered by the mock."""
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    app = create_app(ExampleSettings(run_config=config))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


def success(run: Run) -> None:
    assert isinstance(run.finished.outcome, RunFinishedSuccessOutcome), run.finished.outcome


async def test_reasoning_page(
    mocked: httpx.AsyncClient, model: ScriptedResponsesModel, protocol_version: str | None
) -> None:
    chat = Chat(mocked, "/agentic_chat_reasoning", protocol_version=protocol_version)
    run = await chat.say("What is the best car to buy?")
    assert run.types.index(EventType.REASONING_START) < run.types.index(
        EventType.TEXT_MESSAGE_START
    )
    assert "**Toyota Camry**" in run.text
    settings = model.calls[0].model_settings
    assert settings.reasoning is not None and settings.reasoning.summary == "auto"
    success(run)


async def test_multimodal_page(
    mocked: httpx.AsyncClient, model: ScriptedResponsesModel, protocol_version: str | None
) -> None:
    chat = Chat(mocked, "/agentic_chat_multimodal", protocol_version=protocol_version)
    run = await chat.say_message(attachment_message("u1", "What do you see in this image?"))
    assert run.text == "I can see the image you shared."
    [user] = [item for item in model.calls[0].input if item.get("role") == "user"]
    parts = user["content"]
    assert [part["type"] for part in parts] == ["input_text", "input_image", "input_file"]
    assert parts[1]["image_url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert parts[2]["filename"] == "notes.txt"
    assert parts[2]["file_data"].startswith("data:text/plain;base64,")
    success(run)


async def test_agentic_generative_ui_page(
    mocked: httpx.AsyncClient, protocol_version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agentic_generative_ui, "STEP_SECONDS", 0)
    chat = Chat(mocked, "/agentic_generative_ui", protocol_version=protocol_version)
    run = await chat.say("Please make a plan to make brownies")
    states = run.states({})
    assert [s["status"] for s in states[0]["steps"]] == ["pending"] * 4
    assert states[-1]["steps"] == [{**step, "status": "completed"} for step in BROWNIE_STEPS]
    assert run.state_kinds == [EventType.STATE_SNAPSHOT] + [EventType.STATE_DELTA] * 4
    assert run.text == TOOL_RESULT_REPLY
    success(run)


async def test_shared_state_page(mocked: httpx.AsyncClient, protocol_version: str | None) -> None:
    chat = Chat(mocked, "/shared_state", state=RECIPE_STATE, protocol_version=protocol_version)
    run = await chat.say("Give me a pasta recipe")
    [snapshot] = run.state_snapshots
    assert snapshot == {"recipe": {**PASTA, "title": "Make Your Recipe"}}
    assert run.text == TOOL_RESULT_REPLY
    success(run)


async def test_v1_chat_page(mocked: httpx.AsyncClient, protocol_version: str | None) -> None:
    run = await Chat(mocked, "/v1_agentic_chat/", protocol_version=protocol_version).say("Hello")
    assert run.text == "Hello! How can I help you today?"
    success(run)


async def test_predictive_state_page(
    mocked: httpx.AsyncClient, protocol_version: str | None
) -> None:
    def editor(state: dict[str, Any]) -> Chat:
        tools = [WRITE_DOCUMENT, CONFIRM_CHANGES]
        return Chat(
            mocked,
            "/predictive_state_updates",
            tools=tools,
            state=state,
            protocol_version=protocol_version,
        )

    chat = editor(DOCUMENT_STATE)
    run = await chat.say("Write a story about a dragon called Atlantis")
    assert run.custom("PredictState").value[0]["tool"] == "write_document_local"
    assert chat.state == {"document": STORY}
    assert run.text == TOOL_RESULT_REPLY  # The fixtures never call confirm_changes.
    success(run)
    chat = editor({"document": STORY})  # The page's editor holds the story.
    rename = await chat.say("Change dragon name to Lola")
    assert chat.state == {"document": STORY.replace("Atlantis", "Lola")}
    success(rename)


@pytest.mark.parametrize(
    ("prompt", "key", "data"),
    [
        ("Find flights from SFO to JFK for next Tuesday.", "flights", FLIGHTS),
        ("Find hotels in downtown Manhattan for next weekend.", "hotels", HOTELS),
    ],
)
async def test_a2ui_fixed_schema_page(
    mocked: httpx.AsyncClient,
    protocol_version: str | None,
    prompt: str,
    key: str,
    data: list[dict[str, Any]],
) -> None:
    run = await Chat(mocked, "/a2ui_fixed_schema", protocol_version=protocol_version).say(prompt)
    [(call_id, _, _)] = run.tool_calls
    ops = operations(run.results[call_id])
    assert ops["updateDataModel"]["updateDataModel"]["value"] == {key: data}
    assert run.text == TOOL_RESULT_REPLY
    success(run)


def _marked(client: httpx.AsyncClient, path: str, version: str | None) -> Chat:
    return Chat(
        client,
        path,
        tools=[RENDER_A2UI],
        context=A2UI_CONTEXT,
        forwarded_props=A2UI_MARK,
        protocol_version=version,
    )


@pytest.mark.parametrize(
    ("path", "prompt", "surface"),
    [
        ("/a2ui_dynamic_schema", "Compare 3 hotels in different cities", "hotel-cards"),
        (
            "/a2ui_advanced",
            "Use the generate_a2ui tool to create a product comparison",
            "product-cards",
        ),
        ("/a2ui_advanced", "Use the generate_a2ui tool to create a team directory", "team-cards"),
    ],
)
async def test_a2ui_dynamic_schema_pages(
    mocked: httpx.AsyncClient, protocol_version: str | None, path: str, prompt: str, surface: str
) -> None:
    run = await _marked(mocked, path, protocol_version).say(prompt)
    [(call_id, name, _)] = run.tool_calls
    assert name == "generate_a2ui"
    ops = operations(run.results[call_id])
    assert ops["createSurface"]["createSurface"]["surfaceId"] == surface
    assert run.text == TOOL_RESULT_REPLY
    success(run)


async def test_a2ui_recovery_page(
    mocked: httpx.AsyncClient, model: ScriptedResponsesModel, protocol_version: str | None
) -> None:
    recovered = await _marked(mocked, "/a2ui_recovery", protocol_version).say(
        "Compare 3 luxury hotels with ratings and prices."
    )
    [(call_id, _, _)] = recovered.tool_calls
    components = operations(recovered.results[call_id])["updateComponents"]["updateComponents"]
    assert [c["id"] for c in components["components"]] == ["root", "card"]
    renders = [c for c in model.calls if "render_a2ui" in c.tool_names]
    assert len(renders) == 2 and "Previous attempt was invalid" in (renders[1].instructions or "")
    assert renders[1].model_settings.tool_choice == "render_a2ui"
    success(recovered)

    failed = await _marked(mocked, "/a2ui_recovery", protocol_version).say(
        "Compare 3 broken hotels with ratings and prices."
    )
    [(call_id, _, _)] = failed.tool_calls
    assert json.loads(failed.results[call_id])["code"] == "a2ui_recovery_exhausted"
    assert len([c for c in model.calls if "render_a2ui" in c.tool_names]) == 2 + 3
    assert failed.text == TOOL_RESULT_REPLY
    success(failed)
