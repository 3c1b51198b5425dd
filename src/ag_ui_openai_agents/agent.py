"""``OpenAIAgentsAgent``: a fixed SDK agent served over AG-UI with the standard flow.

Per request: answer tool calls the history left open (approvals), set up the run's scope (the
request's state as its :class:`SharedState`, which also carries the sink agents used as tools
stream their subagent events into), translate the request, run a per-request clone of the
agent (client tools added, the AG-UI context appended to its instructions) and translate its
stream.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
)
from agents import Agent, RunConfig, Runner
from agents.run_context import RunContextWrapper

from ag_ui_openai_agents.approvals.resume import ResumedToolCalls, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import ApprovalSigner, signer_from_env
from ag_ui_openai_agents.capabilities import agent_capabilities
from ag_ui_openai_agents.inbound.messages import TranslatedInput
from ag_ui_openai_agents.state import SharedState, use_shared_state
from ag_ui_openai_agents.threads.runs import ThreadKey, ThreadRuns
from ag_ui_openai_agents.threads.store import ThreadStore
from ag_ui_openai_agents.translator import AGUITranslator, Lifecycle, Source

__all__ = ["SETUP_ERROR_MESSAGE", "OpenAIAgentsAgent"]

logger = logging.getLogger(__name__)

SETUP_ERROR_MESSAGE = "The agent run could not be started."
"""What the client sees when the run fails before the SDK starts (details go to the log)."""


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
        approval_signer: ApprovalSigner | None = None,
        threads: ThreadStore | None = None,
        thread_key: ThreadKey | None = None,
    ) -> None:
        """Wrap ``agent``.

        ``context`` is the SDK context for every run (a value, or a function of the request);
        when it is None the request's AG-UI context list is passed instead. The lifecycle
        options are those of :meth:`AGUITranslator.to_agui`.

        ``approval_signer`` signs the approval interrupts of every run and makes every approval
        prove it answers one of them (``ApprovalSigner.from_secret(secret, max_age)``); the same
        signer serves the pause and the resume. When it is None the wrapper builds one from
        ``AG_UI_APPROVAL_SECRET`` (comma-separated secrets, the first signs) if that variable is
        set. Approvals are unsigned only when neither is given: to turn signing off, pass no
        signer and leave ``AG_UI_APPROVAL_SECRET`` unset.

        ``threads`` keeps every thread on the server (``SQLiteThreadStore``,
        ``RedisThreadStore``): its history is then the truth, and a request with nothing new is
        answered from the store (docs/threads.md). ``thread_key(run_input, request)`` returns
        the store key of a request's thread (scope it by your authenticated user); without it
        the key is the client's thread id, which must then be unguessable.
        """
        self.agent = agent
        self.name = name or agent.name
        self.description = description or agent.handoff_description or ""
        self.run_config = run_config
        self.context = context
        self.lifecycle = Lifecycle(
            start_custom_event=start_custom_event,
            initial_state=initial_state,
            final_state=final_state,
            emit_messages_snapshot=emit_messages_snapshot,
            end_custom_event=end_custom_event,
            emit_run_error=emit_run_error,
            run_error_message=run_error_message,
        )
        """The lifecycle options every run is translated with."""
        self.context_in_instructions = context_in_instructions
        self.translator = translator or AGUITranslator()
        self.approval_signer = approval_signer if approval_signer is not None else signer_from_env()
        """Signs and checks approvals; None when approvals are not signed."""
        if threads is not None and not emit_messages_snapshot:
            raise ValueError("threads are stored from MESSAGES_SNAPSHOT: keep it emitted")
        self.threads = ThreadRuns(threads, thread_key) if threads is not None else None
        """Runs of the threads kept on the server; None when the wrapper is stateless."""

    def capabilities(self) -> AgentCapabilities:
        """An AG-UI capabilities document describing this agent."""
        return agent_capabilities(
            self.agent,
            name=self.name,
            description=self.description,
            persistent_state=self.threads is not None,
        )

    async def run_streamed(
        self, run_input: RunAgentInput, *, request: Any = None
    ) -> AsyncGenerator[BaseEvent, None]:
        """Run the agent for one request and yield its AG-UI events.

        With ``threads``, the run answers the thread the store holds (``request``, the HTTP
        request when there is one, goes to ``thread_key``); otherwise the request is the truth.
        """
        if self.threads is None:
            stream = self._run_stateless(run_input)
        else:
            stream = self.threads.run(run_input, request, self._run_stateless)
        async with aclosing(stream):
            async for event in stream:
                yield event

    async def _run_stateless(self, run_input: RunAgentInput) -> AsyncGenerator[BaseEvent, None]:
        """Run the agent for one request taken as the truth.

        A failure before the SDK starts yields RUN_STARTED then RUN_ERROR with a safe message,
        and is re-raised (like every run error) for the server to log.
        """
        state = SharedState(run_input.state)
        try:
            with use_shared_state(state):
                events, resumed = await self._start(run_input)
        except Exception:
            logger.exception("AG-UI run %s could not be started", run_input.run_id)
            yield RunStartedEvent(
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                parent_run_id=run_input.parent_run_id,
                protocol_version=PROTOCOL_VERSION,
            )
            if self.lifecycle.emit_run_error:
                message = self.lifecycle.run_error_message or SETUP_ERROR_MESSAGE
                yield RunErrorEvent(message=message)
            raise
        options = dataclasses.replace(self.lifecycle, resumed=resumed, shared_state=state)
        stream = self.translator.to_agui(events, resumed.run_input, **options.keywords())
        # Closing this generator closes the translator's, which cancels the SDK run.
        async with aclosing(stream):
            async for event in stream:
                yield event

    async def _start(self, run_input: RunAgentInput) -> tuple[Any, ResumedToolCalls]:
        """Answer open calls, then start the SDK run (None when approvals are undecided)."""
        run_config = self.run_config
        context = self._sdk_context(run_input)
        if context is None:
            context = list(run_input.context or [])
        resumed = await resume_tool_calls(
            self.agent,
            run_input,
            context=context,
            run_config=run_config,
            signer=self.approval_signer,
        )
        if resumed.open_interrupts:
            return None, resumed
        translated = self.translator.to_openai(resumed.run_input)
        agent = self._request_agent(translated)
        result = Runner.run_streamed(
            agent, input=translated.messages, context=context, run_config=run_config
        )
        return result, resumed

    def _sdk_context(self, run_input: RunAgentInput) -> Any:
        if callable(self.context):
            return self.context(run_input)
        return self.context

    def _request_agent(self, translated: TranslatedInput) -> Agent[Any]:
        """A clone for this request: client tools added, context appended to instructions."""
        agent = translated.with_client_tools(self.agent)
        block = (
            self.translator.translate_context(translated.context)
            if self.context_in_instructions
            else ""
        )
        if block:
            agent = agent.clone(instructions=_with_context_block(self.agent.instructions, block))
        return agent
