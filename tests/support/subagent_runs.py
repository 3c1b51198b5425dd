"""Manager runs with agents used as tools: scripts per agent, and runs on both entry points.

One :class:`~support.scripted.ScriptedResponsesModel` serves every agent of the run (so ids are
unique across them); :class:`AgentScripts` picks each call's turn by the calling agent's
instructions and by the invocation's input, so parallel specialists get their own turns
whatever order they run in.

* :func:`run_translated` starts the run inside ``use_shared_state`` and translates it with
  ``AGUITranslator.to_agui(..., shared_state=scope)``;
* :func:`run_served` runs it through ``OpenAIAgentsAgent.run_streamed``.

Both check the stream with :func:`support.invariants.check_stream`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core import RunAgentInput
from agents import Agent, RunConfig

from ag_ui_openai_agents import AGUITranslator, OpenAIAgentsAgent, SharedState, use_shared_state
from support.runs import AguiRun, _drain
from support.scripted import (
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Turn,
    run_streamed,
)

__all__ = ["AgentScripts", "run_served", "run_translated"]


def _first_user_text(call: RecordedCall) -> str:
    for item in call.input:
        if item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            return " ".join(str(part.get("text", "")) for part in content or [])
    return ""


class AgentScripts:
    """A turn source: ``{instructions: turns}`` or ``{instructions: {input text: turns}}``."""

    def __init__(
        self, scripts: Mapping[str, Sequence[Turn] | Mapping[str, Sequence[Turn]]]
    ) -> None:
        self.scripts = scripts
        self.used: dict[tuple[str, str], int] = {}

    def __call__(self, call: RecordedCall) -> Turn:
        instructions = str(call.instructions or "").split("\n\n")[0]
        script = self.scripts[instructions]
        key = ""
        if isinstance(script, Mapping):
            key = next(k for k in script if k in _first_user_text(call))
            script = script[key]
        number = self.used.get((instructions, key), 0)
        self.used[(instructions, key)] = number + 1
        return script[number]


async def run_translated(
    agent: Agent[Any],
    run_input: RunAgentInput,
    scripts: AgentScripts,
    *,
    expect_error: bool = False,
    runner_kwargs: dict[str, Any] | None = None,
    **to_agui_kwargs: Any,
) -> AguiRun:
    """Run ``agent`` on ``scripts`` inside a run scope and translate it with the scope."""
    translator = AGUITranslator()
    translated = translator.to_openai(run_input)
    model = ScriptedResponsesModel(scripts)
    with use_shared_state(SharedState(run_input.state)) as scope:
        result, _ = run_streamed(agent, translated.messages, model=model, **(runner_kwargs or {}))
    stream = translator.to_agui(result, run_input, shared_state=scope, **to_agui_kwargs)
    events, error = await _drain(stream, run_input, expect_error, True)
    return AguiRun(events, model, result, error)


def served_agent(agent: Agent[Any], scripts: AgentScripts, **options: Any) -> OpenAIAgentsAgent:
    """``OpenAIAgentsAgent`` serving ``agent`` on a scripted model."""
    model = ScriptedResponsesModel(scripts)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    return OpenAIAgentsAgent(agent, run_config=config, **options)


async def run_served(
    agent: Agent[Any],
    run_input: RunAgentInput,
    scripts: AgentScripts,
    *,
    expect_error: bool = False,
    **options: Any,
) -> AguiRun:
    """Run ``agent`` through ``OpenAIAgentsAgent.run_streamed`` on ``scripts`` (``options``:
    the wrapper's keyword arguments)."""
    served = served_agent(agent, scripts, **options)
    events, error = await _drain(served.run_streamed(run_input), run_input, expect_error, True)
    return AguiRun(events, None, None, error)
