"""The Dojo's pages for this integration, answered by a mock of its fixtures
(:mod:`dojo_mock_agents`), over HTTP as its CopilotKit runtime posts (no ``protocolVersion``)
and as an AG-UI 1.0 client does.

- Subagents: every specialist's request matches the fixture its instructions key on, so the
  manager delegates once to each and ends with the article (with instructions the fixtures do
  not know, the researcher's request would match nothing and the manager would call it again
  until the SDK's turn limit).
- Approval: the page's refund of order ORD-1001 pauses, is asked with CUSTOM
  ``approval_request`` and answered through ``forwardedProps.approval``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from ag_ui.core import CustomEvent, RunFinishedSuccessOutcome
from ag_ui_openai_agents import SQLiteThreadStore
from agents import RunConfig
from support.scripted import RecordedCall, ScriptedProvider, ScriptedResponsesModel, Turn

from agents_examples import ExampleSettings
from dojo_mock_agents import ARTICLE, DRAFT, RESEARCH, REVIEW, SPECIALISTS, TOOL_RESULT_REPLY
from dojo_mock_agents import answer as fixture_answer
from example_client import Chat
from server import create_app


class FixtureModel(ScriptedResponsesModel):
    """The mock, keeping which fixture answered each call."""

    def __init__(self) -> None:
        self.matched: list[str] = []
        super().__init__(self.answer)

    def answer(self, call: RecordedCall) -> Turn:
        system = call.instructions or ""
        self.matched.append(next((key for key in SPECIALISTS if key in system), "manager"))
        return fixture_answer(call)


@pytest.fixture
def model() -> FixtureModel:
    return FixtureModel()


@pytest.fixture
async def mocked(model: FixtureModel, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The example server as the Dojo runs it (a thread store, the approval contract opted in),
    every model call answered by the mock."""
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    settings = ExampleSettings(
        run_config=config,
        threads=SQLiteThreadStore(tmp_path / "threads.db"),
        dojo_approvals=True,
    )
    transport = httpx.ASGITransport(app=create_app(settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as http:
        yield http


async def test_subagents_page(
    mocked: httpx.AsyncClient, model: FixtureModel, protocol_version: str | None
) -> None:
    chat = Chat(mocked, "/subagents", protocol_version=protocol_version)
    run = await chat.say("Write a short article about the history of AI")
    assert [name for _, name, _ in run.tool_calls] == [
        "research_topic",
        "write_prose",
        "critique_draft",
    ]
    assert [run.results[call_id] for call_id, _, _ in run.tool_calls] == [RESEARCH, DRAFT, REVIEW]
    assert run.snapshot.messages[-1].content == ARTICLE
    assert isinstance(run.finished.outcome, RunFinishedSuccessOutcome)
    specialists = [key for key in model.matched if key != "manager"]
    assert specialists == list(SPECIALISTS)  # each matched its fixture, once
    assert model.matched.count("manager") == 4  # three delegations, then the article


async def test_approval_page(mocked: httpx.AsyncClient) -> None:
    chat = Chat(mocked, "/human_in_the_loop_approval", protocol_version=None)
    paused = await chat.say("Please refund order ORD-1001")
    [request] = [e for e in paused.events if isinstance(e, CustomEvent)]
    assert request.name == "approval_request"
    [asked] = request.value
    assert (asked["tool_name"], asked["arguments"]) == ("issue_refund", {"order_id": "ORD-1001"})

    chat.forwarded_props = {"approval": {"call_id": asked["call_id"], "approve": True}}
    run = await chat.send()
    assert run.results[asked["call_id"]] == "Refunded in full on order ORD-1001."
    assert run.text == TOOL_RESULT_REPLY
    assert isinstance(run.finished.outcome, RunFinishedSuccessOutcome)
