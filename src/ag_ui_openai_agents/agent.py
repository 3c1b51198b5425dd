"""``OpenAIAgentsAgent``: a fixed SDK agent served over AG-UI with the standard flow.

Per request: answer tool calls the history left open (approvals), set up the run's scope (the
request's state as its :class:`SharedState`, and the sink agents used as tools stream their
subagent events into), translate the request, run a per-request clone of the agent (client
tools added, the AG-UI context appended to its instructions) and translate its stream.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    BaseEvent,
    Context,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
)
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.run_context import RunContextWrapper

from ag_ui_openai_agents.approvals.resume import resume_tool_calls
from ag_ui_openai_agents.approvals.signing import (
    DEFAULT_APPROVAL_MAX_AGE,
    ApprovalSecret,
    ApprovalSigner,
    approval_signer,
)
from ag_ui_openai_agents.capabilities import agent_capabilities
from ag_ui_openai_agents.inbound.client_tools import stop_at_client_tools
from ag_ui_openai_agents.scope import use_run_scope
from ag_ui_openai_agents.translator import AGUITranslator, Source

__all__ = ["SETUP_ERROR_MESSAGE", "OpenAIAgentsAgent"]

logger = logging.getLogger(__name__)

SETUP_ERROR_MESSAGE = "The agent run could not be started."
"""What the client sees when the run fails before the SDK starts (details go to the log)."""


def _tracing_disabled_by_env() -> bool:
    return os.environ.get("OPENAI_AGENTS_DISABLE_TRACING", "").strip().lower() in ("true", "1")


def _with_context_block(instructions: Any, block: str) -> Callable[..., Any]:
    """Dynamic instructions: the agent's own (static or dynamic) plus the context block."""

    async def combined(wrapper: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        base = instructions
        if callable(base):
            base = base(wrapper, agent)
            if inspect.isawaitable(base):
                base = await base
        return f"{base}\n\n{block}" if base else block

    return combined


def _common_signer(
    used: AGUITranslator,
    given: AGUITranslator | None,
    secret: ApprovalSecret | ApprovalSigner | None,
    max_age: float,
) -> ApprovalSigner | None:
    """The signer both the pause and the resume use: the translator's, checked against ours."""
    if given is not None and secret is not None:
        own = approval_signer(secret, max_age)
        if own != given.approval_signer:
            raise ValueError(
                "approval_secret differs from the approval signing of the translator passed in; "
                "give the secret to the translator (AGUITranslator(approval_secret=...)) only"
            )
    return used.approval_signer


class OpenAIAgentsAgent:
    """Serve one SDK ``Agent`` over AG-UI. The agent object is shared and never mutated."""

    def __init__(
        self,
        agent: Agent[Any],
        *,
        name: str | None = None,
        description: str | None = None,
        run_config: RunConfig | None = None,
        context: Any = None,
        initial_state: Source[Any] = None,
        final_state: Source[Any] = None,
        start_custom_event: Source[Any] = None,
        end_custom_event: Source[Any] = None,
        emit_messages_snapshot: bool = True,
        emit_run_error: bool = True,
        run_error_message: str | None = None,
        context_in_instructions: bool = True,
        translator: AGUITranslator | None = None,
        approval_secret: ApprovalSecret | ApprovalSigner | None = None,
        approval_max_age: float = DEFAULT_APPROVAL_MAX_AGE,
    ) -> None:
        """Wrap ``agent``.

        ``context`` is the SDK context for every run (a value, or a function of the request);
        when it is None the request's AG-UI context list is passed instead. The lifecycle
        options are those of :meth:`AGUITranslator.to_agui`.

        ``approval_secret`` signs approval interrupts and makes every approval prove it answers
        one of them (one secret, or a list whose first signs and all verify; None reads
        ``AG_UI_APPROVAL_SECRET``; an empty list turns signing off). Approvals are accepted for
        ``approval_max_age`` seconds after the pause.
        """
        self.agent = agent
        self.name = name or agent.name
        self.description = description or agent.handoff_description or ""
        self.run_config = run_config
        self.context = context
        self.initial_state = initial_state
        self.final_state = final_state
        self.start_custom_event = start_custom_event
        self.end_custom_event = end_custom_event
        self.emit_messages_snapshot = emit_messages_snapshot
        self.emit_run_error = emit_run_error
        self.run_error_message = run_error_message
        self.context_in_instructions = context_in_instructions
        self.translator = translator or AGUITranslator(
            approval_secret=approval_secret, approval_max_age=approval_max_age
        )
        self.approval_signer = _common_signer(
            self.translator, translator, approval_secret, approval_max_age
        )
        """Signs and checks approvals; None when approvals are not signed."""

    def capabilities(self) -> AgentCapabilities:
        """An AG-UI capabilities document describing this agent."""
        return agent_capabilities(self.agent, name=self.name, description=self.description)

    async def run_streamed(self, run_input: RunAgentInput) -> AsyncGenerator[BaseEvent, None]:
        """Run the agent for one request and yield its AG-UI events.

        A failure before the SDK starts yields RUN_STARTED then RUN_ERROR with a safe message,
        and is re-raised (like every run error) for the server to log.
        """
        try:
            with use_run_scope(run_input.state) as scope:
                events, resumed = await self._start(run_input)
        except Exception:
            logger.exception("AG-UI run %s could not be started", run_input.run_id)
            yield RunStartedEvent(
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                parent_run_id=run_input.parent_run_id,
                protocol_version=PROTOCOL_VERSION,
            )
            if self.emit_run_error:
                yield RunErrorEvent(message=self.run_error_message or SETUP_ERROR_MESSAGE)
            raise
        stream = self.translator.to_agui(
            events,
            resumed.run_input,
            start_custom_event=self.start_custom_event,
            initial_state=self.initial_state,
            final_state=self.final_state,
            emit_messages_snapshot=self.emit_messages_snapshot,
            end_custom_event=self.end_custom_event,
            emit_run_error=self.emit_run_error,
            run_error_message=self.run_error_message,
            resumed=resumed,
            scope=scope,
        )
        # Closing this generator closes the translator's, which cancels the SDK run.
        async with aclosing(stream):
            async for event in stream:
                yield event

    async def _start(self, run_input: RunAgentInput) -> tuple[Any, Any]:
        """Answer open calls, then start the SDK run (None when approvals are undecided)."""
        run_config = self._run_config()
        context = self._sdk_context(run_input)
        if context is None:
            context = list(run_input.context or [])
        resumed = await resume_tool_calls(
            self.agent,
            run_input,
            context=context,
            run_config=run_config,
            approval_secret=self.approval_signer or (),
        )
        if resumed.open_interrupts:
            return None, resumed
        translated = self.translator.to_openai(resumed.run_input)
        agent = self._request_agent(translated.tools, translated.context)
        result = Runner.run_streamed(
            agent, input=translated.messages, context=context, run_config=run_config
        )
        return result, resumed

    def _run_config(self) -> RunConfig | None:
        if not _tracing_disabled_by_env():
            return self.run_config
        return dataclasses.replace(self.run_config or RunConfig(), tracing_disabled=True)

    def _sdk_context(self, run_input: RunAgentInput) -> Any:
        if callable(self.context):
            return self.context(run_input)
        return self.context

    def _request_agent(
        self, client_tools: list[FunctionTool], context: list[Context]
    ) -> Agent[Any]:
        """A clone for this request: client tools added, context appended to instructions."""
        server_names = {getattr(tool, "name", None) for tool in self.agent.tools}
        added: list[FunctionTool] = []
        for tool in client_tools:
            if tool.name in server_names:
                logger.warning(
                    "Client tool %r ignored: the agent has a tool of that name", tool.name
                )
            else:
                added.append(tool)
        changes: dict[str, Any] = {}
        if added:
            changes["tools"] = [*self.agent.tools, *added]
            changes["tool_use_behavior"] = stop_at_client_tools(
                self.agent.tool_use_behavior, [tool.name for tool in added]
            )
        block = self.translator.translate_context(context) if self.context_in_instructions else ""
        if block:
            changes["instructions"] = _with_context_block(self.agent.instructions, block)
        return self.agent.clone(**changes) if changes else self.agent
