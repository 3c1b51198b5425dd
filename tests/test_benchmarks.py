"""Each benchmark runs at a tiny size and reports every figure, with sane values.

Nothing here judges speed (the timings of a tiny run mean nothing): what is checked is that
every side streamed every token, that the figures are finite and of the right sign, and that
the served load ended every stream without error. Needs the `bench` dependency group for the
pydantic-ai side; the server load starts a uvicorn process and a load generator process.
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.concurrency import measure_concurrency
from benchmarks.event_log import event_log_table, measure_event_log
from benchmarks.live_load import live_load_table, measure_live_load
from benchmarks.loop_lag import loop_lag_table, measure_loop_lag
from benchmarks.open_streams import SCENARIOS, measure_open_streams
from benchmarks.per_token import measure_memory, measure_per_token
from benchmarks.report import (
    concurrency_sweep_table,
    concurrency_table,
    memory_table,
    open_streams_table,
    per_token_table,
)
from benchmarks.resume import measure_resume, resume_table
from benchmarks.sides import pydantic_ai_version

pytestmark = pytest.mark.slow

OURS = ["sdk_bare", "sdk_adapted", "sdk_adapted_state"]

needs_pydantic_ai = pytest.mark.skipif(
    pydantic_ai_version() is None, reason="pydantic-ai is not installed (uv sync --group bench)"
)


@needs_pydantic_ai
def test_per_token_reports_every_side_and_the_ratio() -> None:
    report = measure_per_token(20, 2, warmup=0)
    assert set(report.cpu_us) == {*OURS, "pai_bare", "pai_adapted"}
    assert report.tokens_seen == dict.fromkeys(report.cpu_us, 20)
    for name, cpu in report.cpu_us.items():
        assert 0 < cpu.low <= cpu.median <= cpu.high, name
        assert report.first_event_ms[name].median > 0, name
        assert report.first_token_ms[name].median >= report.first_event_ms[name].low, name
    assert report.ours_added_us is not None and report.pai_added_us is not None
    # At this size noise can leave no repetition in which pydantic-ai's adapter added CPU.
    positive = report.pai_added_us.high > 0
    assert (report.ratio is not None) == positive
    assert report.ratio is None or math.isfinite(report.ratio.median)
    text = "\n".join(per_token_table(report))
    assert "ours / pydantic-ai's" in text and "nan" not in text


def test_per_token_without_pydantic_ai_reports_this_package_alone() -> None:
    report = measure_per_token(10, 1, warmup=0, with_pai=False)
    assert set(report.cpu_us) == set(OURS)
    assert report.tokens_seen == dict.fromkeys(OURS, 10)
    assert report.ratio is None and report.ours_added_us is not None
    assert report.ours_state_added_us is not None
    assert "added with a shared state" in "\n".join(per_token_table(report))


@needs_pydantic_ai
def test_memory_reports_a_peak_per_side() -> None:
    report = measure_memory(50)
    assert set(report.peak_kb) == {*OURS, "pai_bare", "pai_adapted"}
    assert all(peak > 0 for peak in report.peak_kb.values())
    assert len(memory_table(report)) == 4 + len(report.peak_kb)


def test_open_streams_report_the_memory_each_holds_in_both_scenarios() -> None:
    report = measure_open_streams(3, 140)
    assert set(report.bytes_per_stream) == set(SCENARIOS)
    for scenario, figures in report.bytes_per_stream.items():
        assert set(figures) == set(OURS), scenario
        assert all(held > 0 for held in figures.values()), scenario
    # A stalled client holds back what its model streams meanwhile, a paused model holds nothing.
    for name in OURS:
        stalled = report.bytes_per_stream["client stalled"][name]
        assert stalled > report.bytes_per_stream["model paused"][name], name
    table = open_streams_table(report)
    assert len(table) == 4 + len(OURS) and "nan" not in "\n".join(table)


def test_resume_reports_both_shapes_growing_linearly() -> None:
    report = measure_resume(20, 10, repetitions=1)
    assert set(report.ms) == set(report.calls) == {"matched", "hostile"}
    for shape in report.ms:
        assert all(ms > 0 for ms in report.ms[shape].values()), shape
        assert all(ms > 0 for ms in report.ms_no_gc[shape].values()), shape
        # Function calls, not time: linear growth is about 10x, matching each entry
        # against each call would be about 100x.
        assert report.calls_ratio(shape) < 15, shape
    assert len(resume_table(report)) == 2 + 3 * len(report.ms)


def test_event_log_reports_its_cost_memory_and_reattach() -> None:
    report = measure_event_log(10, 1, memory_tokens=(10, 40), lengths=(50, 200), catch_up=5)
    backends = ["in process", "Redis"] if shutil.which("redis-server") else ["in process"]
    assert list(report.cpu_us) == ["no log", *backends]
    assert report.tokens_seen == dict.fromkeys(report.cpu_us, 10)
    assert all(cpu.low > 0 for cpu in report.cpu_us.values())
    assert list(report.added_us) == list(report.batch) == backends
    assert all(batch.low >= 1 for batch in report.batch.values())
    assert (report.redis_cpu_us is not None) == ("Redis" in backends)
    for backend in backends:
        held = report.memory[backend]
        assert held[40] > held[10] > 0, backend
    assert report.memory_events[40] > report.memory_events[10] > 10
    rows = [(r.backend, r.events, r.catch_up) for r in report.reattach]
    assert rows == [(b, n, k) for b in backends for n in (50, 200) for k in (5, n)]
    assert all(0 < r.first_ms <= r.whole_ms for r in report.reattach)
    table = event_log_table(report)
    assert len(table) == 4 + 1 + len(backends) + 3 + 2 * len(backends) + 3 + 4 * len(backends)
    assert "nan" not in "\n".join(table)


def test_live_load_compares_logged_runs_with_attached_ones() -> None:
    report = measure_live_load(4, 5, 50.0, ramp=0.1, clients=1)
    stores = ["SQLite", "Redis"] if shutil.which("redis-server") else ["SQLite"]
    names = [f"{store}, {mode}" for store in stores for mode in ("attached", "logged")]
    assert list(report.loads) == names
    for load in report.loads.values():
        assert load.errors == 0 and load.tokens_received == 4 * 5
        assert load.server_cpu_s > 0 and load.latency_ms["p99"] > 0
    table = live_load_table(report)
    assert len(table) == 4 + len(names) + 3 + len(stores)
    assert "nan" not in "\n".join(table)


def test_loop_lag_reports_both_shapes() -> None:
    report = measure_loop_lag((20, 40), (0.01,), changes=3)
    assert set(report.requests) == {20, 40}
    assert report.requests[40][0] > report.requests[20][0] > 0  # request MB
    assert set(report.states) == {(0.01, False), (0.01, True)}
    for streamed, lag in report.states.values():
        assert streamed == 3  # every change streamed, none refused
        assert lag.wall_ms > 0 and lag.worst_ms >= 0 and lag.total_ms >= 0
    table = loop_lag_table(report)
    assert len(table) == 2 + 2 + 1 + 2 + 2 and "nan" not in "\n".join(table)


@pytest.mark.parametrize("server_kind", ["h11", "standard"])
def test_concurrent_streams_all_arrive_without_error(server_kind: str) -> None:
    report = measure_concurrency(
        4, 5, 50.0, ramp=0.1, timeout=60.0, server_kind=server_kind, clients=1
    )
    assert report.server == server_kind
    assert report.errors == 0, report.error_kinds
    assert report.tokens_received == 4 * 5
    assert report.latency_ms["p50"] >= 0 and report.latency_ms["p99"] >= report.latency_ms["p50"]
    assert report.stream_rate["median"] > 0 and report.aggregate_rate > 0
    assert report.server_cpu_s > 0 and report.load_cpu_s > 0
    assert report.server_rss_peak_mb >= report.server_rss_idle_mb > 0
    assert report.first_event_ms["median"] > 0
    assert any(line.startswith("| errors | 0") for line in concurrency_table(report))
    sweep = concurrency_sweep_table([report])
    assert len(sweep) == 3 and sweep[2].startswith("| ") and sweep[2].endswith(" | 0 |")
