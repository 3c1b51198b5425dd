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

Modules: :mod:`~ag_ui_openai_agents.a2ui.generate` (the options and the ``generate_a2ui`` tool),
:mod:`~ag_ui_openai_agents.a2ui.recovery` (the validate-and-retry loop and the envelope),
:mod:`~ag_ui_openai_agents.a2ui.render` (one forced ``render_a2ui`` call),
:mod:`~ag_ui_openai_agents.a2ui.fixed` (fixed surfaces).
"""

from __future__ import annotations

from ag_ui_openai_agents._extras import missing_extra

try:
    import ag_ui_a2ui_toolkit  # noqa: F401
except ModuleNotFoundError as exc:  # the a2ui extra is not installed
    if exc.name != "ag_ui_a2ui_toolkit":
        raise
    raise missing_extra("ag_ui_openai_agents.a2ui", "a2ui") from exc

from ag_ui_openai_agents.a2ui.fixed import FixedSurface
from ag_ui_openai_agents.a2ui.generate import A2UI, A2UIRequest

__all__ = ["A2UI", "A2UIRequest", "FixedSurface"]
