"""The stable import path ``ag_ui_openai_agents.engine``.

The code lives in :mod:`ag_ui_openai_agents.outbound.engine`.
"""

from ag_ui_openai_agents.outbound.engine import (
    IGNORED_RAW_EVENT_TYPES,
    IGNORED_RUN_ITEM_TYPES,
    RAW_EVENT_HANDLERS,
    RUN_ITEM_HANDLERS,
    AGUIToOpenAITranslator,
    OpenAIToAGUITranslator,
)

__all__ = [
    "IGNORED_RAW_EVENT_TYPES",
    "IGNORED_RUN_ITEM_TYPES",
    "RAW_EVENT_HANDLERS",
    "RUN_ITEM_HANDLERS",
    "AGUIToOpenAITranslator",
    "OpenAIToAGUITranslator",
]
