"""Subgraphs: a travel supervisor and three specialist agents that build one shared itinerary.

The AG-UI Dojo's subgraphs page (a LangGraph demo) shows a supervisor routing to a flights, a
hotels and an experiences agent, each a subgraph, while the page draws the shared state:
``{"itinerary": {"flight", "hotel"}, "flights", "hotels", "experiences", "planning_step",
"active_agent"}``. Here the specialists are agents used as tools (``flights_agent``,
``hotels_agent``, ``experiences_agent``, with the SDK's ``{"input": string}`` arguments) whose
work streams as AG-UI subagents (``on_stream=subagent_events``). Each marks itself as the active
agent while it works (agent hooks) and records its options and its choice in the shared state,
so the page's itinerary fills in as the plan goes.

What AG-UI does not carry: the page asks the person to pick a flight and a hotel through
``useLangGraphInterrupt``, LangGraph's own protocol (a CUSTOM ``on_interrupt`` event, answered
with ``forwardedProps.command.resume``). Here each specialist books the option the person named
in the request ("... flying United, staying at Hotel Zephyr"), else its recommendation, and says
why; the person changes it by asking again.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ag_ui_openai_agents import (
    OpenAIAgentsAgent,
    StateUpdates,
    add_openai_agents_fastapi_endpoint,
    shared_state,
    subagent_events,
)
from agents import (
    Agent,
    AgentHooks,
    ModelSettings,
    RunContextWrapper,
    function_tool,
)
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "A supervisor and three specialist subagents building one shared itinerary."
KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""
SPECIALISTS = ("flights_agent", "hotels_agent", "experiences_agent")
FLIGHTS = (
    {
        "airline": "KLM",
        "departure": "Amsterdam (AMS)",
        "arrival": "San Francisco (SFO)",
        "price": "$650",
        "duration": "11h 30m",
    },
    {
        "airline": "United",
        "departure": "Amsterdam (AMS)",
        "arrival": "San Francisco (SFO)",
        "price": "$720",
        "duration": "12h 15m",
    },
)
HOTELS = (
    {"name": "Hotel Zoe", "location": "Union Square", "price_per_night": "$320/night",
     "rating": "4.4 stars"},
    {"name": "Hotel Zephyr", "location": "Fisherman's Wharf", "price_per_night": "$280/night",
     "rating": "4.2 stars"},
    {"name": "The Ritz-Carlton", "location": "Nob Hill", "price_per_night": "$550/night",
     "rating": "4.8 stars"},
)  # fmt: skip
EXPERIENCES = (
    {"name": "Pier 39", "type": "activity", "location": "Fisherman's Wharf",
     "description": "Waterfront shops, street performers and sea lions."},
    {"name": "Golden Gate Bridge", "type": "activity", "location": "Golden Gate",
     "description": "Walk or cycle across for views of the bay."},
    {"name": "Swan Oyster Depot", "type": "restaurant", "location": "Polk Street",
     "description": "A historic seafood counter with fresh oysters."},
    {"name": "Tartine Bakery", "type": "restaurant", "location": "Mission District",
     "description": "Bread and pastries worth the queue."},
)  # fmt: skip


def _itinerary() -> dict[str, Any]:
    value = shared_state().value
    itinerary = value.get("itinerary") if isinstance(value, dict) else None
    return dict(itinerary) if isinstance(itinerary, dict) else {}


@function_tool
def find_flights(airline: Literal["KLM", "United"]) -> str:
    """Find the flights from Amsterdam to San Francisco and book one.

    Args:
        airline: The airline to book: the one the user asked for, else KLM (on time, cheaper).
    """
    flight = next(f for f in FLIGHTS if f["airline"] == airline)
    shared_state().update(flights=list(FLIGHTS), itinerary={**_itinerary(), "flight": flight})
    return f"Found {len(FLIGHTS)} flights; booked {json.dumps(flight)}."


@function_tool
def find_hotels(hotel: Literal["Hotel Zoe", "Hotel Zephyr", "The Ritz-Carlton"]) -> str:
    """Find hotels in San Francisco and book one.

    Args:
        hotel: The hotel to book: the one the user asked for, else Hotel Zoe (the best balance
            of rating, price and location).
    """
    chosen = next(h for h in HOTELS if h["name"] == hotel)
    itinerary = {**_itinerary(), "hotel": chosen}
    shared_state().update(hotels=list(HOTELS), itinerary=itinerary)
    flight = itinerary.get("flight")
    arriving = f" for the {flight['airline']} flight" if isinstance(flight, dict) else ""
    return f"Found {len(HOTELS)} hotels; booked{arriving}: {json.dumps(chosen)}."


@function_tool
def find_experiences() -> str:
    """Find two restaurants and two activities near the booked hotel."""
    shared_state().update(experiences=list(EXPERIENCES))
    hotel = _itinerary().get("hotel")
    near = f" near {hotel['name']}" if isinstance(hotel, dict) else ""
    found = "; ".join(f"{e['name']} ({e['type']})" for e in EXPERIENCES)
    return f"Found{near}: {found}."


class ActiveAgent(AgentHooks[Any]):
    """Marks a specialist as the page's active agent while it works, the supervisor after."""

    def __init__(self, key: str) -> None:
        self.key = key

    async def on_start(self, context: Any, agent: Agent[Any]) -> None:
        shared_state().update(active_agent=self.key, planning_step=f"{self.key}_working")

    async def on_end(self, context: Any, agent: Agent[Any], output: Any) -> None:
        shared_state().update(active_agent="supervisor", planning_step=f"{self.key}_done")


def _specialist(key: str, instructions: str, tool: Any, settings: ExampleSettings) -> Agent[Any]:
    """A specialist that always calls its own tool first, then says what it booked."""
    return Agent(
        name=f"{key.title()} agent",
        instructions=instructions,
        tools=[tool],
        model_settings=ModelSettings(tool_choice="required"),
        hooks=ActiveAgent(key),
        model=settings.model,
    )


def build_specialists(settings: ExampleSettings) -> dict[str, Agent[Any]]:
    """The flights, hotels and experiences agents, by the name of the tool each becomes."""
    return {
        "flights_agent": _specialist(
            "flights",
            "You are the flights agent. Call find_flights with the airline the user asked for "
            "(KLM when they did not say), then say in one sentence which flight you booked.",
            find_flights,
            settings,
        ),
        "hotels_agent": _specialist(
            "hotels",
            "You are the hotels agent. Call find_hotels with the hotel the user asked for "
            "(Hotel Zoe when they did not say), then say in one sentence which hotel you booked.",
            find_hotels,
            settings,
        ),
        "experiences_agent": _specialist(
            "experiences",
            "You are the experiences agent. Call find_experiences, then recommend what it found "
            "in two short sentences.",
            find_experiences,
            settings,
        ),
    }


_TOOL_DESCRIPTIONS = {
    "flights_agent": "Plan the trip's flights: find flights and book the one the user wants.",
    # Naming the tool each one follows tells the model (and the demo model) the order.
    "hotels_agent": "Book a hotel for the stay, once flights_agent has booked the flight.",
    "experiences_agent": "Suggest restaurants and activities, once hotels_agent has booked.",
}


def supervisor_instructions(wrapper: RunContextWrapper[Any], agent: Agent[Any]) -> str:
    """The supervisor's prompt, with the itinerary the page holds."""
    itinerary = json.dumps(_itinerary(), ensure_ascii=False)
    return (
        "You are a travel planning supervisor for a trip from Amsterdam to San Francisco. To "
        "plan the trip, call flights_agent, then hotels_agent, then experiences_agent, each "
        "once, passing on what the user asked for (an airline, a hotel). Then sum the "
        "itinerary up in a short Markdown list. To change one booking, call only that "
        "specialist. Answer other questions yourself.\n\n"
        f"The itinerary so far: {itinerary}"
    )


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The supervisor, with the three specialists as tools streaming as subagents."""
    return Agent(
        name="Travel supervisor",
        instructions=supervisor_instructions,
        tools=[
            specialist.as_tool(
                tool_name=name,
                tool_description=_TOOL_DESCRIPTIONS[name],
                on_stream=subagent_events,
            )
            for name, specialist in build_specialists(settings).items()
        ],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="subgraphs",
        description=DESCRIPTION,
        run_config=settings.run_config,
        state=StateUpdates(deltas=True),
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
