"""Suite-wide fixtures, the two test tiers and the Hypothesis profiles.

Tiers: a test is ``slow`` when it runs a real AG-UI client under Node, CopilotKit's runtime,
separate server processes, the wheel build or the benchmarks, or is a long load or search
test; every other test is the fast tier (unit and in-process tests). The fast tier runs on
every CI cell (``pytest -m "not slow"``); the slow tier runs once, on the newest SDK. The
tier is given here, by file, by fixture and by what the test calls, not test by test.

Hypothesis: the ``dev`` profile draws Hypothesis's default number of examples; the ``ci``
profile (``HYPOTHESIS_PROFILE=ci``, which ``dev.py test`` sets under CI and for the older
SDK and Python) draws a fifth of them, derandomized and without deadlines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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

TESTS = Path(__file__).resolve().parent

SLOW_FILES = {
    "test_dev.py",  # dev.py in subprocesses, a virtual environment of its own
    "test_packaging.py",  # builds and installs the wheel
    "test_benchmarks.py",  # every benchmark end to end, servers and load processes
    "test_e2e_replay.py",  # real clients and CopilotKit's runtime
    "test_subagents_e2e.py",
    "test_reliability_scaleout.py",  # several server processes
    "approvals/test_approval_signed_processes.py",
    "threads/test_redis_store.py",  # a real redis-server
    "threads/test_threads_replicas.py",  # server processes sharing Redis or an SQLite file
}
"""Files whose every test is slow, relative to ``tests/``."""

SLOW_TESTS = {
    # In-process, but long: load, every stream position, a search over thousands of requests.
    "test_reliability_isolation.py::test_two_hundred_concurrent_runs_share_nothing",
    "test_reliability_faults.py::test_the_client_dropping_the_http_stream_at_every_event",
    "outbound/test_engine.py::test_one_hundred_concurrent_runs_on_one_translator_do_not_mix",
    "approvals/test_approval_signed_fuzz.py::test_the_requests_drawn_reach_every_outcome",
    # Worker processes started together on one new SQLite file.
    "threads/test_sqlite_store.py::test_worker_processes_starting_on_a_new_file_all_succeed",
}
"""Tests (``file::name`` relative to ``tests/``, any parameters) that are slow on their own."""

SLOW_FIXTURES = {"slow_server", "stoppable", "two_servers", "redis_server"}
"""Fixtures that start server processes."""

SLOW_CALLS = {"run_client", "serve_copilot_runtime", "server_processes"}
"""Helpers that start Node or server processes, called from a test's own body."""


def is_slow(item: pytest.Item) -> bool:
    """True for a test of the slow tier."""
    path = Path(str(item.path)).resolve()
    where = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else ""
    if where in SLOW_FILES or f"{where}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS:
        return True
    if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    function = getattr(item, "function", None)
    names = getattr(getattr(function, "__code__", None), "co_names", ())
    return bool(SLOW_CALLS.intersection(names))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _fresh_known_outputs() -> Iterator[None]:
    """Each test checks model requests against the responses of its own models only."""
    OUTPUTS.clear()
    yield
    OUTPUTS.clear()
