"""Backend tool rendering: a server-side tool whose call and result the client renders."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, function_tool
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Server function call and result rendering (get_weather)."
_CONDITIONS = ("Sunny", "Partly cloudy", "Overcast", "Light rain", "Windy", "Clear skies")


@function_tool
def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: The city to report on, for example "Paris".
    """
    # Made-up but stable figures: the same city always gets the same weather.
    seed = int(hashlib.sha256(city.strip().lower().encode()).hexdigest(), 16)
    temperature = 5 + seed % 25
    report = {
        "city": city.strip(),
        "conditions": _CONDITIONS[seed % len(_CONDITIONS)],
        "temperature_c": temperature,
        "feels_like_c": temperature - seed % 3,
        "humidity_percent": 40 + seed % 50,
        "wind_kph": 3 + seed % 30,
    }
    return json.dumps(report)


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """A weather assistant that calls ``get_weather`` on the server."""
    return Agent(
        name="Weather assistant",
        instructions=(
            "You report the weather. Call get_weather for the city the user names, then "
            "summarise the result in one or two sentences."
        ),
        tools=[get_weather],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` and ``GET path/health``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="backend_tool_rendering",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
