"""The offline demo model's A2UI: travel results for the fixed-schema tools, surfaces for the
forced ``render_a2ui`` call, and a sentence about what a surface tool returned.

* ``search_flights`` / ``search_hotels`` (arguments ``{"flights": [...]}`` / ``{"hotels":
  [...]}``) get three plausible flights between the airports the user names (else SFO to JFK)
  or three hotels in the place they name;
* ``generate_a2ui`` gets ``{"intent": "create"}`` (``"update"`` when the user asks to change a
  surface);
* ``render_a2ui`` (``surfaceId``, ``components``, ``data``) gets a row of cards from the Dojo's
  dynamic catalog: hotels, products or team members, by the user's words, as many as they ask
  for. Like the Dojo's recovery fixtures, a request for "luxury" hotels is invalid on the first
  attempt (the card template is missing) and valid once the errors are fed back, and "broken"
  hotels are invalid every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from demo_conversation import Conversation

__all__ = ["describe_output", "special_arguments"]

RETRY_MARKER = "Previous attempt was invalid"
_CATALOG_ID = "https://a2ui.org/demos/dojo/dynamic_catalog.json"
_AIRLINES = (
    ("United Airlines", "united.com", "UA 123", "8:00 AM", "4:30 PM", "5h 30m", "$289"),
    ("Delta", "delta.com", "DL 456", "10:00 AM", "6:45 PM", "5h 45m", "$315"),
    ("JetBlue", "jetblue.com", "B6 789", "1:15 PM", "9:50 PM", "5h 35m", "$248"),
)
_HOTELS = (
    ("The Grand", 4.5, "$350"),
    ("Boutique Loft", 4.0, "$280"),
    ("Harbour Inn", 3.5, "$180"),
)
_CITIES = ("Paris", "New York", "London", "Lisbon")
_PRODUCTS = (
    ("Sony WH-1000XM5", "$349", 4.7, "Industry-leading noise cancellation"),
    ("AirPods Max", "$549", 4.5, "Premium Apple ecosystem integration"),
    ("Bose QC Ultra", "$429", 4.6, "Comfortable with spatial audio"),
    ("Sennheiser Momentum 4", "$299", 4.4, "Sixty hours of battery"),
)
_PEOPLE = (
    ("Alice Chen", "Engineering Lead", "Engineering"),
    ("Bob Martinez", "Product Designer", "Design"),
    ("Carol Davis", "Backend Engineer", "Engineering"),
    ("Dan Wilson", "DevOps Engineer", "Infrastructure"),
    ("Eve Okafor", "Data Scientist", "Research"),
)


def special_arguments(properties: Mapping[str, Any], conversation: Conversation) -> Any:
    """The arguments for a tool whose parameters are one of the above, else None."""
    keys = set(properties)
    text = conversation.user_text
    if keys == {"flights"}:
        return {"flights": _flights(text)}
    if keys == {"hotels"}:
        return {"hotels": _hotels(text)}
    if keys == {"intent", "target_surface_id", "changes"}:
        update = re.search(r"\b(?:change|update|edit|make the)\b", text, re.I)
        return {"intent": "update" if update else "create"}
    if {"surfaceId", "components"} <= keys:
        return render_arguments(text, instructions=conversation.instructions)
    return None


def _weekday(text: str) -> str:
    match = re.search(r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b", text, re.I)
    return f"{match.group(0).title()[:3]}, next week" if match else "Tomorrow"


def _flights(text: str) -> list[dict[str, Any]]:
    codes = re.findall(r"\b[A-Z]{3}\b", text)
    origin, destination = ([*codes, "SFO", "JFK"])[:2] if len(codes) != 1 else (codes[0], "JFK")
    return [
        {
            "id": str(index + 1),
            "airline": airline,
            "airlineLogo": f"https://www.google.com/s2/favicons?domain={domain}&sz=128",
            "flightNumber": number,
            "origin": origin,
            "destination": destination,
            "date": _weekday(text),
            "departureTime": leaves,
            "arrivalTime": lands,
            "duration": duration,
            "status": "On Time" if index != 2 else "Delayed",
            "statusIcon": "https://placehold.co/12/22c55e/22c55e.png",
            "price": price,
        }
        for index, (airline, domain, number, leaves, lands, duration, price) in enumerate(_AIRLINES)
    ]


def _place(text: str) -> str:
    match = re.search(r"\bin\s+((?:downtown\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)", text)
    return match.group(1) if match else "the city centre"


def _hotels(text: str) -> list[dict[str, Any]]:
    place = _place(text)
    return [
        {"id": str(i + 1), "name": name, "location": place, "rating": rating, "price": price}
        for i, (name, rating, price) in enumerate(_HOTELS)
    ]


def _count(text: str, default: int, most: int) -> int:
    match = re.search(r"\b(\d{1,2})\b", text)
    return max(1, min(int(match.group(1)), most)) if match else default


def _cards(text: str) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """The surface id, the card template and the items the request asks for."""
    lower = text.lower()
    if re.search(r"\b(team|people|directory|roster|staff)\b", lower):
        people = _PEOPLE[: _count(text, 4, len(_PEOPLE))]
        items = [
            {"name": n, "role": r, "department": d, "email": n.split()[0].lower() + "@example.com"}
            for n, r, d in people
        ]
        card = {"component": "TeamMemberCard", **_bound("name", "role", "department", "email")}
        return "team-roster", {**card, "action": _action("contact")}, items
    if re.search(r"\b(product|headphones?|gadgets?|laptops?|phones?)\b", lower):
        products = _PRODUCTS[: _count(text, 3, len(_PRODUCTS))]
        items = [{"name": n, "price": p, "rating": r, "description": d} for n, p, r, d in products]
        card = {"component": "ProductCard", **_bound("name", "price", "rating", "description")}
        return "product-comparison", {**card, "action": _action("select")}, items
    hotels = [
        {"name": name, "location": city, "rating": rating + 0.3, "pricePerNight": f"{price}/night"}
        for (name, rating, price), city in zip(_HOTELS * 2, _CITIES, strict=False)
    ][: _count(text, 3, len(_CITIES))]
    card = {"component": "HotelCard", **_bound("name", "location", "rating", "pricePerNight")}
    return "hotel-comparison", {**card, "action": _action("book_hotel")}, hotels


def _bound(*fields: str) -> dict[str, Any]:
    return {field: {"path": field} for field in fields}


def _action(name: str) -> dict[str, Any]:
    return {"event": {"name": name, "context": {"name": {"path": "name"}}}}


def render_arguments(text: str, *, instructions: str = "") -> dict[str, Any]:
    """A ``render_a2ui`` call for ``text`` (``instructions`` is the generation prompt, with the
    errors of the previous attempt on a retry): a row repeating a card over ``/items``."""
    surface_id, card, items = _cards(text)
    retry = RETRY_MARKER in instructions
    broken = bool(re.search(r"\bbroken\b", text, re.I)) or (
        bool(re.search(r"\bluxury\b", text, re.I))
        and not re.search(r"different cities", text, re.I)
        and not retry
    )
    template = "card"
    if broken and "'card'" in instructions.split(RETRY_MARKER)[-1]:
        template = "card-template"  # Forgets another one than last time.
    root = {"id": "root", "component": "Row", "gap": 16}
    root["children"] = {"componentId": template, "path": "/items"}
    components = [root] if broken else [root, {"id": template, **card}]
    return {
        "surfaceId": surface_id,
        "catalogId": _CATALOG_ID,
        "components": components,
        "data": {"items": items},
    }


_ACTION = re.compile(
    r'^User performed action "([^"]+)" on surface "([^"]+)".*?Context: (\{.*\})$', re.S
)


def describe_output(output: str) -> str | None:
    """A sentence about an A2UI envelope, a failed generation, a surface action the A2UI
    middleware reported, or a page's confirmation; None for any other output."""
    action = _ACTION.match(output.strip())
    if action:
        try:
            context = json.loads(action.group(3))
        except ValueError:
            context = {}
        chosen = ", ".join(str(v) for v in context.values()) if isinstance(context, dict) else ""
        done = action.group(1).replace("_", " ")
        return f"Done: {done}{f' ({chosen})' if chosen else ''}, on {action.group(2)}."
    try:
        value = json.loads(output)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if value.get("code") == "a2ui_recovery_exhausted":
        attempts = value.get("attempts") or []
        return (
            f"I could not build a valid interface after {len(attempts)} attempts, so nothing "
            "was shown. Ask me to try again, or I can answer in words."
        )
    if isinstance(value.get("error"), str):
        return f"I could not build that interface: {value['error']}"
    if isinstance(value.get("accepted"), bool):
        if value["accepted"]:
            return "You accepted the changes: the document is updated."
        return "You rejected the changes, so the document stays as it was."
    operations = value.get("a2ui_operations")
    if isinstance(operations, list):
        return _describe_surface(operations)
    return None


def _describe_surface(operations: list[Any]) -> str:
    """What a surface shows, in a sentence: its cards, by name."""
    data: dict[str, Any] = {}
    surface = "the surface"
    for op in operations:
        if not isinstance(op, dict):
            continue
        for kind in ("createSurface", "updateComponents", "updateDataModel"):
            body = op.get(kind)
            if isinstance(body, dict) and isinstance(body.get("surfaceId"), str):
                surface = body["surfaceId"]
        update = op.get("updateDataModel")
        if isinstance(update, dict) and isinstance(update.get("value"), dict):
            data.update(update["value"])
    lists = [(key, value) for key, value in data.items() if isinstance(value, list)]
    if not lists:
        return f"Here it is: the {surface.replace('-', ' ')} surface."
    key, items = lists[0]
    names = [str(i.get("name") or i.get("airline") or "") for i in items if isinstance(i, dict)]
    names = [name for name in names if name]
    kind = key if key not in ("items", "data", "results") else "options"
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    shown = f"Here are {len(items)} {kind}" + (f": {listed}" if listed else "")
    return f"{shown}. Pick one on the cards."
