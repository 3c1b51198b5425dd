"""The stable import path ``ag_ui_openai_agents.endpoint``.

The code lives in :mod:`ag_ui_openai_agents.server.endpoint`.
"""

from ag_ui_openai_agents.server.endpoint import (
    DEFAULT_KEEPALIVE_SECONDS,
    DEFAULT_MAX_REQUEST_BYTES,
    ENCODING_ERROR_MESSAGE,
    KEEPALIVE_COMMENT,
    SHUTDOWN_ERROR_CODE,
    SHUTDOWN_MESSAGE,
    add_openai_agents_fastapi_endpoint,
    make_encoder,
)

__all__ = [
    "DEFAULT_KEEPALIVE_SECONDS",
    "DEFAULT_MAX_REQUEST_BYTES",
    "ENCODING_ERROR_MESSAGE",
    "KEEPALIVE_COMMENT",
    "SHUTDOWN_ERROR_CODE",
    "SHUTDOWN_MESSAGE",
    "add_openai_agents_fastapi_endpoint",
    "make_encoder",
]
