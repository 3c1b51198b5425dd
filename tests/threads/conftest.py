"""The real Redis server of the thread tests (the tests that use it are marked slow)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.redis_server import redis_server_process


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[str]:
    """The URL of a ``redis-server`` started for this test."""
    with redis_server_process(tmp_path / "redis") as url:
        yield url
