"""Real TypeScript clients (@ag-ui/client 1.0.0 and 0.0.59, strict: a warning fails the turn)
accept state deltas, predictive state, progress and A2UI generation, and end with the state
the server holds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, function_tool, set_tracing_disabled
from fastapi import FastAPI
from pydantic import BaseModel

from ag_ui_openai_agents import (
    PredictState,
    StateUpdates,
    add_openai_agents_fastapi_endpoint,
    shared_state,
)
from ag_ui_openai_agents.a2ui import A2UI
from support.copilotkit import ensure_copilotkit, serve_copilot_runtime
from support.e2e import (
    CLIENT_VERSIONS,
    ClientVersion,
    ensure_node_modules,
    node_available,
    run_client,
    serve_app,
    turn_errors,
)
from support.http import wrapper_for
from support.scripted import Call, ScriptedResponsesModel, Text, Turn

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not node_available(), reason="real-client e2e checks need Node >= 18 and npm on PATH"
    ),
]
set_tracing_disabled(True)

STEPS = [{"description": f"Step {n} of a long enough plan", "status": "pending"} for n in range(3)]
SURFACE = {
    "surfaceId": "card",
    "components": [
        {"id": "root", "component": "Column", "children": ["title"]},
        {"id": "title", "component": "Text", "text": "Hello"},
    ],
}

A2UI_SCENARIO: dict[str, Any] = {  # marked as the A2UI middleware marks a request
    "strict": True,
    "forwardedProps": {"injectA2UITool": True},
    "tools": [
        {
            "name": "render_a2ui",
            "description": "Render a dynamic A2UI v0.9 surface.",
            "parameters": {"type": "object", "properties": {}},
        }
    ],
    "turns": [{"user": "Show me a card"}],
}


class Step(BaseModel):
    description: str
    status: str


@function_tool
async def write_plan(steps: list[Step]) -> str:
    """Write the plan, then carry it out step by step."""
    state = shared_state()
    current = [step.model_dump() for step in steps]
    for step in current:
        await asyncio.sleep(0)
        step["status"] = "completed"
        state.update(steps=current)
    return "Plan done."


@function_tool
def rename(title: str) -> str:
    """Rename the plan."""
    shared_state().update(title=title)
    return "Renamed."


def build_app() -> FastAPI:
    plan_model = ScriptedResponsesModel(
        [
            Turn([Call("write_plan", {"steps": STEPS}, call_id="call_plan", chunks=5)]),
            Turn([Text("The plan is done.", id="msg_plan")]),
            Turn([Call("rename", {"title": "Trip"}, call_id="call_rename")]),
            Turn([Text("Renamed.", id="msg_rename")]),
        ]
    )
    planner = wrapper_for(
        Agent(name="planner", tools=[write_plan, rename]),
        plan_model,
        state=StateUpdates(deltas=True, predictive=[PredictState("steps", "write_plan", "steps")]),
    )
    a2ui_model = ScriptedResponsesModel(
        [
            Turn([Call("generate_a2ui", {"intent": "create"}, call_id="call_gen")]),
            Turn([Call("render_a2ui", SURFACE, call_id="call_render", chunks=4)]),
            Turn([Text("Here is your card.", id="msg_card")]),
        ]
    )
    designer = wrapper_for(Agent(name="designer"), a2ui_model, a2ui=A2UI())
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, planner, "/plan")
    add_openai_agents_fastapi_endpoint(app, designer, "/a2ui")
    return app


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_clients_apply_deltas_and_predictions_to_the_servers_state(version: ClientVersion) -> None:
    ensure_node_modules()
    with serve_app(build_app()) as base_url:
        scenario: dict[str, Any] = {
            "url": f"{base_url}/plan",
            "strict": True,
            "state": {"title": "Plan", "notes": "n" * 300},
            "turns": [{"user": "Make a plan and do it"}, {"user": "Call it Trip"}],
        }
        result = run_client(version, scenario)
    assert result["ok"], turn_errors(result)
    first, second = result["turns"]
    done = [{**step, "status": "completed"} for step in STEPS]
    assert first["state"] == {"title": "Plan", "notes": "n" * 300, "steps": done}
    assert second["state"] == {"title": "Trip", "notes": "n" * 300, "steps": done}
    types = first["eventTypes"]
    assert types.index("CUSTOM") == types.index("TOOL_CALL_START") - 1
    # A snapshot first in each run (the committed prediction), then the progress as deltas.
    assert [t for t in types if t.startswith("STATE_")] == ["STATE_SNAPSHOT", *["STATE_DELTA"] * 3]
    assert [t for t in second["eventTypes"] if t.startswith("STATE_")] == ["STATE_SNAPSHOT"]


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_clients_accept_a2ui_generation(version: ClientVersion) -> None:
    ensure_node_modules()
    with serve_app(build_app()) as base_url:
        result = run_client(version, {**A2UI_SCENARIO, "url": f"{base_url}/a2ui"})
    assert result["ok"], turn_errors(result)
    (turn,) = result["turns"]
    types = turn["eventTypes"]
    if version == "v1":  # the render call streams as a subagent to AG-UI 1.0 clients only
        assert types.index("SUBAGENT_STARTED") < types.index("SUBAGENT_FINISHED")
    else:
        assert "SUBAGENT_STARTED" not in types
    results = [e for e in turn["events"] if e["type"] == "TOOL_CALL_RESULT"]
    assert any("a2ui_operations" in e["content"] for e in results)
    assert turn["outcome"] is None or turn["outcome"].get("type", "success") == "success"


@pytest.mark.parametrize("version", CLIENT_VERSIONS)
def test_copilotkit_runtime_passes_deltas_predictions_and_a2ui(version: ClientVersion) -> None:
    ensure_node_modules()
    ensure_copilotkit()
    with (
        serve_app(build_app()) as upstream,
        serve_copilot_runtime(upstream, ["plan", "a2ui"]) as runtime,
    ):
        plan = run_client(
            version,
            {
                "url": runtime.run_url("plan"),
                "strict": True,
                "state": {"title": "Plan", "notes": "n" * 300},
                "turns": [{"user": "Make a plan and do it"}, {"user": "Call it Trip"}],
            },
        )
        a2ui = run_client(version, {**A2UI_SCENARIO, "url": runtime.run_url("a2ui")})
        logged = runtime.errors()
    assert plan["ok"], turn_errors(plan)
    assert a2ui["ok"], turn_errors(a2ui)
    assert logged == []
    assert plan["turns"][-1]["state"]["title"] == "Trip"
    assert "STATE_DELTA" in plan["turns"][0]["eventTypes"]
    # The runtime strips protocolVersion: the surface arrives whole, in the tool's result.
    assert "SUBAGENT_STARTED" not in a2ui["turns"][0]["eventTypes"]
    results = [e for e in a2ui["turns"][0]["events"] if e["type"] == "TOOL_CALL_RESULT"]
    assert any("a2ui_operations" in e["content"] for e in results)
