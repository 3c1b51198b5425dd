"""The stable import path ``ag_ui_openai_agents.logs``.

The code lives in :mod:`ag_ui_openai_agents.server.logs`.
"""

from ag_ui_openai_agents.server.logs import (
    PACKAGE_LOGGER,
    RunIds,
    RunIdsFilter,
    context_with_run_ids,
    current_run_ids,
    install_run_ids_filter,
    run_ids,
    run_logger,
)

__all__ = [
    "PACKAGE_LOGGER",
    "RunIds",
    "RunIdsFilter",
    "context_with_run_ids",
    "current_run_ids",
    "install_run_ids_filter",
    "run_ids",
    "run_logger",
]
