"""A2UI fixed surfaces: a backend tool returns the envelope of a layout written in advance."""

from __future__ import annotations

import json

import pytest
from agents import Agent, function_tool, set_tracing_disabled

from ag_ui_openai_agents.a2ui import FixedSurface
from support.a2ui import result_of
from support.http import wrapper_for
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn
from support.state_runs import KINDS, post_run

set_tracing_disabled(True)

FLIGHTS = FixedSurface(
    surface_id="flight-search-results",
    catalog_id="https://a2ui.org/demos/dojo/fixed_catalog.json",
    components=[
        {"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/flights"}},
        {"id": "card", "component": "FlightCard", "airline": {"path": "airline"}},
    ],
)


@function_tool
def search_flights(airlines: list[str]) -> str:
    """Show flights as cards."""
    return FLIGHTS.envelope({"flights": [{"airline": name} for name in airlines]})


@pytest.mark.parametrize("version", KINDS)
async def test_a_backend_tool_returns_a_fixed_surface_envelope(version: str | None) -> None:
    model = ScriptedResponsesModel(
        [
            Turn([Call("search_flights", {"airlines": ["TAP", "KLM"]})]),
            Turn([Text("Here are your flights.")]),
        ]
    )
    agent = Agent(name="travel", tools=[search_flights])

    events = await post_run(wrapper_for(agent, model), request(protocol_version=version))

    operations = result_of(events, "call_1")["a2ui_operations"]
    assert operations[0]["createSurface"]["catalogId"].endswith("fixed_catalog.json")
    assert operations[2]["updateDataModel"]["value"] == {
        "flights": [{"airline": "TAP"}, {"airline": "KLM"}]
    }


def test_a_fixed_layout_and_its_data_are_checked() -> None:
    with pytest.raises(ValueError, match="invalid A2UI layout"):
        FixedSurface("s", [{"id": "main", "component": "Row"}])  # no root
    catalog = {"components": {"Text": {"properties": {"text": {}}, "required": ["text"]}}}
    with pytest.raises(ValueError, match="invalid A2UI layout"):
        FixedSurface("s", [{"id": "root", "component": "Text"}], catalog=catalog)
    bound = FixedSurface("s", [{"id": "root", "component": "Text", "text": {"path": "/title"}}])
    with pytest.raises(ValueError, match="does not fit"):
        bound.envelope({"other": 1})
    assert "a2ui_operations" in json.loads(bound.envelope({"title": "Hi"}))
