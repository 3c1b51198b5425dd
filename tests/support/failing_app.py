"""A FastAPI app whose every run fails, served as an application would serve it.

Run it with ``python -m uvicorn support.failing_app:app`` (``tests`` on ``PYTHONPATH``) and no
logging options: the app configures no logging, as an application written from the README
does not. Every run of ``POST /agent`` fails when the model is looked up, raising
:class:`ModelRegistryDown` with :data:`FAILURE_MESSAGE`.

With ``FAILING_APP_LOG_FORMAT`` set, the app configures the root logger itself
(``logging.basicConfig``, records at WARNING and up to stderr in that format) before anything
else: the application has taken control of its logs.
"""

from __future__ import annotations

import logging
import os

from agents import Agent, RunConfig
from agents.models.interface import Model, ModelProvider
from fastapi import FastAPI

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint

__all__ = ["FAILURE_MESSAGE", "LOG_FORMAT_ENV", "ModelRegistryDown", "app"]

LOG_FORMAT_ENV = "FAILING_APP_LOG_FORMAT"
FAILURE_MESSAGE = "the model registry is down for maintenance"


class ModelRegistryDown(RuntimeError):
    """What every run of this app raises."""


class DownProvider(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        raise ModelRegistryDown(FAILURE_MESSAGE)


if os.environ.get(LOG_FORMAT_ENV):
    logging.basicConfig(level=logging.WARNING, format=os.environ[LOG_FORMAT_ENV])

app = FastAPI()
shop = Agent(name="shop", instructions="Help with orders.")
config = RunConfig(model_provider=DownProvider(), tracing_disabled=True)
add_openai_agents_fastapi_endpoint(app, OpenAIAgentsAgent(shop, run_config=config), "/agent")
