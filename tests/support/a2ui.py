"""What the A2UI tests share: requests as the A2UI middleware sends them, the scripted turns of a
``generate_a2ui`` call, readers of its result, and :class:`HeldRenderModel`, a scripted model
that holds a streamed ``render_a2ui`` call after each of its arguments deltas.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Context,
    RunAgentInput,
    Tool,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from agents import Agent
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.interface import ModelTracing
from agents.tool import Tool as SDKTool
from openai.types.responses.response_prompt_param import ResponsePromptParam

from ag_ui_openai_agents.a2ui import A2UI
from support.http import wrapper_for
from support.runs import request
from support.scripted import Call, ScriptedResponsesModel, Text, Turn, TurnSource
from support.state_runs import post_run

__all__ = [
    "BROKEN",
    "CATALOG_ID",
    "GOOD",
    "RENDER_TOOL",
    "SCHEMA_CONTEXT",
    "WAIT",
    "HeldRenderModel",
    "generation_turns",
    "marked",
    "render_args_deltas",
    "render_calls",
    "result_of",
    "serve",
]

WAIT = 30.0
"""Bound of every wait on a run: a regression fails instead of hanging."""

CATALOG_ID = "https://a2ui.org/demos/dojo/dynamic_catalog.json"
RENDER_TOOL = Tool(
    name="render_a2ui",
    description="Render a dynamic A2UI v0.9 surface with structured parameters.",
    parameters={"type": "object", "properties": {"surfaceId": {"type": "string"}}},
)
SCHEMA_CONTEXT = Context(
    description=(
        "A2UI Component Schema — available components for generating UI surfaces. "
        "Use these component names and properties when creating A2UI operations."
    ),
    value=json.dumps({"catalogId": CATALOG_ID, "components": {"Column": {}, "Text": {}}}),
)
GOOD: dict[str, Any] = {
    "surfaceId": "weather",
    "components": [
        {"id": "root", "component": "Column", "children": ["title"]},
        {"id": "title", "component": "Text", "text": {"path": "/city"}},
    ],
    "data": {"city": "Lisbon"},
}
BROKEN: dict[str, Any] = {  # the root names a child that does not exist
    "surfaceId": "weather",
    "components": [{"id": "root", "component": "Column", "children": ["missing"]}],
}


def marked(version: str | None, *messages: Any, flag: Any = True) -> RunAgentInput:
    """A request as the A2UI middleware sends it: flagged, with its render tool and schema."""
    base = request(*messages, tools=[RENDER_TOOL], protocol_version=version)
    return base.model_copy(
        update={"forwarded_props": {"injectA2UITool": flag}, "context": [SCHEMA_CONTEXT]}
    )


def generation_turns(*renders: dict[str, Any], reply: str = "Here it is.") -> list[Turn]:
    """The agent calls generate_a2ui, each render call answers in turn, then the agent replies."""
    return [
        Turn([Call("generate_a2ui", {"intent": "create"}, call_id="call_gen")]),
        *(Turn([Call("render_a2ui", args, chunks=4)]) for args in renders),
        Turn([Text(reply)]),
    ]


def result_of(events: list[BaseEvent], call_id: str = "call_gen") -> dict[str, Any]:
    """The parsed result of the call ``call_id``."""
    (result,) = [
        e for e in events if isinstance(e, ToolCallResultEvent) and e.tool_call_id == call_id
    ]
    parsed: dict[str, Any] = json.loads(result.content)
    return parsed


def render_calls(events: list[BaseEvent]) -> list[ToolCallStartEvent]:
    """The render_a2ui calls the client saw start."""
    return [
        e for e in events if isinstance(e, ToolCallStartEvent) and e.tool_call_name == "render_a2ui"
    ]


def render_args_deltas(events: list[BaseEvent]) -> list[str]:
    """The arguments deltas of the render_a2ui calls the client saw, in order."""
    ids = {start.tool_call_id for start in render_calls(events)}
    return [e.delta for e in events if isinstance(e, ToolCallArgsEvent) and e.tool_call_id in ids]


async def serve(
    turns: list[Turn], run_input: RunAgentInput, **a2ui: Any
) -> tuple[list[BaseEvent], ScriptedResponsesModel]:
    """POST ``run_input`` to a wrapper with ``A2UI(**a2ui)``; the events and the model."""
    model = ScriptedResponsesModel(turns)
    agent = Agent(name="designer", instructions="Build interfaces.")
    events = await post_run(wrapper_for(agent, model, a2ui=A2UI(**a2ui)), run_input)
    model.assert_consumed()
    return events, model


class HeldRenderModel(ScriptedResponsesModel):
    """A scripted model that holds a streamed ``render_a2ui`` call after each of its arguments
    deltas until the test lets it go on (:meth:`release`), and keeps count of its open streams.

    :attr:`held` is set while a render call waits; :attr:`open_streams` counts the streams
    started and not yet ended; :attr:`ends` says how each stream ended (``"completed"``, or
    ``"cancelled"`` when its task was cancelled while it waited).
    """

    def __init__(self, turns: TurnSource) -> None:
        super().__init__(turns)
        self.held = asyncio.Event()
        self.open_streams = 0
        self.ends: list[str] = []
        self._go = asyncio.Event()

    def release(self) -> None:
        """Let the held render call write its next delta."""
        self.held.clear()
        self._go.set()

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[SDKTool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The scripted stream, held after each render_a2ui arguments delta."""
        render = any(tool.name == "render_a2ui" for tool in tools)
        events = super().stream_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
            previous_response_id=previous_response_id, conversation_id=conversation_id,
            prompt=prompt,
        )  # fmt: skip
        self.open_streams += 1
        end = "completed"
        try:
            async for event in events:
                yield event
                if render and event.type == "response.function_call_arguments.delta":
                    self.held.set()
                    await self._go.wait()
                    self._go.clear()
        except asyncio.CancelledError:
            end = "cancelled"
            raise
        except GeneratorExit:
            end = "closed"
            raise
        finally:
            self.open_streams -= 1
            self.ends.append(end)
