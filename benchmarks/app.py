"""A stand-in server app: ``OpenAIAgentsAgent`` on the project's scripted model.

Used by the server benchmark when the example server cannot be started (its own
environment is missing). Start it with
``uvicorn benchmarks.app:create_app --factory`` from the repository root.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunConfig, set_tracing_disabled
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint

from ._support import scripted
from .workloads import words

__all__ = ["PATH", "ScriptedTurnsProvider", "create_app"]

PATH = "/agent"
"""The AG-UI route of the app."""


class ScriptedTurnsProvider(ModelProvider):
    """A fresh scripted model per model call: a reasoning summary, then a streamed answer.

    A fresh model keeps the server's memory flat however many runs it serves.
    """

    def get_model(self, model_name: str | None) -> Model:
        """A one-turn scripted model."""
        sc = scripted()
        turn = sc.Turn(
            items=[
                sc.Reasoning(summary=[words(20)], chunks=8),
                sc.Text(words(60), chunks=60),
            ]
        )
        model: Model = sc.ScriptedResponsesModel(lambda _call: turn)
        return model


def create_app() -> FastAPI:
    """The app: one agent under :data:`PATH`, with ``/health``."""
    set_tracing_disabled(True)
    agent: Agent[Any] = Agent(name="assistant", instructions="Answer at some length.")
    wrapped = OpenAIAgentsAgent(
        agent,
        name="assistant",
        run_config=RunConfig(model_provider=ScriptedTurnsProvider(), tracing_disabled=True),
    )
    app = FastAPI()
    add_openai_agents_fastapi_endpoint(app, wrapped, PATH)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app
