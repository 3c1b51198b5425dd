"""How many examples a property test with its own count draws under the loaded profile."""

from __future__ import annotations

from hypothesis import settings

DEV_EXAMPLES = 100  # max_examples of the ``dev`` profile (tests/conftest.py)


def examples(under_dev: int) -> int:
    """``under_dev`` examples under the ``dev`` profile, scaled like the loaded profile's
    ``max_examples`` (the ``ci`` profile draws a fifth), at least one."""
    return max(1, under_dev * settings().max_examples // DEV_EXAMPLES)
