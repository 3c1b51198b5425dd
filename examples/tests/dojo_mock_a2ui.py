"""The Dojo mock's answers for the document editor and the A2UI pages, shaped as its fixtures
shape them (tool names, argument shapes, and which request each answers: by the request's tools,
the user's words and, for a retry, the prompt); the values are this project's own."""

from __future__ import annotations

import json
from typing import Any

from support.scripted import Call, RecordedCall, Turn

RETRY_MARKER = "Previous attempt was invalid"
"""What the A2UI toolkit adds to the generation prompt after an invalid attempt."""

STORY = (
    "Long ago, beyond the western sea, a dragon called Atlantis guarded a lighthouse. Each "
    "night Atlantis lit the lamp with one careful breath, and the ships came home safely."
)
FLIGHTS = [
    {
        "id": str(index),
        "airline": airline,
        "airlineLogo": f"https://example.com/{code.lower()}.png",
        "flightNumber": f"{code} {number}",
        "origin": "SFO",
        "destination": "JFK",
        "date": "Tue, May 5",
        "departureTime": departs,
        "arrivalTime": arrives,
        "duration": "5h 40m",
        "status": "On Time",
        "statusIcon": "https://example.com/on-time.png",
        "price": price,
    }
    for index, (airline, code, number, departs, arrives, price) in enumerate(
        [
            ("Alaska Airlines", "AS", 10, "7:05 AM", "3:45 PM", "$274"),
            ("American Airlines", "AA", 20, "11:30 AM", "8:10 PM", "$301"),
        ],
        start=1,
    )
]
HOTELS = [
    {
        "id": "1",
        "name": "Hudson Yards Hotel",
        "location": "Midtown",
        "rating": 4.4,
        "price": "$330",
    },
    {
        "id": "2",
        "name": "Bowery Rooms",
        "location": "Lower East Side",
        "rating": 3.9,
        "price": "$240",
    },
]
CARD_ITEMS: dict[str, tuple[str, list[str], list[dict[str, Any]]]] = {
    "hotel": (
        "HotelCard",
        ["name", "location", "rating", "pricePerNight"],
        [
            {"name": "Villa Aurora", "location": "Rome", "rating": 4.7, "pricePerNight": "$410"},
            {
                "name": "Canal House",
                "location": "Amsterdam",
                "rating": 4.3,
                "pricePerNight": "$260",
            },
            {"name": "Harbour View", "location": "Sydney", "rating": 4.5, "pricePerNight": "$300"},
        ],
    ),
    "product": (
        "ProductCard",
        ["name", "price", "rating", "description"],
        [
            {"name": "Quiet One", "price": "$199", "rating": 4.2, "description": "Light"},
            {"name": "Studio Pro", "price": "$379", "rating": 4.6, "description": "Warm sound"},
            {"name": "Trail Buds", "price": "$129", "rating": 4.0, "description": "Waterproof"},
        ],
    ),
    "team": (
        "TeamMemberCard",
        ["name", "role", "department", "email"],
        [
            {"name": f"Person {n}", "role": "Engineer", "department": "R&D", "email": f"p{n}@x.io"}
            for n in range(1, 5)
        ],
    ),
}


def _render(kind: str, *, valid: bool = True, surface: str | None = None) -> Call:
    """A ``render_a2ui`` call: a row repeating a card over ``/items`` (the card left out when
    not ``valid``: a dangling child reference)."""
    component, fields, items = CARD_ITEMS[kind]
    root = {"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/items"}}
    card = {
        "id": "card",
        "component": component,
        **{field: {"path": field} for field in fields},
        "action": {"event": {"name": "pick", "context": {"name": {"path": "name"}}}},
    }
    return Call(
        "render_a2ui",
        {
            "surfaceId": surface or f"{kind}-cards",
            "catalogId": "https://a2ui.org/demos/dojo/dynamic_catalog.json",
            "components": [root, card] if valid else [root],
            "data": {"items": items},
        },
        chunks=6,
    )


def _all_text(call: RecordedCall) -> str:
    parts = [call.instructions or ""]
    for item in call.input:
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def mock_a2ui(call: RecordedCall, user: str) -> Turn | None:
    """The answer of the document and A2UI fixtures to ``call``, or None."""
    tools = set(call.tool_names)
    lower = user.lower()
    recover = "luxury" in lower and "different cities" not in lower
    broken = "broken" in lower
    if "write_document_local" in tools and "dragon called Atlantis" in user:
        return Turn([Call("write_document_local", {"document": STORY})])
    if "write_document_local" in tools and "Change dragon name to Lola" in user:
        return Turn([Call("write_document_local", {"document": STORY.replace("Atlantis", "Lola")})])
    if "generate_a2ui" in tools:
        args = {"intent": "create"} if recover or broken else {}
        return Turn([Call("generate_a2ui", args)])
    if "render_a2ui" in tools:
        if broken:
            return Turn([_render("hotel", valid=False, surface="hotel-comparison")])
        if recover:
            retry = RETRY_MARKER in _all_text(call)
            return Turn([_render("hotel", valid=retry, surface="hotel-comparison")])
        kind = next((k for k in CARD_ITEMS if k in lower), None)
        return Turn([_render(kind)]) if kind else None
    if "search_flights" in tools and "flights" in lower:
        return Turn([Call("search_flights", {"flights": FLIGHTS})])
    if "search_hotels" in tools and "hotels" in lower:
        return Turn([Call("search_hotels", {"hotels": HOTELS})])
    return None


def operations(content: str) -> dict[str, Any]:
    """The operations of an A2UI envelope, by kind."""
    found = json.loads(content)["a2ui_operations"]
    return {next(key for key in op if key != "version"): op for op in found}
