"""The frontend contracts of the AG-UI Dojo's pages, through the HTTP app, on the demo model.

Each page renders tools by name, listens for named CUSTOM events or sends context items; these
tests hold the examples to those names, argument shapes, event positions and values, for a 1.0
client and for one that sends no ``protocolVersion``.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    Context,
    CustomEvent,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from agents_examples import ExampleSettings, ag_ui_docs_copilot, subagents
from example_client import Chat, Run
from server import create_app

README_FIXTURE = (
    "# Package\n\nIntro.\n\n## Installation\n\nRun `uv add it`.\n\n"
    "## Shared state\n\nTools change the state with shared_state().\n\n"
    "### Snapshots\n\nEach change is a STATE_SNAPSHOT.\n\n"
    "```bash\n# not a heading\n```\n\n## Errors\n\nRUN_ERROR.\n"
)


def success(run: Run) -> None:
    assert isinstance(run.finished.outcome, RunFinishedSuccessOutcome), run.finished.outcome


# --- ag_ui_docs_copilot ------------------------------------------------------------------------


@pytest.fixture
def readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "README.md"
    path.write_text(README_FIXTURE, encoding="utf-8")
    monkeypatch.setattr(ag_ui_docs_copilot, "PACKAGE_DOCS", (path,))
    return path


async def test_docs_copilot_reads_a_package_readme_section(
    client: httpx.AsyncClient, readme: Path, protocol_version: str | None
) -> None:
    chat = Chat(client, "/ag_ui_docs_copilot", protocol_version=protocol_version)
    run = await chat.say("What does the README say about shared state?")
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("read_ag_ui_openai_agents_docs", {"heading": "shared state"})
    section = run.results[call_id]
    assert section.startswith("## Shared state\n\nTools change the state with shared_state().")
    assert "Each change is a STATE_SNAPSHOT." in section  # Its subsection comes with it.
    assert "RUN_ERROR" not in section  # The next section at its level does not.
    assert "shared_state()" in run.text
    success(run)


async def test_docs_copilot_lists_protocol_headings_without_a_heading(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/ag_ui_docs_copilot", protocol_version=protocol_version)
    run = await chat.say("List the headings of the AG-UI protocol docs")
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("read_ag_ui_protocol_docs", {})
    text = ag_ui_docs_copilot.PROTOCOL_SUMMARY.read_text(encoding="utf-8")
    headings = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    assert run.results[call_id].splitlines() == headings
    assert "Interrupts and resume" in headings and "Run lifecycle" in headings
    success(run)


async def test_docs_copilot_reads_a_protocol_section(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/ag_ui_docs_copilot", protocol_version=protocol_version)
    run = await chat.say("What does the AG-UI protocol say about interrupts?")
    [(call_id, name, args)] = run.tool_calls
    assert (name, args) == ("read_ag_ui_protocol_docs", {"heading": "interrupts"})
    assert run.results[call_id].startswith("## Interrupts and resume\n\n")
    assert "ResumeEntry" in run.results[call_id]
    assert "ResumeEntry" in run.text
    success(run)


# --- custom_lifecycle_events -------------------------------------------------------------------


async def test_run_usage_is_the_end_event_with_the_run_totals(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/custom_lifecycle_events", protocol_version=protocol_version)
    run = await chat.say("Count the words in: the quick brown fox jumps")
    assert [name for _, name, _ in run.tool_calls] == ["count_words"]  # Two model calls.
    assert run.events[1] == run.custom("run_context")
    assert run.custom("run_context").value == {
        "thread_id": "thread-1",
        "message_count": 1,
        "client_tools": [],
    }
    snapshot, usage_event, finished = run.events[-3:]
    assert isinstance(snapshot, MessagesSnapshotEvent)
    assert isinstance(usage_event, CustomEvent) and usage_event == run.custom("run_usage")
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(snapshot.messages[-1], AssistantMessage)  # What the page attaches it to.

    value = usage_event.value
    assert set(value) == {"input_tokens", "output_tokens"}
    assert all(type(count) is int and count > 0 for count in value.values())
    entries = finished.usage or []
    assert value["input_tokens"] == sum(entry.input_tokens or 0 for entry in entries)
    assert value["output_tokens"] == sum(entry.output_tokens or 0 for entry in entries)

    second = await chat.say("Thanks!")
    again = second.custom("run_usage").value
    assert again["input_tokens"] == sum(e.input_tokens or 0 for e in second.finished.usage or [])
    assert second.events[-2] == second.custom("run_usage")


# --- dynamic_system_prompt ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "phrase"),
    [
        ("French", "Vous êtes Ada, d'après la page."),
        ("Spanish", "Usted es Ada, según la página."),
        ("German", "Sie sind Ada, sagt mir die Seite."),
        ("English", "You are Ada, as the page tells me."),
    ],
)
async def test_reply_language_from_the_context(
    client: httpx.AsyncClient, protocol_version: str | None, language: str, phrase: str
) -> None:
    context = [
        Context(description="Reply language", value=language),
        Context(description="User name", value="Ada"),
    ]
    chat = Chat(
        client, "/dynamic_system_prompt", context=context, protocol_version=protocol_version
    )
    run = await chat.say("Who am I?")
    # The other context items still shape the prompt: the name is a fact of the page.
    assert run.text == phrase
    assert "Reply language" not in run.text  # The language is an instruction, not a fact.
    success(run)


async def test_reply_language_switches_mid_conversation(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(
        client,
        "/dynamic_system_prompt",
        context=[Context(description="Reply language", value="Spanish")],
        protocol_version=protocol_version,
    )
    first = await chat.say("Hello there")
    assert first.text.startswith("¡Hola!")
    chat.context = [Context(description="Reply language", value="German")]
    second = await chat.say("And now?")
    assert second.text.startswith("Ich bin das Offline-Demomodell und kann „And now?“")
    chat.context = [Context(description="Reply language", value="Klingon")]
    third = await chat.say("Still there?")
    assert third.text.startswith("(The offline demo model has no Klingon phrases")
    assert "“Still there?”" in third.text


async def test_dynamic_prompt_without_a_language_keeps_the_page_facts(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    context = [
        Context(description="User name", value="Ada"),
        Context(description="Current page", value="Billing"),
    ]
    chat = Chat(
        client, "/dynamic_system_prompt", context=context, protocol_version=protocol_version
    )
    run = await chat.say("What page am I on?")
    assert run.text == "Here is what the page tells me: User name: Ada; Current page: Billing."
    assert run.text.count("Ada") == 1  # The wrapper did not add its own block too.

    bare = await Chat(client, "/dynamic_system_prompt").say("Who am I?")
    assert "“Who am I?”" in bare.text and "Ada" not in bare.text


# --- subagents ---------------------------------------------------------------------------------


async def test_manager_delegates_to_the_three_specialists_in_turn(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/subagents", protocol_version=protocol_version)
    request = "Write a short article about the history of AI"
    run = await chat.say(request)
    calls = run.tool_calls
    assert [name for _, name, _ in calls] == list(subagents.DELEGATIONS)
    assert all(set(args) == {"input"} and isinstance(args["input"], str) for _, _, args in calls)
    (research_id, _, research), (write_id, _, write), (critique_id, _, critique) = calls
    notes, draft, review = (run.results[i] for i in (research_id, write_id, critique_id))

    assert research == {"input": request}
    assert write == {"input": notes}  # Each specialist works on the one before.
    assert critique == {"input": draft}
    # Each specialist returns what its instructions ask, from its own tool's answer.
    assert notes.startswith("- The term 'artificial intelligence' was coined for the 1956")
    assert len(notes.splitlines()) == 3  # three facts, as bullet points
    assert draft.startswith("The term 'artificial intelligence' was coined") and "\n" not in draft
    assert "words per sentence" in review and "Two improvements" in review
    assert run.assistant_calls() == [research_id, write_id, critique_id]
    # The manager finishes with the article the team wrote, under its title.
    final = run.snapshot.messages[-1]
    assert final.role == "assistant" and final.content == f"## The history of AI\n\n{draft}"

    # The specialists stream as subagents, so their model calls count with their model.
    usage = run.finished.usage or []
    assert usage and all(entry.model is not None for entry in usage)
    success(run)


async def test_specialists_stream_as_subagents_inside_the_managers_calls(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    chat = Chat(client, "/subagents", protocol_version=protocol_version)
    run = await chat.say("Write a short article about the history of AI")
    if protocol_version is None:
        # By default a client without protocolVersion (the Dojo's 0.0.57) sees no subagent.
        assert not any(getattr(e, "subagent_run_id", None) for e in run.events)
        assert not any(isinstance(e, SubagentStartedEvent) for e in run.events)
        assert all(m.subagent_run_id is None for m in run.snapshot.messages)
        success(run)
        return
    check_specialists_streamed(run)


async def test_the_opt_in_streams_the_specialists_to_clients_without_protocol_version() -> None:
    settings = ExampleSettings.offline_demo(subagents_for_pre_1_0_clients=True)
    transport = httpx.ASGITransport(app=create_app(settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://examples") as client:
        chat = Chat(client, "/subagents", protocol_version=None)
        check_specialists_streamed(await chat.say("Write a short article about the history of AI"))
        capabilities = (await client.get("/subagents/capabilities")).json()
    assert capabilities["custom"]["subagent_events"] == "all"


def check_specialists_streamed(run: Run) -> None:
    """Each specialist's work streams as a subagent inside the manager's call to it."""
    started = [e for e in run.events if isinstance(e, SubagentStartedEvent)]
    assert [e.name for e in started] == ["Researcher", "Writer", "Critic"]
    assert [e.parent_tool_call_id for e in started] == [call for call, _, _ in run.tool_calls]
    for sub in started:
        own = [e for e in run.events if getattr(e, "subagent_run_id", None) == sub.subagent_run_id]
        assert isinstance(own[-1], SubagentFinishedEvent)
        names = [e.tool_call_name for e in own if isinstance(e, ToolCallStartEvent)]
        assert len(names) == 1  # its own small tool
        assert any(isinstance(e, TextMessageContentEvent) for e in own)
        result = next(
            i
            for i, e in enumerate(run.events)
            if isinstance(e, ToolCallResultEvent) and e.tool_call_id == sub.parent_tool_call_id
        )
        assert run.events.index(own[-1]) < result
    attributed = [m for m in run.snapshot.messages if m.subagent_run_id is not None]
    assert {m.subagent_run_id for m in attributed} == {s.subagent_run_id for s in started}
    success(run)


async def test_manager_answers_simple_questions_itself(
    client: httpx.AsyncClient, protocol_version: str | None
) -> None:
    run = await Chat(client, "/subagents", protocol_version=protocol_version).say("What is 2 + 2?")
    assert run.tool_calls == []
    assert "“What is 2 + 2?”" in run.text
    success(run)


async def test_subagent_tools_take_the_sdk_default_input(client: httpx.AsyncClient) -> None:
    body = (await client.get("/subagents/capabilities")).json()
    assert body["custom"]["subagent_events"] == "1.0"  # by default, to AG-UI 1.0 clients only
    tools = {tool["name"]: tool["parameters"] for tool in body["tools"]["items"]}
    assert list(tools) == list(subagents.DELEGATIONS)
    for parameters in tools.values():
        assert parameters["properties"] == {"input": {"title": "Input", "type": "string"}}
        assert parameters["required"] == ["input"]
