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
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ag_ui.core import AgentCapabilities, BaseEvent, Interrupt, RunAgentInput, RunErrorEvent
from agents import Agent, RunConfig, RunContextWrapper, Runner

from ag_ui_openai_agents.approvals.limits import ResumeLimitError
from ag_ui_openai_agents.approvals.options import Approvals
from ag_ui_openai_agents.approvals.resume import ResumedToolCalls, resume_tool_calls
from ag_ui_openai_agents.approvals.signing import APPROVAL_SECRET_ENV, signer_from_env
from ag_ui_openai_agents.capabilities import agent_capabilities, has_approval_tools
from ag_ui_openai_agents.edges import failed_run, run_error, run_started
from ag_ui_openai_agents.errors import AGENT_ERROR_CODE, AGENT_ERROR_MESSAGE, SETUP_ERROR_MESSAGE
from ag_ui_openai_agents.inbound.messages import TranslatedInput
from ag_ui_openai_agents.options import StateUpdates, Subagents
from ag_ui_openai_agents.safe_errors import ClientError, under_policy, wrapper_policy
from ag_ui_openai_agents.state import SharedState, StateTooLargeError, use_shared_state
from ag_ui_openai_agents.threads.media import DEFAULT_INLINE_MEDIA_BYTES, MediaShelf
from ag_ui_openai_agents.threads.runs import ThreadKey, ThreadRuns
from ag_ui_openai_agents.threads.store import ThreadStore
from ag_ui_openai_agents.translator import AGUITranslator, Lifecycle, RunOptions, Source

if TYPE_CHECKING:  # the a2ui extra: imported by whoever makes an A2UI
    from ag_ui_openai_agents.a2ui import A2UI

__all__ = ["AGENT_ERROR_CODE", "AGENT_ERROR_MESSAGE", "SETUP_ERROR_MESSAGE", "OpenAIAgentsAgent"]

logger = logging.getLogger(__name__)

_unsigned_warning = {"given": False}
"""Whether this process has warned about unsigned approvals (once per process)."""


def _approval_settings(agent: Agent[Any], given: Approvals | None) -> Approvals:
    """The wrapper's approval settings: the signer given, else ``AG_UI_APPROVAL_SECRET``'s.

    Unsigned approvals of gated tools are warned about once per process, unless ``unsigned``
    says they are meant; ``unsigned`` with the secret variable set is a contradiction.
    """
    approvals = given or Approvals()
    from_env = signer_from_env()
    if approvals.unsigned:
        if from_env is not None:
            raise ValueError(f"Approvals(unsigned=True) contradicts {APPROVAL_SECRET_ENV}")
        return approvals
    if approvals.signer is None and from_env is not None:
        return dataclasses.replace(approvals, signer=from_env)
    if approvals.signer is None and not _unsigned_warning["given"] and has_approval_tools(agent):
        _unsigned_warning["given"] = True
        logger.warning(
            "Agent %r has tools that need approval, but approvals are not signed: any client "
            "can approve a tool call it wrote itself. Set %s or pass "
            "approvals=Approvals(signer=...) (or Approvals(unsigned=True) to accept this). "
            "Warned once per process.",
            agent.name,
            APPROVAL_SECRET_ENV,
        )
    return approvals


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
        initial_state: Source[Any] = None,
        final_state: Source[Any] = None,
        start_custom_event: Source[Any] = None,
        end_custom_event: Source[Any] = None,
        emit_messages_snapshot: bool = True,
        emit_run_error: bool = True,
        run_error_message: str | None = None,
        context: Any = None,
        context_in_instructions: bool = True,
        translator: AGUITranslator | None = None,
        approvals: Approvals | None = None,
        threads: ThreadStore | None = None,
        thread_key: ThreadKey | None = None,
        state: StateUpdates | None = None,
        a2ui: A2UI | None = None,
        subagents: Subagents | None = None,
        expose_error_details: bool = False,
    ) -> None:
        """Wrap ``agent``.

        The seven lifecycle options are those of :class:`Lifecycle` (``to_agui``'s).
        ``context`` is the SDK context for every run: a value, or a function
        ``context(run_input, request)`` of the request (``request`` is the HTTP request, None
        without one); when it is None the request's AG-UI context list is passed instead.

        Exception text never reaches the client: the RUN_ERROR of a failed run carries
        ``run_error_message`` (or :data:`AGENT_ERROR_MESSAGE`) and the code
        :data:`AGENT_ERROR_CODE`, and the exception is raised again for the server's log.
        ``expose_error_details=True`` sends the exception's text and class name instead: for
        development only.

        An image or file a tool returns inline whose data is over the thread store's
        ``ThreadSettings.inline_media_bytes`` (without a store:
        :data:`~ag_ui_openai_agents.threads.media.DEFAULT_INLINE_MEDIA_BYTES`) reaches a 1.0
        client by reference: kept in the thread store and served from
        ``GET {path}/media/{id}``, or, without a store, replaced by a text part saying it was
        not shown (docs/media.md).

        Each capability beyond that is one keyword holding one object (docs/wrapper.md):

        - ``approvals`` (:class:`Approvals`): signing, edits, limits and the ``authorize``
          hook of approval-gated tools. Without a signer the wrapper signs with
          ``AG_UI_APPROVAL_SECRET`` when it is set; with neither, a warning is logged once per
          process when the agent has gated tools, unless ``Approvals(unsigned=True)``.
        - ``threads`` (a :class:`ThreadStore`) keeps every thread on the server, under the key
          ``thread_key(thread_id, request)`` returns (required: scope it by your authenticated
          user; ``single_user_threads`` says a server has one user), always within this
          wrapper's ``name``, so agents sharing a store never share a thread.
        - ``state`` (:class:`StateUpdates`): deltas and predictive-state declarations.
        - ``a2ui`` (:class:`~ag_ui_openai_agents.a2ui.A2UI`): serves the requests the A2UI
          middleware marks.
        - ``subagents`` (:class:`Subagents`): which clients see agents used as tools as
          subagents.
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
        self.approvals = _approval_settings(agent, approvals)
        """The approval settings, with the signer the wrapper resolved (None: unsigned)."""
        self.state = state or StateUpdates()
        """How state changes stream."""
        self.subagents = subagents or Subagents()
        """Who sees agents used as tools as subagents."""
        self.a2ui = a2ui
        """Serves the requests the A2UI middleware marks; None when not served."""
        self.expose_error_details = expose_error_details
        """Whether a failed run's RUN_ERROR may carry the exception's text."""
        if threads is not None and not emit_messages_snapshot:
            raise ValueError("threads are stored from MESSAGES_SNAPSHOT: keep it emitted")
        self.threads = (
            ThreadRuns(threads, thread_key, scope=self.name) if threads is not None else None
        )
        """Runs of the threads kept on the server; None when the wrapper is stateless."""
        """Inline media above this many characters travel by reference (None: never)."""

    def capabilities(self) -> AgentCapabilities:
        """An AG-UI capabilities document describing this agent."""
        return agent_capabilities(
            self.agent,
            name=self.name,
            description=self.description,
            subagents=self.subagents,
            state=self.state,
            approvals=self.approvals,
            a2ui_tool=self.a2ui.tool_name if self.a2ui is not None else None,
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
            stream = self._run_stateless(run_input, request)
        else:
            stream = self.threads.run(
                run_input,
                request,
                lambda trusted, key, paused: self._run_stateless(trusted, request, key, paused),
            )
        async with aclosing(stream):
            async for event in stream:
                yield event

    async def _run_stateless(
        self,
        run_input: RunAgentInput,
        request: Any,
        thread_key: str | None = None,
        paused: Sequence[Interrupt] = (),
    ) -> AsyncGenerator[BaseEvent, None]:
        """Run the agent for one request taken as the truth.

        A failure before the SDK starts yields RUN_STARTED then RUN_ERROR with a safe message,
        and is re-raised (like every run error) for the edge that serves the run to log. The
        RUN_ERROR of a failed run says what the wrapper's error policy chooses
        (:func:`~ag_ui_openai_agents.safe_errors.wrapper_policy`), before it is built.
        """
        shelf = self._shelf(run_input, request, thread_key)
        try:
            state = SharedState.from_request(run_input.state, max_bytes=self.state.max_bytes)
            if shelf is not None:
                run_input = await shelf.restore(run_input)
            with use_shared_state(state):
                events, resumed = await self._start(run_input, request, thread_key, paused)
        except (ResumeLimitError, StateTooLargeError) as exc:
            yield run_started(run_input)
            if not self.lifecycle.emit_run_error:
                raise
            yield run_error(ClientError(str(exc), exc.code))  # the package's text for the client
            return
        except Exception as exc:
            yield run_started(run_input)
            if self.lifecycle.emit_run_error:
                yield self._setup_error(exc)
            raise
        options = RunOptions(
            self.lifecycle,
            resumed=resumed,
            shared_state=state,
            state=self.state,
            subagents=self.subagents,
        )
        stream = self.translator.stream(events, resumed.run_input, options)
        stream = under_policy(stream, wrapper_policy(self.expose_error_details))
        if shelf is not None and run_input.protocol_version is not None:
            stream = shelf.offload(stream)
        # Closing this generator closes the translator's, which cancels the SDK run.
        async with aclosing(stream):
            async for event in stream:
                yield event

    def _shelf(
        self, run_input: RunAgentInput, request: Any, thread_key: str | None
    ) -> MediaShelf | None:
        """Where this run's large media go (None: every medium stays inline)."""
        store = self.threads.store if self.threads is not None else None
        limit = store.settings.inline_media_bytes if store else DEFAULT_INLINE_MEDIA_BYTES
        if limit is None:
            return None
        return MediaShelf(limit, run_input, request, self.threads, thread_key)

    def _setup_error(self, exc: Exception) -> RunErrorEvent:
        """The RUN_ERROR of a run that could not be started."""
        chosen = self.lifecycle.run_error_message or SETUP_ERROR_MESSAGE
        return failed_run(exc, chosen, policy=wrapper_policy(self.expose_error_details))

    async def _start(
        self,
        run_input: RunAgentInput,
        request: Any,
        thread_key: str | None,
        paused: Sequence[Interrupt] = (),
    ) -> tuple[Any, ResumedToolCalls]:
        """Answer open calls, then start the SDK run (None when approvals are undecided)."""
        run_config = self.run_config
        context = self._sdk_context(run_input, request)
        if context is None:
            context = list(run_input.context or [])
        resumed = await resume_tool_calls(
            self.agent,
            run_input,
            context=context,
            run_config=run_config,
            approvals=self.approvals,
            request=request,
            thread_key=thread_key,
            paused=paused,
        )
        if resumed.open_interrupts:
            return None, resumed
        a2ui = self.a2ui.prepare(resumed.run_input) if self.a2ui is not None else None
        translated = self.translator.to_openai(a2ui.run_input if a2ui else resumed.run_input)
        agent = self._request_agent(translated)
        if a2ui is not None:
            agent = a2ui.agent(agent, history=translated.messages)
        result = Runner.run_streamed(
            agent, input=translated.messages, context=context, run_config=run_config
        )
        return result, resumed

    def _sdk_context(self, run_input: RunAgentInput, request: Any) -> Any:
        if callable(self.context):
            return self.context(run_input, request)
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
