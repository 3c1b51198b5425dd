"""A large request is validated without the cyclic garbage collector walking it over and over:
no collection runs during the validation, counted with ``gc.callbacks``."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ag_ui.core import AssistantMessage, FunctionCall, RunAgentInput, ToolCall, ToolMessage

from ag_ui_openai_agents.server import limits
from support.runs import request, user


def answered_calls(n: int) -> bytes:
    messages: list[Any] = [user()]
    for i in range(n):
        call = ToolCall(id=f"call_{i}", function=FunctionCall(name="lookup", arguments="{}"))
        messages.append(AssistantMessage(id=f"assistant-{i}", tool_calls=[call]))
        messages.append(ToolMessage(id=f"tool-{i}", tool_call_id=f"call_{i}", content="found"))
    return request(*messages).model_dump_json(by_alias=True).encode()


@contextmanager
def counted_collections() -> Iterator[list[int]]:
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


def test_a_large_request_is_validated_without_a_collection() -> None:
    body = answered_calls(3_000)

    with counted_collections() as plain:
        expected = RunAgentInput.model_validate_json(body)
    with counted_collections() as paused:
        validated = limits.validate_run_input(body)

    assert plain, "validating 9,001 messages wakes the collector when it is on"
    assert paused == []
    assert validated == expected
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        limits.validate_run_input(answered_calls(1))
        assert not gc.isenabled()
    finally:
        gc.enable()
