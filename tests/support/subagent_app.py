"""A FastAPI app serving a manager with agents used as tools, on a scripted model.

The manager (``/agent``) asks two specialists at once: ``research_topic`` looks a topic up and
answers, ``write_prose`` writes. Both stream as AG-UI subagents. A second user turn gets a plain
answer from the manager, with the first turn's subagent messages in its history. On
``/failing`` the researcher's model fails mid-answer: SUBAGENT_ERROR, then the manager goes on.

By default only AG-UI 1.0 requests see the subagents; ``build_app(subagents_for_pre_1_0_clients=
True)`` shows them to requests without ``protocolVersion`` too.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, function_tool
from fastapi import FastAPI

from ag_ui_openai_agents import Subagents, add_openai_agents_fastapi_endpoint, subagent_events
from support.scripted import Call, Text, Turn
from support.subagent_runs import AgentScripts, served_agent


@function_tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


def _scripts() -> AgentScripts:
    return AgentScripts(
        {
            "manage": [
                Turn(
                    [
                        Call("research_topic", {"input": "owls"}),
                        Call("write_prose", {"input": "a line on owls"}),
                    ]
                ),
                Turn([Text("Owls hoot, and here is a line about them.")]),
                Turn([Text("You are welcome.")]),
            ],
            "research": [
                Turn([Text("Looking it up. "), Call("lookup", {"topic": "owls"})], delay=0.005),
                Turn([Text("Owls hoot at night.")], delay=0.005),
            ],
            "write": [Turn([Text("The owl calls across the dark.")], delay=0.005)],
        }
    )


def _failing_scripts() -> AgentScripts:
    return AgentScripts(
        {
            "manage": [
                Turn([Call("research_topic", {"input": "owls"})]),
                Turn([Text("The research failed; here is what I know.")]),
            ],
            "research": [Turn([Text("Half an ans")], raise_after_events=6)],
        }
    )


def build_app(*, subagents_for_pre_1_0_clients: bool = False) -> FastAPI:
    """The app: ``/agent``, and ``/failing`` where the research specialist's model fails."""
    researcher = Agent(name="Researcher", instructions="research", tools=[lookup])
    writer = Agent(name="Writer", instructions="write", handoff_description="Writes prose.")
    tools: list[Any] = [
        researcher.as_tool(
            tool_name="research_topic", tool_description="Research.", on_stream=subagent_events
        ),
        writer.as_tool(
            tool_name="write_prose", tool_description="Write.", on_stream=subagent_events
        ),
    ]
    manager = Agent(name="Manager", instructions="manage", tools=tools)
    option = {"subagents": Subagents(pre_1_0_clients=subagents_for_pre_1_0_clients)}
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, served_agent(manager, _scripts(), **option), "/agent")
    failing = served_agent(manager, _failing_scripts(), **option)
    add_openai_agents_fastapi_endpoint(app, failing, "/failing")
    return app
