"""AG-UI protocol adapter for the OpenAI Agents SDK."""
