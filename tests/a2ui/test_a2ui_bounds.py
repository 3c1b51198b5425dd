"""A failed A2UI attempt costs linear in the render output: the validation errors that reach
the model (the re-prompt), the tool's result and the log are capped in number and length.

The toolkit's validator reports every child-reference cycle with its whole chain, so a render
output where each component points back at the root yields errors that grow with the square of
its size (about 5 MB of error text from 70 kB of components). Through the real Runner, a
generation that never validates keeps each re-prompt, the tool result and each log line under a
stated bound.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from agents import set_tracing_disabled

from ag_ui_openai_agents.a2ui.recovery import MAX_ERROR_TEXT, MAX_ERRORS
from support.a2ui import generation_turns, marked, result_of, serve
from support.state_runs import KINDS

set_tracing_disabled(True)

RENDER_OUTPUT = 70_000
"""About the size of the probe's render output."""


def cyclic_surface(size: int) -> dict[str, Any]:
    """Components each naming the next one and the root: one cycle per component."""
    components: list[dict[str, Any]] = []
    while len(json.dumps(components)) < size:
        index = len(components)
        components.append(
            {"id": f"c{index}", "component": "Column", "children": [f"c{index + 1}", "c0"]}
        )
    components[-1]["children"] = ["c0"]
    return {"surfaceId": "loop", "components": components}


SURFACE = cyclic_surface(RENDER_OUTPUT)
ERROR_BOUND = MAX_ERRORS * (MAX_ERROR_TEXT + 400)
"""The most one attempt's errors can take, whatever the render output: ``MAX_ERRORS`` errors
(and the marker of the rest), each message at most ``MAX_ERROR_TEXT`` characters."""


@pytest.mark.parametrize("version", KINDS)
async def test_a_failed_attempt_costs_linear_in_the_render_output(
    version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="ag_ui_openai_agents")
    events, model = await serve(
        generation_turns(SURFACE, SURFACE, SURFACE, reply="I could not draw that."),
        marked(version),
    )

    first, *retries = [call.instructions or "" for call in model.calls[1:4]]
    assert len(retries) == 2
    for prompt in retries:
        assert "Previous attempt was invalid" in prompt
        assert "child_cycle" in prompt
        assert len(prompt) - len(first) < ERROR_BOUND
    failure = result_of(events)
    assert failure["code"] == "a2ui_recovery_exhausted"
    for attempt in failure["attempts"]:
        assert len(attempt["errors"]) == MAX_ERRORS + 1  # the last one counts the rest
        assert attempt["errors"][-1]["code"] == "too_many_errors"
        assert all(len(error["message"]) <= MAX_ERROR_TEXT for error in attempt["errors"])
    result = next(
        e
        for e in events
        if getattr(e, "tool_call_id", None) == "call_gen" and e.type.value == "TOOL_CALL_RESULT"
    )
    assert len(result.content) < 3 * ERROR_BOUND
    # The outer model reads the bounded result back.
    assert len(json.dumps(model.calls[-1].input[-1])) < 3 * ERROR_BOUND + 1_000
    lines = [r.getMessage() for r in caplog.records if "A2UI generation failed" in r.getMessage()]
    assert len(lines) == 1
    assert len(lines[0]) <= 2_000
