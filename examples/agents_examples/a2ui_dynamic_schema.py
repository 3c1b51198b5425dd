"""A2UI with a dynamic schema: surfaces a second model call designs from the conversation.

The AG-UI Dojo's dynamic-schema page (and its ``a2ui_advanced`` page, served by the same agent)
puts ``@ag-ui/a2ui-middleware`` with ``injectA2UITool`` in front of the agent. The middleware
marks each request: ``forwardedProps.injectA2UITool``, a client tool ``render_a2ui``, and
context entries saying how to call it and which components the page's catalog has
(``Row``, ``HotelCard``, ``ProductCard``, ``TeamMemberCard``). Served with
``OpenAIAgentsAgent(..., a2ui=A2UI())``, a marked request loses that client tool and the agent
gets ``generate_a2ui`` instead. When the agent calls it, a second model call, forced to call
``render_a2ui``, designs the surface (components and data) from the conversation; the call
streams to AG-UI 1.0 clients (to every client with ``AG_UI_SUBAGENTS_FOR_PRE_1_0_CLIENTS``) as a
subagent of ``generate_a2ui`` while it is written, the surface is validated, and the operations
envelope the middleware paints is the tool's result. A request the middleware did not mark runs
as a plain chat.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import add_openai_agents_fastapi_endpoint
from ag_ui_openai_agents.a2ui import A2UI
from agents import Agent
from fastapi import FastAPI

from .page_loads import StatelessAgent
from .settings import ExampleSettings

DESCRIPTION = "Surfaces designed by a second model call (generate_a2ui), for the A2UI middleware."
GENERATE_TOOL = "generate_a2ui"
INSTRUCTIONS = (
    f"You show information as interfaces. Always call {GENERATE_TOOL} (intent 'create') when "
    "the user asks to show, see, compare, list or create something (hotels, products, people, "
    "plans...); use "
    "intent 'update' with target_surface_id to change a surface you made. The user sees the "
    "surface, so afterwards say in one sentence what it shows, without repeating its data. If "
    "the tool reports that the surface could not be made, say so in one sentence and offer to "
    f"try again or answer in words. When {GENERATE_TOOL} is not available, answer in words."
)


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """The agent: it owns no tool; ``generate_a2ui`` is added per marked request."""
    return Agent(name="Interface designer", instructions=INSTRUCTIONS, model=settings.model)


def serve_designer(
    app: FastAPI,
    path: str,
    settings: ExampleSettings,
    *,
    name: str,
    description: str,
    a2ui: A2UI,
) -> None:
    """Serve the designer at ``path``, with ``a2ui`` for the requests the middleware marks."""
    # Stateless (the middleware writes clicks into the history, which a stored thread never
    # takes): a request with nothing to answer is answered without calling the model.
    wrapped = StatelessAgent(
        build_agent(settings),
        name=name,
        description=description,
        run_config=settings.run_config,
        a2ui=a2ui,
        subagents=settings.subagents,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and ``GET path/capabilities``."""
    serve_designer(
        app, path, settings, name="a2ui_dynamic_schema", description=DESCRIPTION, a2ui=A2UI()
    )
