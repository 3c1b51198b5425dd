"""The demo model's A2UI: travel results for the fixed-schema tools, surfaces for the forced
render call (invalid where the Dojo's recovery fixtures are), and one sentence per result."""

from __future__ import annotations

import json

from ag_ui_a2ui_toolkit import validate_a2ui_components

from agents_examples.a2ui_fixed_schema import FLIGHTS_SURFACE, search_flights, search_hotels
from demo_arguments import fill_arguments
from demo_conversation import Conversation
from demo_surfaces import RETRY_MARKER, describe_output, render_arguments


def test_travel_tools_get_plausible_results_in_their_schema() -> None:
    flights = fill_arguments(
        search_flights.params_json_schema, Conversation("Flights from LIS to BOS on Friday", "")
    )["flights"]
    assert [(f["origin"], f["destination"]) for f in flights] == [("LIS", "BOS")] * 3
    assert flights[0]["date"] == "Fri, next week" and flights[0]["price"] == "$289"
    hotels = fill_arguments(
        search_hotels.params_json_schema, Conversation("Hotels in Lisbon please", "")
    )["hotels"]
    assert [h["location"] for h in hotels] == ["Lisbon"] * 3
    assert all(isinstance(h["rating"], float) for h in hotels)


def _valid(args: dict[str, object]) -> bool:
    result = validate_a2ui_components(components=args["components"], data=args["data"])
    return bool(result["valid"])


def test_surfaces_follow_the_request() -> None:
    team = render_arguments("Show a team of 4 people")
    assert team["surfaceId"] == "team-roster" and len(team["data"]["items"]) == 4
    assert [c["component"] for c in team["components"]] == ["Row", "TeamMemberCard"]
    products = render_arguments("Compare 2 wireless headphones")
    assert len(products["data"]["items"]) == 2 and _valid(products)
    assert _valid(render_arguments("Compare 3 luxury hotels in different cities"))


def test_recovery_surfaces_fail_as_the_dojo_fixtures_do() -> None:
    luxury = "Compare 3 luxury hotels with ratings and prices."
    assert not _valid(render_arguments(luxury))
    assert _valid(render_arguments(luxury, instructions=f"Prompt\n## {RETRY_MARKER}: 'card'"))
    broken = "Compare 3 broken hotels"
    first = render_arguments(broken)
    second = render_arguments(broken, instructions=f"P\n{RETRY_MARKER}\n- 'card' missing")
    third = render_arguments(broken, instructions=f"P\n{RETRY_MARKER}\n- 'card-template'")
    assert not any(_valid(args) for args in (first, second, third))
    assert first != second and second != third  # No two attempts are the same request.


def test_results_are_told_in_one_sentence() -> None:
    failure = {"code": "a2ui_recovery_exhausted", "attempts": [{}, {}, {}]}
    assert describe_output(json.dumps(failure)).startswith(  # type: ignore[union-attr]
        "I could not build a valid interface after 3 attempts"
    )
    assert describe_output('{"accepted": false}') == (
        "You rejected the changes, so the document stays as it was."
    )
    flights = [{"airline": "KLM"}, {"airline": "TAP"}]
    text = describe_output(FLIGHTS_SURFACE.envelope({"flights": flights}))
    assert text == "Here are 2 flights: KLM and TAP. Pick one on the cards."
    assert describe_output("plain text") is None
