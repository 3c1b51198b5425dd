"""How the cost of ``resume_tool_calls`` grows with the request: N, then 10N calls and entries.

Two request shapes, each timed at N and at ``scale`` * N open calls with as many resume entries
(the caps are raised to fit, so the matching itself is measured, not the refusal):

- *matched*: N paused calls of an approval-gated tool, distinct ids, each rejected by its own
  entry (a rejection runs no tool, so only matching and answering are timed);
- *hostile*: N open calls of a tool that needs no approval, sharing one id, N user messages
  holding the ids their results would take (``<id>-result``, ``<id>-result-2``, ...) and N
  entries naming no open call (each call is answered ``ABANDONED``).

Linear matching takes about ``scale`` times as long for the larger request; matching every
entry against every call would take about ``scale``² times as long. Two figures per run: the
CPU time (``time.process_time``, the least of the repetitions, after a ``gc.collect()``; once
as a server runs it, once with the cyclic garbage collector paused, whose passes over a large
request's objects grow faster than the request), which a busy machine disturbs, and the number
of Python and C function calls made (counted with ``sys.setprofile`` in one more run), which it
does not: its ratio shows the growth of the package's own work exactly.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ResumeEntry,
    RunAgentInput,
    ToolCall,
    UserMessage,
)
from agents import Agent, function_tool

from ag_ui_openai_agents import resume_tool_calls

__all__ = ["ResumeReport", "measure_resume", "resume_table"]


@function_tool(needs_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order."""
    return f"Refunded {order_id}"


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"Order {order_id}"


AGENT = Agent(name="refunds", tools=[issue_refund, lookup_order])


def _paused(call_id: str, index: int, tool: str = "issue_refund") -> AssistantMessage:
    arguments = json.dumps({"order_id": f"A-{index}"})
    return AssistantMessage(
        id=f"assistant-{index}",
        tool_calls=[ToolCall(id=call_id, function=FunctionCall(name=tool, arguments=arguments))],
    )


def _request(messages: list[Message], entries: list[ResumeEntry]) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-1",
        run_id="run-2",
        state={},
        messages=messages,
        tools=[],
        context=[],
        forwarded_props=None,
        resume=entries,
    )


def matched(n: int) -> RunAgentInput:
    """N paused calls with distinct ids, each rejected by its entry."""
    messages: list[Message] = [UserMessage(id="user-1", content="Refund")]
    messages += [_paused(f"call_{i}", i) for i in range(n)]
    entries = [
        ResumeEntry(interrupt_id=f"call_{i}", status="resolved", payload={"approved": False})
        for i in range(n)
    ]
    return _request(messages, entries)


def hostile(n: int) -> RunAgentInput:
    """N paused calls sharing one id, N decoy result ids, N entries naming no open call."""
    decoys: list[Message] = [UserMessage(id="dup-result", content="x")]
    decoys += [UserMessage(id=f"dup-result-{k}", content="x") for k in range(2, n + 1)]
    messages = decoys + [_paused("dup", i, "lookup_order") for i in range(n)]
    entries = [
        ResumeEntry(interrupt_id=f"ghost-{i}", status="resolved", payload={"approved": True})
        for i in range(n)
    ]
    return _request(messages, entries)


SHAPES: dict[str, Callable[[int], RunAgentInput]] = {"matched": matched, "hostile": hostile}


@dataclass
class ResumeReport:
    """CPU time and function calls of one ``resume_tool_calls`` per shape and size."""

    n: int
    scale: int
    repetitions: int
    ms: dict[str, dict[int, float]]
    """Shape -> request size -> least CPU milliseconds."""
    ms_no_gc: dict[str, dict[int, float]]
    """The same with the cyclic garbage collector paused during the call."""
    calls: dict[str, dict[int, int]]
    """Shape -> request size -> function calls made."""

    def ratio(self, shape: str) -> float:
        """CPU time at ``scale`` * N over CPU time at N (``scale`` when linear)."""
        sizes = self.ms[shape]
        return sizes[self.n * self.scale] / sizes[self.n]

    def no_gc_ratio(self, shape: str) -> float:
        """The same ratio with the cyclic garbage collector paused."""
        sizes = self.ms_no_gc[shape]
        return sizes[self.n * self.scale] / sizes[self.n]

    def calls_ratio(self, shape: str) -> float:
        """Function calls at ``scale`` * N over those at N (``scale`` when linear)."""
        sizes = self.calls[shape]
        return sizes[self.n * self.scale] / sizes[self.n]


def _limits(size: int) -> dict[str, Any]:
    """Caps raised to fit ``size``, in whichever shape the installed package takes them."""
    try:
        from ag_ui_openai_agents import Approvals, ResumeLimits
    except ImportError:
        pass
    else:
        limits = ResumeLimits(max_entries=size, max_open_calls=size)
        return {"approvals": Approvals(limits=limits)}
    try:  # 0.1.x: a loose keyword
        from ag_ui_openai_agents.approvals.resume import ResumeLimits as Limits01
    except ImportError:
        return {}
    return {"limits": Limits01(max_entries=size, max_open_calls=size)}


async def _time(run_input: RunAgentInput, size: int, repetitions: int, *, pause_gc: bool) -> float:
    limits = _limits(size)
    await resume_tool_calls(AGENT, run_input, **limits)  # warm up
    samples = []
    for _ in range(repetitions):
        gc.collect()
        if pause_gc:
            gc.disable()
        try:
            started = time.process_time()
            await resume_tool_calls(AGENT, run_input, **limits)
            samples.append((time.process_time() - started) * 1000)
        finally:
            gc.enable()
    return min(samples)


async def _count_calls(run_input: RunAgentInput, size: int) -> int:
    limits = _limits(size)
    counted = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal counted
        if event in ("call", "c_call"):
            counted += 1

    sys.setprofile(profile)
    try:
        await resume_tool_calls(AGENT, run_input, **limits)
    finally:
        sys.setprofile(None)
    return counted


def measure_resume(n: int = 200, scale: int = 10, repetitions: int = 5) -> ResumeReport:
    """Time every shape at N and ``scale`` * N, and count its function calls."""
    ms: dict[str, dict[int, float]] = {}
    ms_no_gc: dict[str, dict[int, float]] = {}
    calls: dict[str, dict[int, int]] = {}
    for name, build in SHAPES.items():
        ms[name], ms_no_gc[name], calls[name] = {}, {}, {}
        for size in (n, n * scale):
            run_input = build(size)
            ms[name][size] = asyncio.run(_time(run_input, size, repetitions, pause_gc=False))
            ms_no_gc[name][size] = asyncio.run(_time(run_input, size, repetitions, pause_gc=True))
            calls[name][size] = asyncio.run(_count_calls(run_input, size))
    return ResumeReport(n, scale, repetitions, ms, ms_no_gc, calls)


def resume_table(report: ResumeReport) -> list[str]:
    """The report as Markdown table lines."""
    big = report.n * report.scale
    lines = [
        f"| request shape | {report.n:,} calls + entries | {big:,} calls + entries "
        f"| ratio ({report.scale} if linear) |",
        "|---|---|---|---|",
    ]
    for shape, sizes in report.ms.items():
        counts, paused = report.calls[shape], report.ms_no_gc[shape]
        lines += [
            f"| {shape}: CPU time | {sizes[report.n]:.1f} ms | {sizes[big]:.1f} ms "
            f"| {report.ratio(shape):.1f} |",
            f"| {shape}: CPU time, cyclic GC paused | {paused[report.n]:.1f} ms "
            f"| {paused[big]:.1f} ms | {report.no_gc_ratio(shape):.1f} |",
            f"| {shape}: function calls | {counts[report.n]:,} | {counts[big]:,} "
            f"| {report.calls_ratio(shape):.1f} |",
        ]
    return lines
