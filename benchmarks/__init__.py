"""Benchmarks of the AG-UI adapter: `python -m benchmarks` (see README.md here)."""
