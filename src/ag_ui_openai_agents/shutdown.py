"""The stable import path ``ag_ui_openai_agents.shutdown``.

The code lives in :mod:`ag_ui_openai_agents.server.shutdown`.
"""

from ag_ui_openai_agents.server.shutdown import (
    ServerShutdown,
    server_shutdown,
)

__all__ = [
    "ServerShutdown",
    "server_shutdown",
]
