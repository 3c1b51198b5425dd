"""A2UI with a fixed schema: backend tools whose results are surfaces laid out in advance.

The AG-UI Dojo's fixed-schema page renders A2UI surfaces with its fixed catalog (``Row``,
``FlightCard``, ``HotelCard``, ``StarRating``). The model calls ``search_flights`` or
``search_hotels`` with the results it found (the names and ``{"flights": [...]}`` /
``{"hotels": [...]}`` arguments of the Dojo's fixtures); each tool fills a
:class:`~ag_ui_openai_agents.a2ui.FixedSurface` with them and returns the operations envelope
(``{"a2ui_operations": [createSurface, updateComponents, updateDataModel]}``), which the A2UI
middleware finds in the tool result and paints as a row of cards. Only the data changes per call;
the layouts are checked against the catalog when the module loads.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.a2ui import FixedSurface
from agents import Agent, function_tool
from fastapi import FastAPI
from pydantic import BaseModel, Field

from .page_loads import StatelessAgent
from .settings import ExampleSettings

DESCRIPTION = "Backend tools whose results are A2UI surfaces with a fixed layout (flights, hotels)."
CATALOG_ID = "https://a2ui.org/demos/dojo/fixed_catalog.json"

_FLIGHT_FIELDS = (
    "airline",
    "airlineLogo",
    "flightNumber",
    "origin",
    "destination",
    "date",
    "departureTime",
    "arrivalTime",
    "duration",
    "status",
    "price",
)
FIXED_CATALOG: dict[str, Any] = {
    "components": {
        "Row": {"type": "object", "required": ["children"]},
        "FlightCard": {"type": "object", "required": [*_FLIGHT_FIELDS, "action"]},
        "HotelCard": {
            "type": "object",
            "required": ["name", "location", "rating", "pricePerNight", "action"],
        },
        "StarRating": {"type": "object", "required": ["value"]},
    }
}
"""The Dojo's fixed catalog, as far as validation needs it: its components and what each
requires."""

FLIGHTS_SURFACE = FixedSurface(
    surface_id="flight-search-results",
    catalog_id=CATALOG_ID,
    catalog=FIXED_CATALOG,
    components=[
        {
            "id": "root",
            "component": "Row",
            "gap": 16,
            "children": {"componentId": "flight-card", "path": "/flights"},
        },
        {
            "id": "flight-card",
            "component": "FlightCard",
            **{field: {"path": field} for field in _FLIGHT_FIELDS},
            "action": {
                "event": {
                    "name": "select_flight",
                    "context": {
                        "flightNumber": {"path": "flightNumber"},
                        "airline": {"path": "airline"},
                        "price": {"path": "price"},
                    },
                }
            },
        },
    ],
)
HOTELS_SURFACE = FixedSurface(
    surface_id="hotel-search-results",
    catalog_id=CATALOG_ID,
    catalog=FIXED_CATALOG,
    components=[
        {
            "id": "root",
            "component": "Row",
            "gap": 16,
            "children": {"componentId": "hotel-card", "path": "/hotels"},
        },
        {
            "id": "hotel-card",
            "component": "HotelCard",
            "name": {"path": "name"},
            "location": {"path": "location"},
            "rating": {"path": "rating"},
            "pricePerNight": {"path": "price"},
            "action": {
                "event": {
                    "name": "book_hotel",
                    "context": {"hotelName": {"path": "name"}, "price": {"path": "price"}},
                }
            },
        },
    ],
)


class Flight(BaseModel):
    """One flight, as the flight card shows it."""

    id: str
    airline: str = Field(description="The airline, like 'United Airlines'.")
    airlineLogo: str = Field(description="URL of the airline's logo.")
    flightNumber: str = Field(description="Like 'UA 123'.")
    origin: str = Field(description="Airport code, like 'SFO'.")
    destination: str = Field(description="Airport code, like 'JFK'.")
    date: str = Field(description="Like 'Tue, Apr 8'.")
    departureTime: str = Field(description="Like '8:00 AM'.")
    arrivalTime: str = Field(description="Like '4:30 PM'.")
    duration: str = Field(description="Like '5h 30m'.")
    status: str = Field(description="Like 'On Time' or 'Delayed'.")
    statusIcon: str = Field(description="URL of a small status dot.")
    price: str = Field(description="Like '$289'.")


class Hotel(BaseModel):
    """One hotel, as the hotel card shows it."""

    id: str
    name: str
    location: str = Field(description="The neighbourhood or city.")
    rating: float = Field(description="Stars, 0 to 5.")
    price: str = Field(description="Price per night, like '$350'.")


@function_tool
def search_flights(flights: list[Flight]) -> str:
    """Show flights to the user as a row of flight cards they can select from.

    Args:
        flights: Two to four flights matching the user's trip (airports, date).
    """
    return FLIGHTS_SURFACE.envelope({"flights": [flight.model_dump() for flight in flights]})


@function_tool
def search_hotels(hotels: list[Hotel]) -> str:
    """Show hotels to the user as a row of hotel cards they can book.

    Args:
        hotels: Two to four hotels matching the user's stay (place, dates).
    """
    return HOTELS_SURFACE.envelope({"hotels": [hotel.model_dump() for hotel in hotels]})


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A travel agent that shows its findings as cards."""
    return Agent(
        name="Travel search",
        instructions=(
            "You help the user find flights and hotels. For flights, call search_flights with "
            "two or three plausible flights for their trip; for hotels, call search_hotels with "
            "two or three plausible hotels. The user sees the results as cards, so do not list "
            "them again: say in one sentence what you found and that they can pick one. When "
            "the user selects a flight or books a hotel, confirm it in one sentence."
        ),
        tools=[search_flights, search_hotels],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    # Stateless, like the other A2UI examples: see a2ui_dynamic_schema.serve_designer.
    wrapped = StatelessAgent(
        build_agent(settings),
        name="a2ui_fixed_schema",
        description=DESCRIPTION,
        run_config=settings.run_config,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
