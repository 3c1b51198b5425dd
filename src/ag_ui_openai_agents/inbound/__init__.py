"""Internal: inbound translation, an AG-UI ``RunAgentInput`` turned into SDK input."""
