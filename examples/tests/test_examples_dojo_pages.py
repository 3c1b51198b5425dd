"""The new examples answered as the AG-UI Dojo's end-to-end runs answer them: by a mock of the
OpenAI API that matches the last user message and replies with the fixtures' fixed reasoning,
text or tool calls (their names and argument shapes), and with "Done!" once a tool result is the
last message. The examples' tool names and schemas must take those answers as they are, so the
same mock drives them. Over HTTP, for a 1.0 client and for one that sends no
``protocolVersion`` (as the Dojo's CopilotKit runtime does).
"""

from __future__ import annotations

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
from dojo_pages import RECIPE_STATE, attachment_message
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
    """The Dojo mock's rule: a tool result last gets the generic reply, else the first answer
    whose key the last user message contains."""
    if call.input and call.input[-1].get("type") == "function_call_output":
        return Turn([Text(TOOL_RESULT_REPLY)])
    users = [i for i in call.input if i.get("role") == "user"]
    text = _user_text(users[-1]) if users else ""
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
