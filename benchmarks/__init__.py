"""Benchmarks of ag-ui-openai-agents: translator throughput against a floor, linear cost,
peak memory, and the HTTP server under concurrent clients.

Run them all with ``uv run python -m benchmarks`` from the repository root (see
``benchmarks/README.md``).
"""
