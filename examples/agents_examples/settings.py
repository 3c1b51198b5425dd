"""Settings shared by the examples: which model to use and how to run it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from agents import RunConfig

from demo_model import offline_run_config

__all__ = ["DEFAULT_MODEL", "ExampleSettings", "settings_from_env"]

DEFAULT_MODEL = "gpt-4.1-mini"


@dataclass(frozen=True)
class ExampleSettings:
    """The model every example agent asks for, and the ``RunConfig`` its runs use.

    ``run_config`` is ``None`` for live OpenAI runs; offline it routes every model call of a
    run (handoff targets and agents used as tools included) to the demo model.
    """

    model: str = DEFAULT_MODEL
    run_config: RunConfig | None = None

    @property
    def offline(self) -> bool:
        """Whether the examples run on the offline demo model."""
        return self.run_config is not None

    @classmethod
    def offline_demo(cls, model: str = DEFAULT_MODEL) -> ExampleSettings:
        """Settings that run everything on the offline demo model."""
        return cls(model=model, run_config=offline_run_config())


def settings_from_env(environ: Mapping[str, str] | None = None) -> ExampleSettings:
    """Read ``OPENAI_DEFAULT_MODEL`` and ``OPENAI_API_KEY``; no key means the offline demo."""
    env = os.environ if environ is None else environ
    model = env.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL
    if env.get("OPENAI_API_KEY"):
        return ExampleSettings(model=model)
    return ExampleSettings.offline_demo(model)
