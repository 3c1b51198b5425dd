"""The engine classes behind :class:`~ag_ui_openai_agents.AGUITranslator`, to subclass.

Their ``translate_*`` methods are the override points: subclass the side you need and pass the
class to ``AGUITranslator(inbound_cls=...)`` or ``AGUITranslator(outbound_cls=...)``.
"""

from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator

__all__ = ["AGUIToOpenAITranslator", "OpenAIToAGUITranslator"]
