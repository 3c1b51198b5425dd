"""The HTTP edge: the FastAPI route, keepalive, limits, shutdown, logs and encoding."""
