"""Internal: the HTTP edge: the FastAPI route, keepalive, limits, shutdown, logs and encoding."""
