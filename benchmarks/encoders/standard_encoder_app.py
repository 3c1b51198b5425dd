"""An app factory that serves another factory's app with ``ag_ui``'s own ``EventEncoder``.

    AG_UI_BENCHMARK_APP=server:create_app uvicorn standard_encoder_app:create_app --factory

``add_openai_agents_fastapi_endpoint`` encodes with ``FastEventEncoder``; the server benchmark
runs the same app once that way and once with this switch, to compare the two encoders. The
module stands alone (it is put on ``PYTHONPATH``), so it runs in any environment that has the
package, the examples' own included.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from ag_ui.encoder import EventEncoder

import ag_ui_openai_agents.server.endpoint

APP_VARIABLE = "AG_UI_BENCHMARK_APP"


def create_app() -> Any:
    """The app of ``$AG_UI_BENCHMARK_APP`` (``module:factory``), encoding with EventEncoder."""
    # The endpoint makes each request's encoder with ``make_encoder``, looked up per request.
    ag_ui_openai_agents.server.endpoint.make_encoder = lambda accept: EventEncoder(accept=accept)
    module, _, factory = os.environ[APP_VARIABLE].partition(":")
    return getattr(importlib.import_module(module), factory)()
