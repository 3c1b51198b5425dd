"""The package's FastAPI endpoint around the offline scripted model, and a client for it."""

from __future__ import annotations

from typing import Any

import httpx
from agents import Agent, RunConfig
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from support.scripted import ScriptedProvider, ScriptedResponsesModel

__all__ = ["app_with", "asgi_client", "wrapper_for"]


def wrapper_for(
    agent: Agent[Any], model: Model | None = None, *, provider: ModelProvider | None = None,
    **options: Any,
) -> OpenAIAgentsAgent:  # fmt: skip
    """The wrapper around ``agent``, its model scripted (or ``provider``), tracing off."""
    chosen = (
        provider if provider is not None else ScriptedProvider(model or ScriptedResponsesModel())
    )
    return OpenAIAgentsAgent(
        agent, run_config=RunConfig(model_provider=chosen, tracing_disabled=True), **options
    )


def app_with(wrapper: OpenAIAgentsAgent, path: str = "/agent", **options: Any) -> FastAPI:
    """An app serving ``wrapper`` at ``path`` through the endpoint helper."""
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapper, path, **options)
    return app


def asgi_client(app: FastAPI) -> httpx.AsyncClient:
    """An httpx client that calls ``app`` in process."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
