"""Internal: one forced ``render_a2ui`` call of a ``generate_a2ui`` call (one attempt).

The call is a one-turn ``Runner.run_streamed`` of a renderer agent whose only tool is
``render_a2ui`` and whose ``tool_choice`` forces it. Its stream events go to the run's subagent
sink one by one, as the SDK hands them over (:func:`~ag_ui_openai_agents.subagents.subagent_events`
with the calling tool's call), so each ``render_a2ui`` arguments delta reaches the client while
the model still writes the rest, and the middleware paints the surface as it grows.

Cancellation is exact: when the ``generate_a2ui`` call is cancelled (the client left, the run was
cancelled), the render run is cancelled and awaited before the cancellation goes on, so no model
call of it is left running.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from ag_ui_a2ui_toolkit import RENDER_A2UI_TOOL_DEF
from agents import (
    Agent,
    AgentUpdatedStreamEvent,
    FunctionTool,
    Model,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunResultStreaming,
    TResponseInputItem,
)

from ag_ui_openai_agents.subagents import subagent_events

__all__ = ["RENDER_TOOL_NAME", "CallContext", "Renderer"]

logger = logging.getLogger(__name__)

RENDER_TOOL_NAME: str = RENDER_A2UI_TOOL_DEF["function"]["name"]
"""The tool the render call is forced to call, and the middleware paints from."""


class CallContext(Protocol):
    """What the ``generate_a2ui`` tool reads of its invocation context (the SDK's
    ``ToolContext``).

    The SDK passes a tool the full ``ToolContext`` unless the tool's first parameter is
    annotated ``RunContextWrapper`` (then it passes a copy without the tool call and the run's
    config), so the tool annotates it with this protocol.
    """

    @property
    def context(self) -> Any:
        """The run's context object."""

    @property
    def tool_call(self) -> Any:
        """The SDK's call object of this invocation (None when unknown)."""

    @property
    def agent(self) -> Any:
        """The agent that called the tool (None when unknown)."""

    @property
    def run_config(self) -> RunConfig | None:
        """The calling run's config."""


@dataclasses.dataclass(frozen=True)
class Renderer:
    """How the render calls of one request run: on ``model`` with ``model_settings`` (default:
    the calling agent's model, through the run's config), from ``history``."""

    model: str | Model | None
    model_settings: ModelSettings | None
    history: Sequence[TResponseInputItem]

    async def attempt(self, ctx: CallContext, prompt: str) -> dict[str, Any] | None:
        """One forced ``render_a2ui`` call with ``prompt`` as instructions, streamed as a
        subagent of the calling tool; its arguments, or None when the model did not call it or
        the call failed. Cancelling it cancels the render run and waits for its end."""
        captured: list[dict[str, Any]] = []

        async def capture(_: RunContextWrapper[Any], arguments: str) -> str:
            try:
                parsed = json.loads(arguments) if arguments else {}
            except ValueError:
                parsed = {}  # validated as an empty surface, and generated again
            captured.append(parsed if isinstance(parsed, dict) else {})
            return "The surface was rendered."

        render = FunctionTool(
            name=RENDER_TOOL_NAME,
            description=RENDER_A2UI_TOOL_DEF["function"]["description"],
            params_json_schema=RENDER_A2UI_TOOL_DEF["function"]["parameters"],
            on_invoke_tool=capture,
            strict_json_schema=False,
        )
        try:
            await self._stream(ctx, self._agent(ctx, prompt, render))
        except Exception:
            logger.warning("An A2UI generation attempt failed", exc_info=True)
            return None
        return captured[0] if captured else None

    def _agent(self, ctx: CallContext, prompt: str, render: FunctionTool) -> Agent[Any]:
        forced = ModelSettings(tool_choice=RENDER_TOOL_NAME, parallel_tool_calls=False)
        settings = self.model_settings.resolve(forced) if self.model_settings else forced
        model = self.model
        if model is None:
            model = getattr(ctx.agent, "model", None)
        return Agent(
            name="a2ui_renderer",
            instructions=prompt,
            model=model,
            model_settings=settings,
            tools=[render],
            tool_use_behavior="stop_on_first_tool",
        )

    async def _stream(self, ctx: CallContext, renderer: Agent[Any]) -> None:
        """Run ``renderer`` for one turn; each of its events goes to the subagent sink as it
        comes (when the calling tool's call is known)."""
        result = Runner.run_streamed(
            renderer,
            input=list(self.history),
            context=ctx.context,
            run_config=self._run_config(ctx),
            max_turns=1,
        )
        tool_call = ctx.tool_call
        agent: Agent[Any] = renderer
        try:
            async for event in result.stream_events():
                if isinstance(event, AgentUpdatedStreamEvent):
                    agent = event.new_agent
                if tool_call is not None:
                    waiting = subagent_events(
                        {"event": event, "agent": agent, "tool_call": tool_call}
                    )
                    if waiting is not None:  # the run's queue is full: wait for the client
                        await waiting
        except asyncio.CancelledError:
            await _stopped(result)
            raise

    def _run_config(self, ctx: CallContext) -> RunConfig | None:
        """The calling run's config (its model left out when the render call has its own)."""
        run_config = ctx.run_config
        if not isinstance(run_config, RunConfig):
            return None
        if self.model is not None and run_config.model is not None:
            return dataclasses.replace(run_config, model=None)  # A2UI's model wins
        return run_config


async def _stopped(result: RunResultStreaming) -> None:
    """Cancel a render run and wait until its task, and with it its model call, has ended.

    ``stream_events`` cancels the run when its reader is cancelled, but does not wait for it."""
    result.cancel()
    task = result.run_loop_task
    if task is not None and not task.done():
        await asyncio.wait((task,))
