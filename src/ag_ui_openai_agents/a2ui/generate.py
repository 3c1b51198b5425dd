"""Internal: generated A2UI surfaces (public from :mod:`ag_ui_openai_agents.a2ui`): the options
(:class:`A2UI`) and the ``generate_a2ui`` tool each request the A2UI middleware marks gets
(:class:`A2UIRequest`).

One call of the tool: the toolkit prepares the prompt (``prepare_a2ui_request``: create or
update, the surface to edit, the guidelines and the request's component schema), then
:func:`~ag_ui_openai_agents.a2ui.recovery.generate_with_recovery` runs the forced render calls
(:class:`~ag_ui_openai_agents.a2ui.render.Renderer`) until one validates, all on the run's event
loop: no thread waits on a model call, and cancelling the call cancels the render call in flight
and waits for its end.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ag_ui.core import RunAgentInput
from ag_ui_a2ui_toolkit import (
    DEFAULT_SURFACE_ID,
    GENERATE_A2UI_ARG_DESCRIPTIONS,
    GENERATE_A2UI_TOOL_DESCRIPTION,
    GENERATE_A2UI_TOOL_NAME,
    MAX_A2UI_ATTEMPTS,
    prepare_a2ui_request,
    resolve_a2ui_catalog,
    split_a2ui_schema_context,
    wrap_error_envelope,
)
from agents import (
    Agent,
    FunctionTool,
    Model,
    ModelSettings,
    TResponseInputItem,
)

from ag_ui_openai_agents.a2ui.recovery import (
    chosen_catalog,
    failure_summary,
    generate_with_recovery,
    surface_envelope,
)
from ag_ui_openai_agents.a2ui.render import RENDER_TOOL_NAME, CallContext, Renderer
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from ag_ui_openai_agents.log_lines import clipped

__all__ = ["A2UI", "A2UIRequest", "marked_render_tool"]

logger = logging.getLogger(__name__)

_INBOUND = AGUIToOpenAITranslator()

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
class A2UIRequest:
    """One request the A2UI middleware marked: the request without the middleware's render
    tool, and the ``generate_a2ui`` tool that serves it."""

    run_input: RunAgentInput
    """The request, the middleware's render tool removed from its client tools."""
    tool: FunctionTool
    """The ``generate_a2ui`` tool of this request."""
    _generation: _Generation | None = field(default=None, repr=False, compare=False, kw_only=True)

    def agent(
        self, agent: Agent[Any], *, history: Sequence[TResponseInputItem] | None = None
    ) -> Agent[Any]:
        """A copy of ``agent`` with the tool added (``agent`` itself when it already has a tool
        of that name: the application's own tool wins).

        ``history`` is :attr:`run_input` as translated for the run (``to_openai(...).messages``):
        the render calls start from it. Without it, the tool translates the request's messages
        itself when it is first called.
        """
        if history is not None and self._generation is not None:
            self._generation.history = list(history)
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
    check component names and required properties. A new surface is created in the catalog the
    model's ``render_a2ui`` arguments name (``catalogId``), else ``default_catalog_id``, else
    the one the request's schema context names, else it names none (the client's default
    catalog applies). ``guidelines`` are the toolkit's prompt knobs
    (``generation_guidelines``, ``design_guidelines``, ``composition_guide``). ``max_attempts``
    bounds the generations of one call: after the last invalid one the tool returns the
    toolkit's ``a2ui_recovery_exhausted`` envelope, and the agent answers from it.
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
        return A2UIRequest(stripped, tool, _generation=generation)


class _Generation:
    """Internal: the ``generate_a2ui`` calls of one request."""

    def __init__(self, config: A2UI, run_input: RunAgentInput) -> None:
        self.config = config
        self.run_input = run_input
        self.history: list[TResponseInputItem] | None = None
        """The request as the run's input (None until given or first needed)."""
        schema, context = split_a2ui_schema_context(list(run_input.context or []))
        self.state: dict[str, Any] = {"ag-ui": {"a2ui_schema": schema, "context": context}}
        resolved = resolve_a2ui_catalog(self.state)
        request_schema, request_catalog = resolved if resolved else (None, None)
        self.request_catalog: str | None = request_catalog or None
        guidelines = dict(config.guidelines) if config.guidelines is not None else None
        if guidelines is None and request_schema:
            guidelines = {"composition_guide": request_schema}
        self.guidelines = guidelines

    async def invoke(self, ctx: CallContext, arguments: str) -> str:
        """One ``generate_a2ui`` call: prepare, generate with recovery, return the envelope."""
        args = _arguments(arguments)
        target = _text(args.get("target_surface_id"))
        prep = prepare_a2ui_request(
            intent=_text(args.get("intent")),
            target_surface_id=target,
            changes=_text(args.get("changes")),
            messages=list(self.run_input.messages),
            state=self.state,
            guidelines=self.guidelines,
        )
        if prep.get("error"):
            logger.warning("A2UI request could not be prepared: %s", clipped(prep["error"]))
            return cast(str, wrap_error_envelope(prep["error"]))
        update_of = target if prep["is_update"] else None
        config = self.config
        fallbacks = (config.default_catalog_id, self.request_catalog)

        def envelope(render_args: Mapping[str, Any]) -> str:
            return surface_envelope(
                render_args,
                update_of=update_of,
                default_surface_id=config.default_surface_id,
                catalog_id=chosen_catalog(render_args, *fallbacks),
            )

        renderer = Renderer(config.model, config.model_settings, self._history())

        async def attempt(prompt: str, _number: int) -> dict[str, Any] | None:
            return await renderer.attempt(ctx, prompt)

        outcome = await generate_with_recovery(
            prep["prompt"],
            attempt,
            envelope,
            catalog=config.catalog,
            max_attempts=config.max_attempts,
        )
        if not outcome.ok:
            logger.warning("A2UI generation failed: %s", failure_summary(outcome))
        return outcome.envelope

    def _history(self) -> list[TResponseInputItem]:
        if self.history is None:
            self.history = _INBOUND.translate_messages(self.run_input.messages)
        return self.history


def _arguments(arguments: str) -> dict[str, Any]:
    try:
        args = json.loads(arguments) if arguments else {}
    except ValueError:
        args = {}
    return args if isinstance(args, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
