"""Every event of the benchmark workloads, encoded by both encoders, byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ag_ui.encoder import EventEncoder

from ag_ui_openai_agents.server.encoder import FAST_ENCODERS, FastEventEncoder

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks._support import run_input
from benchmarks.throughput import collect_agui
from benchmarks.workloads import Workload, handoff_chain, long_answer, record, tool_turns

WORKLOADS = {
    "long answer": lambda: long_answer(1_000),
    "tool turns": lambda: tool_turns(50),
    "handoff chain": lambda: handoff_chain(6, 18),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
async def test_every_event_of_a_workload_encodes_identically(name: str) -> None:
    workload: Workload = WORKLOADS[name]()
    events = await collect_agui(await record(workload), run_input())
    standard, fast = EventEncoder(), FastEventEncoder()
    assert [fast.encode(event) for event in events] == [standard.encode(event) for event in events]
    # The stream is nearly all fast-path events: the identity above is not the fallback's.
    quick = sum(type(event) in FAST_ENCODERS for event in events)
    assert quick >= len(events) - 2
