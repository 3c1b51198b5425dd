"""Suite-wide fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.responses_input import OUTPUTS


@pytest.fixture(autouse=True)
def _fresh_known_outputs() -> Iterator[None]:
    """Each test checks model requests against the responses of its own models only."""
    OUTPUTS.clear()
    yield
    OUTPUTS.clear()
