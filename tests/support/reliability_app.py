"""A FastAPI app for scale-out tests: a frontend tool round trip and an approval, offline.

Run it with ``python -m uvicorn support.reliability_app:app`` (``tests`` on ``PYTHONPATH``).
Every process builds its own agent and scripted model and keeps nothing between requests; the
model decides each turn from the request input alone, so any process answers a request the
same way:

* the latest user message asks to plan a trip to a city → call the client tool ``show_plan``
  (call id ``call_plan_<k>``, ``k`` = number of user messages so far);
* the input holds that call's output → say so and call the approval-gated ``book_hotel``
  (``call_book_<k>``);
* the input holds the booking's output → answer with text quoting it;
* any other user message → a short text answer.

Text items get ids derived from the conversation (a provider's ids are unique, and ids
that restart in every process would collide across processes). The first turn has no text, so
its assistant message gets an id the server generates (``msg_…``), which differs between
processes. Every response carries ``x-served-by`` with the
name in ``RELIABILITY_APP_NAME``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from typing import Any

from agents import Agent, RunConfig, function_tool, set_tracing_disabled
from fastapi import FastAPI, Request, Response

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnUsage,
)

__all__ = ["CLIENT_TOOL", "NAME_ENV", "SERVER_TOOL", "app", "build_app", "decide"]

NAME_ENV = "RELIABILITY_APP_NAME"
CLIENT_TOOL = "show_plan"
SERVER_TOOL = "book_hotel"

set_tracing_disabled(True)


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return " ".join(str(p.get("text", "")) for p in content or [] if isinstance(p, dict))


def _output_of(items: list[dict[str, Any]], call_id: str) -> Any:
    for item in items:
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
            return item.get("output")
    return None


def decide(call: RecordedCall) -> Turn:
    """The model's turn, from its input alone (see the module docstring)."""
    users = [i for i, item in enumerate(call.input) if item.get("role") == "user"]
    if not users:
        return Turn([Text("What can I do for you?", id="text-0-hello")])
    k = len(users)
    latest = call.input[users[-1] :]
    request = _text(call.input[users[-1]])
    match = re.search(r"plan a trip to (\w+)", request, re.IGNORECASE)
    if match is None:
        return Turn([Text(f"You said: {request}", id=f"text-{k}-echo")], usage=TurnUsage(5, 2))
    city = match.group(1)
    booked = _output_of(latest, f"call_book_{k}")
    if booked is not None:
        return Turn([Text(f"All set. {booked}", id=f"text-{k}-done")], usage=TurnUsage(14, 6))
    plan = _output_of(latest, f"call_plan_{k}")
    if plan is not None:
        book = Call(SERVER_TOOL, {"city": city}, call_id=f"call_book_{k}", id=f"fc_book_{k}")
        text = Text(f"The plan says {plan}.", id=f"text-{k}-book")
        return Turn([text, book], usage=TurnUsage(11, 5))
    show = Call(CLIENT_TOOL, {"city": city, "days": 3}, call_id=f"call_plan_{k}", id=f"fc_plan_{k}")
    return Turn([show], usage=TurnUsage(8, 4))


def build_app() -> FastAPI:
    """A new app with its own agent and model."""
    name = os.environ.get(NAME_ENV, "unnamed")

    @function_tool(name_override=SERVER_TOOL, needs_approval=True)
    def book_hotel(city: str) -> str:
        """Book a hotel."""
        return f"Hotel booked in {city}."

    model = ScriptedResponsesModel(decide, model_name="scripted-travel")
    agent = Agent(name="travel", instructions="Plan trips.", tools=[book_hotel])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    application = FastAPI()
    wrapped = OpenAIAgentsAgent(agent, run_config=config, run_error_message="Travel failed.")
    add_openai_agents_fastapi_endpoint(application, wrapped, "/agent")

    @application.middleware("http")
    async def served_by(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers["x-served-by"] = name
        return response

    return application


app = build_app()
