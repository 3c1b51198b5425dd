"""A2UI surfaces for the A2UI middleware (``@ag-ui/a2ui-middleware``), built on
``ag-ui-a2ui-toolkit`` (the ``a2ui`` extra: ``pip install 'ag-ui-openai-agents[a2ui]'``).

Two ways an agent shows an A2UI surface, as the AG-UI integrations of ADK and AWS Strands serve
them:

* **Generated** (:class:`A2UI`): the client's middleware, configured with ``injectA2UITool``,
  marks each request (``forwardedProps.injectA2UITool``, with its ``render_a2ui`` tool in
  ``tools``). For such a request the server drops that client tool and gives the agent a
  ``generate_a2ui`` tool instead. The tool runs a second model call forced to call
  ``render_a2ui``; the call streams to the client as a subagent while the model writes it (the
  middleware paints the surface from those arguments), the surface is validated, an invalid one
  is generated again with the errors in the prompt, and the tool's result is the operations
  envelope the middleware paints, or a failure envelope the conversation goes on from.
* **Fixed** (:class:`FixedSurface`): a backend tool returns an envelope for a layout written in
  advance; only the data changes per call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import dataclasses
import functools
import json
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ag_ui.core import RunAgentInput
from agents import (
    Agent,
    FunctionTool,
    ModelSettings,
    RunConfig,
    Runner,
    TResponseInputItem,
)
from agents.models.interface import Model
from agents.stream_events import AgentUpdatedStreamEvent
from agents.tool_context import ToolContext

from ag_ui_openai_agents._extras import missing_extra
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from ag_ui_openai_agents.subagents import subagent_events

try:
    from ag_ui_a2ui_toolkit import (
        BASIC_CATALOG_ID,
        DEFAULT_SURFACE_ID,
        GENERATE_A2UI_ARG_DESCRIPTIONS,
        GENERATE_A2UI_TOOL_DESCRIPTION,
        GENERATE_A2UI_TOOL_NAME,
        MAX_A2UI_ATTEMPTS,
        RENDER_A2UI_TOOL_DEF,
        assemble_ops,
        build_a2ui_envelope,
        prepare_a2ui_request,
        resolve_a2ui_catalog,
        run_a2ui_generation_with_recovery,
        split_a2ui_schema_context,
        validate_a2ui_components,
        wrap_as_operations_envelope,
        wrap_error_envelope,
    )
except ModuleNotFoundError as exc:  # the a2ui extra is not installed
    if exc.name != "ag_ui_a2ui_toolkit":
        raise
    raise missing_extra("ag_ui_openai_agents.a2ui", "a2ui") from exc

__all__ = ["A2UI", "A2UIRequest", "FixedSurface"]

logger = logging.getLogger(__name__)

_INBOUND = AGUIToOpenAITranslator()
_POOL: list[concurrent.futures.ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()
_POOL_THREADS = 64
"""At most this many generations wait on their model at once; more queue for a thread."""


def _recovery_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The threads the toolkit's synchronous retry loop runs in (made on first use)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(
                concurrent.futures.ThreadPoolExecutor(
                    max_workers=_POOL_THREADS, thread_name_prefix="a2ui-recovery"
                )
            )
        return _POOL[0]


RENDER_TOOL_NAME: str = RENDER_A2UI_TOOL_DEF["function"]["name"]
"""The tool the second model call is forced to call, and the middleware paints from."""

_GENERATE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "intent": {
            "type": "string",
            "enum": ["create", "update"],
            "description": GENERATE_A2UI_ARG_DESCRIPTIONS["intent"],
        },
        "target_surface_id": {
            "type": "string",
            "description": GENERATE_A2UI_ARG_DESCRIPTIONS["target_surface_id"],
        },
        "changes": {"type": "string", "description": GENERATE_A2UI_ARG_DESCRIPTIONS["changes"]},
    },
}


def marked_render_tool(run_input: RunAgentInput) -> str | None:
    """The render tool the A2UI middleware added to a request it marked, or None.

    The middleware marks a request with ``forwardedProps.injectA2UITool`` (``true``, or the
    name it gave its render tool) when it is configured with ``injectA2UITool``.
    """
    props = run_input.forwarded_props
    flag = props.get("injectA2UITool") if isinstance(props, Mapping) else None
    if not flag:
        return None
    return flag if isinstance(flag, str) else RENDER_TOOL_NAME


@dataclass(frozen=True)
class FixedSurface:
    """A surface whose layout is written in advance: a backend tool returns
    ``surface.envelope(data)``, the operations envelope the A2UI middleware paints.

    ``components`` is the flat A2UI v0.9 component list (root ``id`` ``"root"``); it is
    checked when the surface is made (structure, and the catalog's components and required
    properties when ``catalog`` is given). Data bindings are checked per call.
    """

    surface_id: str
    components: Sequence[Mapping[str, Any]]
    catalog_id: str = BASIC_CATALOG_ID
    catalog: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        errors = self._errors(None, bindings=False)
        if errors:
            raise ValueError(f"invalid A2UI layout for {self.surface_id!r}: {errors}")

    def envelope(self, data: Mapping[str, Any] | None = None) -> str:
        """The envelope that creates the surface, sets its components and its data model.

        Raises:
            ValueError: an absolute data binding of the layout does not resolve in ``data``.
        """
        errors = self._errors(data, bindings=True)
        if errors:
            raise ValueError(f"A2UI data for {self.surface_id!r} does not fit: {errors}")
        operations = assemble_ops(
            intent="create",
            surface_id=self.surface_id,
            catalog_id=self.catalog_id,
            components=[dict(c) for c in self.components],
            data=dict(data or {}),
        )
        return cast(str, wrap_as_operations_envelope(operations))

    def _errors(self, data: Mapping[str, Any] | None, *, bindings: bool) -> list[Any]:
        result = validate_a2ui_components(
            components=[dict(c) for c in self.components],
            data=dict(data or {}),
            catalog=dict(self.catalog) if self.catalog is not None else None,
            validate_bindings=bindings,
        )
        return list(result["errors"])


@dataclass(frozen=True)
class A2UIRequest:
    """One request the A2UI middleware marked: the request without the middleware's render
    tool, and the ``generate_a2ui`` tool that serves it."""

    run_input: RunAgentInput
    """The request, the middleware's render tool removed from its client tools."""
    tool: FunctionTool
    """The ``generate_a2ui`` tool of this request."""

    def agent(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of ``agent`` with the tool added (``agent`` itself when it already has a tool
        of that name: the application's own tool wins)."""
        if any(getattr(t, "name", None) == self.tool.name for t in agent.tools):
            return agent
        return agent.clone(tools=[*agent.tools, self.tool])


@dataclass(frozen=True)
class A2UI:
    """Serve the dynamic surfaces of the A2UI middleware: a ``generate_a2ui`` tool for each
    request the middleware marked (pass it as ``OpenAIAgentsAgent(..., a2ui=A2UI())``, or call
    :meth:`prepare` with the translator).

    ``model`` runs the forced ``render_a2ui`` call (default: the calling agent's model, through
    the run's config). ``catalog`` (``{"components": {name: JSON schema}}``) makes validation
    check component names and required properties; ``default_catalog_id`` is the catalog the
    surfaces are created in (default: the one the client's schema context names, else the basic
    catalog). ``guidelines`` are the toolkit's prompt knobs (``generation_guidelines``,
    ``design_guidelines``, ``composition_guide``). ``max_attempts`` bounds the generations of
    one call: after the last invalid one the tool returns the toolkit's
    ``a2ui_recovery_exhausted`` envelope, and the agent answers from it.
    """

    model: str | Model | None = None
    model_settings: ModelSettings | None = None
    catalog: Mapping[str, Any] | None = None
    default_catalog_id: str | None = None
    default_surface_id: str = DEFAULT_SURFACE_ID
    guidelines: Mapping[str, str | None] | None = None
    max_attempts: int = MAX_A2UI_ATTEMPTS
    tool_name: str = GENERATE_A2UI_TOOL_NAME
    tool_description: str = GENERATE_A2UI_TOOL_DESCRIPTION

    def prepare(self, run_input: RunAgentInput) -> A2UIRequest | None:
        """The request's ``generate_a2ui`` tool when the middleware marked it, else None."""
        render = marked_render_tool(run_input)
        if render is None:
            return None
        kept = [tool for tool in run_input.tools or [] if tool.name != render]
        stripped = run_input.model_copy(update={"tools": kept})
        generation = _Generation(self, stripped)
        tool = FunctionTool(
            name=self.tool_name,
            description=self.tool_description,
            params_json_schema=_GENERATE_PARAMETERS,
            on_invoke_tool=generation.invoke,
            strict_json_schema=False,
        )
        return A2UIRequest(stripped, tool)


class _Generation:
    """Internal: the ``generate_a2ui`` calls of one request."""

    def __init__(self, config: A2UI, run_input: RunAgentInput) -> None:
        self.config = config
        self.run_input = run_input
        self.history: list[TResponseInputItem] = _INBOUND.translate(run_input).messages
        schema, context = split_a2ui_schema_context(list(run_input.context or []))
        self.state: dict[str, Any] = {"ag-ui": {"a2ui_schema": schema, "context": context}}
        resolved = resolve_a2ui_catalog(self.state)
        runtime_schema, runtime_catalog = resolved if resolved else (None, None)
        self.catalog_id: str = config.default_catalog_id or runtime_catalog or BASIC_CATALOG_ID
        guidelines = dict(config.guidelines) if config.guidelines is not None else None
        if guidelines is None and runtime_schema:
            guidelines = {"composition_guide": runtime_schema}
        self.guidelines = guidelines

    async def invoke(self, ctx: ToolContext[Any], arguments: str) -> str:
        """One ``generate_a2ui`` call: prepare, generate with recovery, return the envelope."""
        try:
            args = json.loads(arguments) if arguments else {}
        except ValueError:
            args = {}
        args = args if isinstance(args, dict) else {}
        target = args.get("target_surface_id")
        prep = prepare_a2ui_request(
            intent=args.get("intent"),
            target_surface_id=target,
            changes=args.get("changes"),
            messages=list(self.run_input.messages),
            state=self.state,
            guidelines=self.guidelines,
        )
        if prep.get("error"):
            logger.warning("A2UI request could not be prepared: %s", prep["error"])
            return cast(str, wrap_error_envelope(prep["error"]))

        def envelope(render_args: dict[str, Any]) -> str:
            return cast(
                str,
                build_a2ui_envelope(
                    args=render_args,
                    is_update=prep["is_update"],
                    target_surface_id=target,
                    prior=prep.get("prior"),
                    default_surface_id=self.config.default_surface_id,
                    default_catalog_id=self.catalog_id,
                ),
            )

        return await self._recover(ctx, prep["prompt"], envelope)

    async def _recover(self, ctx: ToolContext[Any], prompt: str, envelope: Any) -> str:
        """The toolkit's validate-and-retry loop (synchronous: it runs in a worker thread),
        each attempt a forced ``render_a2ui`` run on this loop."""
        loop = asyncio.get_running_loop()
        stopped = threading.Event()
        current: list[concurrent.futures.Future[dict[str, Any] | None]] = []

        def attempt(attempt_prompt: str, number: int) -> dict[str, Any] | None:
            if stopped.is_set():
                raise asyncio.CancelledError("the run stopped")
            future = asyncio.run_coroutine_threadsafe(self._attempt(ctx, attempt_prompt), loop)
            current[:] = [future]
            return future.result()

        config = self.config
        recover = functools.partial(
            run_a2ui_generation_with_recovery,
            base_prompt=prompt,
            invoke_subagent=attempt,
            build_envelope=envelope,
            catalog=dict(config.catalog) if config.catalog is not None else None,
            config={"maxAttempts": config.max_attempts},
        )
        # The loop's thread waits on this loop for each attempt: its own pool, so waiting
        # generations never hold the default executor the SDK runs sync tools in. The context
        # is copied so the attempts stream into this run's subagent sink.
        context = contextvars.copy_context()
        try:
            outcome = await loop.run_in_executor(_recovery_pool(), context.run, recover)
        except BaseException:
            stopped.set()
            for future in current:
                future.cancel()
            raise
        if not outcome["ok"]:
            logger.warning("A2UI generation failed: %s", outcome["attempts"])
        return cast(str, outcome["envelope"])

    async def _attempt(self, ctx: ToolContext[Any], prompt: str) -> dict[str, Any] | None:
        """One forced ``render_a2ui`` call, streamed as a subagent; its arguments, or None when
        the model did not call it or the call failed."""
        captured: list[dict[str, Any]] = []

        async def capture(_: ToolContext[Any], arguments: str) -> str:
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
        renderer = self._renderer(ctx, prompt, render)
        try:
            await self._stream(ctx, renderer)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.warning("An A2UI generation attempt failed", exc_info=True)
            return None
        return captured[0] if captured else None

    def _renderer(self, ctx: ToolContext[Any], prompt: str, render: FunctionTool) -> Agent[Any]:
        config = self.config
        forced = ModelSettings(tool_choice=RENDER_TOOL_NAME, parallel_tool_calls=False)
        settings = config.model_settings.resolve(forced) if config.model_settings else forced
        model = config.model
        if model is None:
            model = getattr(getattr(ctx, "agent", None), "model", None)
        return Agent(
            name="a2ui_renderer",
            instructions=prompt,
            model=model,
            model_settings=settings,
            tools=[render],
            tool_use_behavior="stop_on_first_tool",
        )

    async def _stream(self, ctx: ToolContext[Any], renderer: Agent[Any]) -> None:
        """Run ``renderer`` for one turn; its events stream as a subagent of the calling tool."""
        run_config = getattr(ctx, "run_config", None)
        if not isinstance(run_config, RunConfig):
            run_config = None
        elif self.config.model is not None and run_config.model is not None:
            run_config = dataclasses.replace(run_config, model=None)  # A2UI's model wins
        result = Runner.run_streamed(
            renderer,
            input=list(self.history),
            context=ctx.context,
            run_config=run_config,
            max_turns=1,
        )
        tool_call = getattr(ctx, "tool_call", None)
        agent: Agent[Any] = renderer
        async for event in result.stream_events():
            if isinstance(event, AgentUpdatedStreamEvent):
                agent = event.new_agent
            if tool_call is not None:
                subagent_events({"event": event, "agent": agent, "tool_call": tool_call})
