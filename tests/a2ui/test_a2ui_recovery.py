"""The asynchronous validate-and-retry loop is the toolkit's loop: on the same answers, the same
prompts, attempt records, envelopes and outcome as ``run_a2ui_generation_with_recovery``.

(The loop's behaviour in served runs, retries and the failure envelope included, is tested
through the Runner in ``test_a2ui.py``; this pins it to the toolkit it re-implements.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from ag_ui_a2ui_toolkit import MAX_A2UI_ATTEMPTS, run_a2ui_generation_with_recovery

from ag_ui_openai_agents.a2ui.recovery import generate_with_recovery
from support.a2ui import BROKEN, GOOD

CATALOG = {"components": {"Column": {}, "Text": {"properties": {"text": {}}, "required": ["text"]}}}
UNKNOWN = {**GOOD, "components": [{"id": "root", "component": "Carousel"}]}

ANSWERS: dict[str, list[dict[str, Any] | None]] = {
    "valid at once": [GOOD],
    "valid on the retry": [BROKEN, GOOD],
    "no call, empty, broken": [None, {}, BROKEN],
    "unknown component, then valid": [UNKNOWN, GOOD],
    "never valid": [BROKEN, BROKEN, BROKEN, BROKEN],
}


def envelope(args: Mapping[str, Any]) -> str:
    return json.dumps({"surface": args.get("surfaceId")})


@pytest.mark.parametrize("catalog", [None, CATALOG], ids=["no-catalog", "catalog"])
@pytest.mark.parametrize("max_attempts", [1, 2, MAX_A2UI_ATTEMPTS])
@pytest.mark.parametrize("answers", list(ANSWERS.values()), ids=list(ANSWERS))
async def test_the_loop_answers_as_the_toolkits_loop(
    answers: list[dict[str, Any] | None], max_attempts: int, catalog: dict[str, Any] | None
) -> None:
    toolkit_prompts: list[tuple[str, int]] = []
    our_prompts: list[tuple[str, int]] = []

    def toolkit_attempt(prompt: str, number: int) -> dict[str, Any] | None:
        toolkit_prompts.append((prompt, number))
        return answers[number - 1]

    async def our_attempt(prompt: str, number: int) -> dict[str, Any] | None:
        our_prompts.append((prompt, number))
        return answers[number - 1]

    expected = run_a2ui_generation_with_recovery(
        base_prompt="Design it.",
        invoke_subagent=toolkit_attempt,
        build_envelope=envelope,
        catalog=catalog,
        config={"maxAttempts": max_attempts},
    )
    outcome = await generate_with_recovery(
        "Design it.", our_attempt, envelope, catalog=catalog, max_attempts=max_attempts
    )

    assert our_prompts == toolkit_prompts
    assert (outcome.envelope, outcome.attempts, outcome.ok) == (
        expected["envelope"],
        expected["attempts"],
        expected["ok"],
    )
