"""The benchmarks run end to end at tiny sizes and report well-formed, finite figures.

Nothing here judges speed: the timings of a tiny run mean nothing. What is checked is that
every benchmark runs on the real SDK runner and the real server, that the report has every
section, and that every streamed run the server answered is a valid AG-UI stream.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.__main__ import Settings, run_benchmarks
from benchmarks._support import run_input
from benchmarks.throughput import bound_events, collect_agui, group_produced, plan_bound
from benchmarks.workloads import Workload, handoff_chain, long_answer, record, tool_turns


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One tiny run of every benchmark, shared by the tests of this module."""
    settings = Settings.quick()
    settings.server_app = "scripted"
    settings.out_dir = tmp_path_factory.mktemp("bench")
    data = asyncio.run(run_benchmarks(settings, "smoke"))
    data["_out_dir"] = settings.out_dir
    return data


def test_throughput_covers_every_workload_with_finite_ratios(
    results: dict[str, Any],
) -> None:
    names = [entry["name"] for entry in results["throughput"]]
    assert len(names) == len(Settings.quick().long_deltas) + 2
    assert any("tool calls" in name for name in names)
    assert any("handoff" in name for name in names)
    for entry in results["throughput"]:
        assert entry["sdk_events"] > 0
        assert entry["agui_events"] > 0
        assert _finite(entry["ratio_of_medians"])
        for key in (
            "total_us_per_event",
            "floor_us_per_event",
            "ratio_per_repetition",
            "bound_us_per_event",
            "bound_ratio_per_repetition",
            "interleaved_ratio_per_repetition",
            "fast_us_per_event",
            "fast_ratio_per_repetition",
            "minimal_ratio_per_repetition",
        ):
            spread = entry[key]
            assert len(spread["samples"]) == Settings.quick().repetitions
            assert all(_finite(value) for value in spread["samples"])
            assert spread["min"] <= spread["median"] <= spread["max"]


@pytest.mark.parametrize("workload", [long_answer(12), tool_turns(2), handoff_chain(3, 3)])
def test_the_bound_yields_what_the_translator_yields(workload: Workload) -> None:
    """The bound rebuilds every event of a real translation, in order, with equal values."""

    async def both() -> tuple[list[Any], list[Any]]:
        events = await record(workload)
        request = run_input()
        translated = await collect_agui(events, request)
        plan = plan_bound(events, request, translated)
        return translated, [event async for event in bound_events(events, plan)]

    translated, rebuilt = asyncio.run(both())
    assert [type(event) for event in rebuilt] == [type(event) for event in translated]
    assert all(a is not b for a, b in zip(rebuilt, translated, strict=True))
    assert [_without_ids(e) for e in rebuilt] == [_without_ids(e) for e in translated]


@pytest.mark.parametrize("workload", [long_answer(12), tool_turns(2), handoff_chain(3, 3)])
def test_the_minimal_translator_yields_what_the_translator_yields_and_keeps_every_delta(
    workload: Workload,
) -> None:
    from benchmarks.minimal import DELTA_CLASSES, MinimalTranslator, minimal_events

    async def both() -> tuple[list[Any], list[Any], list[Any]]:
        events = await record(workload)
        request = run_input()
        translated = await collect_agui(events, request)
        plan = plan_bound(events, request, translated)
        return events, translated, [event async for event in minimal_events(events, plan)]

    events, translated, rebuilt = asyncio.run(both())
    assert [type(event) for event in rebuilt] == [type(event) for event in translated]
    assert all(a is not b for a, b in zip(rebuilt, translated, strict=True))
    assert [_without_ids(e) for e in rebuilt] == [_without_ids(e) for e in translated]

    plan = plan_bound(events, run_input(), translated)
    minimal = MinimalTranslator(plan[1])
    for event in events:
        minimal.translate(event)
    deltas = [e.data.delta for e in events if type(getattr(e, "data", None)) in DELTA_CLASSES]
    kept = [delta for texts in minimal.texts.values() for delta in texts]
    assert deltas and sorted(kept) == sorted(deltas)


@pytest.mark.parametrize("workload", [long_answer(12), tool_turns(2), handoff_chain(3, 3)])
def test_the_interleaved_floor_encodes_the_translation_in_order(workload: Workload) -> None:
    """Each SDK event is followed by the very events the translator produced for it."""

    async def grouped() -> tuple[list[Any], list[Any], Any]:
        events = await record(workload)
        request = run_input()
        translated = await collect_agui(events, request)
        return events, translated, group_produced(events, request, translated)

    events, translated, (head, after) = asyncio.run(grouped())
    assert len(after) == len(events)
    flat = [*head, *(event for group in after for event in group)]
    assert len(flat) == len(translated)
    assert all(a is b for a, b in zip(flat, translated, strict=True))
    assert [type(event).__name__ for event in head] == ["RunStartedEvent"]
    assert type(after[-1][-1]).__name__ == "RunFinishedEvent"


def _without_ids(event: Any) -> dict[str, Any]:
    """An event's fields, leaving out the values that may hold freshly generated ids."""
    dumped: dict[str, Any] = event.model_dump(exclude_none=True)
    return {key: value for key, value in dumped.items() if not key.endswith("id")}


def test_linearity_and_memory_are_reported(results: dict[str, Any]) -> None:
    linear = results["linearity"]
    assert linear["large"] > linear["small"]
    assert _finite(linear["ratio"])
    assert _finite(linear["translation_ratio"])
    assert _finite(linear["fast_ratio"])
    assert len(linear["samples"]) == Settings.quick().repetitions
    memory = results["memory"]
    assert memory["text_bytes"] > 0
    assert memory["translate_peak_bytes"] > 0
    assert memory["encode_peak_bytes"] > 0
    assert memory["fast_encode_peak_bytes"] > 0
    assert memory["live_translate_peak_bytes"] > 0
    assert memory["live_fast_encode_peak_bytes"] > 0
    assert _finite(memory["live_fast_encode_ratio"])
    assert _finite(memory["translate_ratio"])


def test_real_runs_stream_what_was_recorded(results: dict[str, Any]) -> None:
    """Each real run streams as many SDK events as the recording of the same workload."""
    recorded = {entry["name"]: entry["sdk_events"] for entry in results["throughput"]}
    runs = results["real_run"]
    assert len(runs) == 3
    for run in runs:
        assert run["sdk_events"] == recorded[run["name"]]
        for key in (
            "bare_us_per_event",
            "adapted_us_per_event",
            "added_share",
            "fast_us_per_event",
            "fast_overhead",
            "fast_overhead_cpu",
        ):
            assert len(run[key]) == Settings.quick().real_run_repetitions
            assert all(_finite(value) for value in run[key])
        assert all(value > 0 for value in run["bare_us_per_event"] + run["adapted_us_per_event"])
        assert all(share < 1 for share in run["added_share"])


def test_server_levels_stream_only_valid_runs(results: dict[str, Any]) -> None:
    server = results["server"]
    assert "scripted model" in server["target"]
    levels = server["levels"]
    assert [(level["workers"], level["encoder"], level["clients"]) for level in levels] == [
        ("1", "fast", 1),
        ("1", "standard", 1),
        ("1", "fast", 4),
        ("1", "standard", 4),
    ]
    for level in levels:
        runs = sum(level["runs"])
        assert runs > 0
        assert level["errors"] == 0, level["error_samples"]
        assert level["valid_streams"] == runs
        assert all(_finite(value) for value in level["runs_per_second"])
        assert all(_finite(value) for value in level["ttfe_p50_ms"] + level["ttfe_p99_ms"])


def test_results_files_are_written(results: dict[str, Any]) -> None:
    out: Path = results["_out_dir"]
    saved = json.loads((out / "results.json").read_text())
    assert saved["machine"]["nproc"] >= 1
    assert set(saved["machine"]["packages"]) >= {"openai-agents", "ag-ui-protocol"}
    report = (out / "results.md").read_text()
    headings = (
        "## Translator throughput",
        "## Inside a real run",
        "## Linear cost and memory",
        "## Server",
    )
    for heading in headings:
        assert heading in report


@pytest.mark.parametrize(
    "side", ["engine", "total", "fast", "floor", "interleaved", "bound", "minimal"]
)
def test_the_instruction_count_child_replays_every_side(
    side: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What callgrind counts runs on its own too (the count itself needs valgrind)."""
    from benchmarks import instructions

    frozen = gc.get_freeze_count()
    assert instructions.main(["--child", "handoff chain, 6 agents, 18 handoffs", side]) == 0
    assert capsys.readouterr().out.startswith("sdk-events ")
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


@pytest.mark.skipif(sys.version_info < (3, 11), reason="operator.call is new in Python 3.11")
@pytest.mark.parametrize(
    "kind", ["output_text.delta", "item:tool_call_output_item", "messages snapshot"]
)
def test_the_per_kind_child_counts_the_events_of_its_kind(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--kinds`` runs one child per kind; each reports how many events of it it translated."""
    from benchmarks import instructions

    events = asyncio.run(
        record(instructions.WORKLOADS["10 turns: reasoning + 3 tool calls + text"]())
    )
    expected = (
        1
        if kind == instructions.SNAPSHOT
        else sum(instructions.event_kind(event) == kind for event in events)
    )
    assert expected > 0
    assert instructions.main(["--kind", "10 turns: reasoning + 3 tool calls + text", kind]) == 0
    assert capsys.readouterr().out == f"sdk-events {expected}\n"
    assert gc.isenabled()


def test_every_sdk_event_of_a_workload_has_a_kind_naming_what_it_is() -> None:
    from benchmarks import instructions

    events = asyncio.run(record(tool_turns(2)))
    kinds = {instructions.event_kind(event) for event in events}

    assert {"output_text.delta", "output_item.added:function_call", "item:tool_call_item"} <= kinds
    assert {"output_item.done:reasoning", "agent_updated_stream_event"} <= kinds
    assert not any(kind.startswith("response.") for kind in kinds)


@pytest.mark.parametrize("side", ["run-bare", "run-fast"])
def test_the_real_run_child_runs_the_long_answer(
    side: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import instructions

    monkeypatch.setattr(instructions, "REAL_RUN_DELTAS", 50)
    assert instructions.main(["--child", instructions.REAL_RUN_WORKLOAD, side]) == 0
    assert capsys.readouterr().out == "sdk-events 60\n"
