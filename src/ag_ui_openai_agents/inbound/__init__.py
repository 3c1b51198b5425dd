"""Inbound translation: an AG-UI ``RunAgentInput`` turned into OpenAI Agents SDK input."""

from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator, TranslatedInput

__all__ = ["AGUIToOpenAITranslator", "TranslatedInput"]
