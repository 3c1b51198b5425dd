"""Suite-wide fixtures and the Hypothesis profiles.

Tiers: a test is ``slow`` when it runs a real AG-UI client under Node, CopilotKit's runtime,
separate server processes, the wheel build or the benchmarks, or is a long load or search
test; every other test is the fast tier (unit and in-process tests). The fast tier runs on
every CI cell (``pytest -m "not slow"``); the slow tier runs once, on the newest SDK. The
tier is marked on the tests themselves: ``pytestmark = pytest.mark.slow`` for a whole file,
``@pytest.mark.slow`` for one test.

Hypothesis: the ``dev`` profile draws Hypothesis's default number of examples; the ``ci``
profile (``HYPOTHESIS_PROFILE=ci``, which ``dev.py test`` sets under CI and for the older
SDK and Python) draws a fifth of them, derandomized and without deadlines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from support.responses_input import OUTPUTS

settings.register_profile("dev", max_examples=100)
settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def _fresh_known_outputs() -> Iterator[None]:
    """Each test checks model requests against the responses of its own models only."""
    OUTPUTS.clear()
    yield
    OUTPUTS.clear()
