"""The example server on a model that never answers, for the SIGTERM test.

Run it with ``python -m uvicorn stalled_app:app`` (``examples``, ``examples/tests`` and the
repository's ``tests`` on ``PYTHONPATH``): every run starts, then waits on the model until it is
cancelled.
"""

from __future__ import annotations

from agents import RunConfig, set_tracing_disabled
from support.scripted import RecordedCall, ScriptedProvider, ScriptedResponsesModel, Text, Turn

from agents_examples import ExampleSettings
from server import create_app

set_tracing_disabled(True)


def stall(call: RecordedCall) -> Turn:
    """A turn whose first event comes after an hour."""
    return Turn([Text("never")], delay=3600)


model = ScriptedResponsesModel(stall, model_name="stalled")
settings = ExampleSettings(
    run_config=RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True),
    approval_secret=("s" * 32,),
)
app = create_app(settings)
