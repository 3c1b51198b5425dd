"""``AGUITranslator``: the public, stateless entry point (``to_openai`` and ``to_agui``).

``to_agui`` owns the run's lifecycle around the synchronous outbound engine: RUN_STARTED,
optional custom and state events, one loop over everything that happens during the run (the
SDK's events, and with a shared state its changes and the subagents' events, pushed into the
loop as they happen), the closing snapshot and outcome, the error path, and cancelling an owned
SDK run when the consumer stops reading.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, Union

from ag_ui.core import (
    BaseEvent,
    Context,
    CustomEvent,
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
)
from agents import RunContextWrapper, RunResultStreaming, StreamEvent, ToolApprovalItem

from ag_ui_openai_agents import run_queue
from ag_ui_openai_agents._sdk import cancel_mode
from ag_ui_openai_agents.approvals.interrupts import interrupts_from_result
from ag_ui_openai_agents.approvals.options import Approvals
from ag_ui_openai_agents.approvals.tools import paused_params_schemas
from ag_ui_openai_agents.approvals.verify import ApprovalRefusedError
from ag_ui_openai_agents.edges import failed_run, run_error, run_started
from ag_ui_openai_agents.errors import APPROVAL_REFUSED_CODE
from ag_ui_openai_agents.inbound.client_tools import is_client_tool_approval
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator, TranslatedInput
from ag_ui_openai_agents.options import StateUpdates, Subagents
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from ag_ui_openai_agents.outbound.state_events import StatePredictions, StateStream
from ag_ui_openai_agents.run_queue import IDLE
from ag_ui_openai_agents.safe_errors import ClientError
from ag_ui_openai_agents.state import SharedState, StateTooLargeError

if TYPE_CHECKING:
    from ag_ui_openai_agents.approvals.resume import ResumedToolCalls

__all__ = ["AGUITranslator", "Lifecycle", "Source"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
Source: TypeAlias = Union[T, Callable[[], T], Callable[[], Awaitable[T]], None]  # noqa: UP007
"""A value, or a zero-argument function (sync or async) returning it, resolved when needed."""

StreamSource: TypeAlias = Union[RunResultStreaming, AsyncIterator[StreamEvent], None]  # noqa: UP007


async def _resolve(source: Any) -> Any:
    """Resolve a :data:`Source` at its lifecycle position."""
    value = source() if callable(source) else source
    if inspect.isawaitable(value):
        value = await value
    return value


async def _custom_event(source: Any, option: str) -> CustomEvent | None:
    """Resolve a custom-event option, then the event's own ``value`` (each may be a source)."""
    given = await _resolve(source)
    if given is None:
        return None
    if isinstance(given, CustomEvent):
        value = given.value
        if callable(value) or inspect.isawaitable(value):
            return given.model_copy(update={"value": await _resolve(value)})
        return given
    if isinstance(given, Mapping) and isinstance(given.get("name"), str):
        return CustomEvent(name=given["name"], value=await _resolve(given.get("value")))
    raise TypeError(f"{option} must give a CustomEvent or a mapping with 'name' and 'value'")


@dataclass(frozen=True)
class Lifecycle:
    """The seven lifecycle options of a run, as ``to_agui`` and ``OpenAIAgentsAgent`` take them."""

    start_custom_event: Source[Any] = None
    """A CUSTOM event (or a mapping with ``name`` and ``value``) sent after RUN_STARTED."""
    initial_state: Source[Any] = None
    """A STATE_SNAPSHOT sent first (None: none; ``{}``: an empty one)."""
    final_state: Source[Any] = None
    """A STATE_SNAPSHOT sent after the run's events."""
    emit_messages_snapshot: bool = True
    """Send the whole history as MESSAGES_SNAPSHOT before the run ends."""
    end_custom_event: Source[Any] = None
    """A CUSTOM event sent right before RUN_FINISHED."""
    emit_run_error: bool = True
    """Send RUN_ERROR before re-raising a failure."""
    run_error_message: str | None = None
    """The RUN_ERROR message in place of the exception's text."""


@dataclass(frozen=True)
class RunOptions:
    """Everything one ``to_agui`` run is translated with."""

    lifecycle: Lifecycle
    resumed: ResumedToolCalls | None = None
    shared_state: SharedState | None = None
    state: StateUpdates = field(default_factory=StateUpdates)
    subagents: Subagents = field(default_factory=Subagents)


class AGUITranslator:
    """Translate AG-UI requests to SDK input and SDK streams to AG-UI events.

    Stateless: one instance serves any number of concurrent requests. ``to_agui`` creates a
    fresh outbound engine (``outbound_cls``) for every run. It reads no environment variable:
    approval interrupts are signed with the signer of the ``resumed`` it is given.
    """

    def __init__(
        self,
        *,
        inbound_cls: type[AGUIToOpenAITranslator] = AGUIToOpenAITranslator,
        outbound_cls: type[OpenAIToAGUITranslator] = OpenAIToAGUITranslator,
    ) -> None:
        self.inbound_cls = inbound_cls
        self.outbound_cls = outbound_cls
        self._inbound = inbound_cls()

    def to_openai(self, run_input: RunAgentInput) -> TranslatedInput:
        """Translate one request: SDK input items, client tool proxies and request metadata."""
        return self._inbound.translate(run_input)

    def translate_context(self, items: Iterable[Context] | None) -> str:
        """Render the AG-UI context as the block to add to instructions ("" when empty)."""
        return self._inbound.translate_context(list(items or []))

    def to_agui(
        self,
        events: StreamSource,
        run_input: RunAgentInput,
        *,
        start_custom_event: Source[Any] = None,
        initial_state: Source[Any] = None,
        final_state: Source[Any] = None,
        emit_messages_snapshot: bool = True,
        end_custom_event: Source[Any] = None,
        emit_run_error: bool = True,
        run_error_message: str | None = None,
        resumed: ResumedToolCalls | None = None,
        shared_state: SharedState | None = None,
        state: StateUpdates | None = None,
        subagents: Subagents | None = None,
    ) -> AsyncGenerator[BaseEvent, None]:
        """Yield the AG-UI events of one run, from RUN_STARTED to RUN_FINISHED or RUN_ERROR.

        ``events`` is the SDK's ``RunResultStreaming`` (then an early stop by the consumer
        cancels the run, and paused approvals become interrupts, signed and offering edits as
        ``resumed.approvals`` says), its ``stream_events()`` iterator (nothing is cancelled for
        you), or None when nothing runs (a resume whose approvals are still undecided).

        The seven lifecycle options are those of :class:`Lifecycle`. ``shared_state`` is the
        :class:`SharedState` the run was started with (``use_shared_state``): each change
        streams as soon as it is made, as ``state`` (:class:`StateUpdates`) says, and agents
        used as tools with ``on_stream=subagent_events`` stream as subagents to the clients
        ``subagents`` (:class:`Subagents`) names; to the others each agent tool streams as one
        tool call and its result.
        """
        lifecycle = Lifecycle(
            start_custom_event=start_custom_event,
            initial_state=initial_state,
            final_state=final_state,
            emit_messages_snapshot=emit_messages_snapshot,
            end_custom_event=end_custom_event,
            emit_run_error=emit_run_error,
            run_error_message=run_error_message,
        )
        options = RunOptions(
            lifecycle,
            resumed=resumed,
            shared_state=shared_state,
            state=state or StateUpdates(),
            subagents=subagents or Subagents(),
        )
        return self.stream(events, run_input, options)

    def stream(
        self, events: StreamSource, run_input: RunAgentInput, options: RunOptions
    ) -> AsyncGenerator[BaseEvent, None]:
        """Internal: ``to_agui`` with its options already gathered (the wrapper's path)."""
        return _Run(self.outbound_cls(run_input), events, options).events()


class _Run:
    """One ``to_agui`` call: the engine, the SDK run, the merged source and the lifecycle."""

    def __init__(
        self, engine: OpenAIToAGUITranslator, events: StreamSource, options: RunOptions
    ) -> None:
        self.engine = engine
        self.options = options
        self.result = events if isinstance(events, RunResultStreaming) else None
        stream: AsyncIterator[StreamEvent] | None = (
            self.result.stream_events() if self.result is not None else events  # type: ignore[assignment]
        )
        self.stream = stream
        state = options.shared_state
        if state is not None:
            shown = options.subagents.shown(engine.run_input.protocol_version)
            engine.attach_subagent_sink(state.subagents, shown=shown)
        self.state_stream = StateStream(
            deltas=options.state.deltas, max_bytes=options.state.max_bytes
        )
        self.predictions: StatePredictions | None = None
        if options.state.predictive:
            self.predictions = StatePredictions(options.state.predictive, state, self._state_change)
        self.queue: run_queue.RunQueue | None = None

    async def events(self) -> AsyncGenerator[BaseEvent, None]:
        """The lifecycle around the one loop over the run's merged source."""
        engine = self.engine
        try:
            async for event in self._opening():
                yield event
            resumed = self.options.resumed
            if resumed is not None and resumed.refusals:
                yield self._refused(resumed)
                return
            for event in self._state_change() + self._resumed_events():
                yield event
            if self.stream is not None:
                translate, subagents = engine.translate, engine.subagents
                weave = self._weave if self.predictions is not None else None
                async for item in self._source(self.stream):
                    if item is IDLE or type(item) is dict:  # not an SDK event (see _source)
                        for event in self._between(item):
                            yield event
                        continue
                    for event in self._state_change():
                        yield event
                    made = translate(item)
                    for event in made if weave is None else weave(made):
                        yield event
                    if subagents.waiting:
                        for event in engine.translate_subagent_events():
                            yield event
            async for event in self._closing():
                yield event
        except Exception as exc:
            for event in self._failure(exc):
                yield event
            raise
        finally:
            await self._release()

    async def _opening(self) -> AsyncGenerator[BaseEvent, None]:
        """RUN_STARTED, then the start event and the initial state, each resolved in turn."""
        run_input, options = self.engine.run_input, self.options
        yield run_started(run_input)
        custom = await _custom_event(options.lifecycle.start_custom_event, "start_custom_event")
        if custom is not None:
            yield custom
        state = await _resolve(options.lifecycle.initial_state)
        if state is not None:
            for event in self.state_stream.events(state):
                yield event

    def _resumed_events(self) -> list[BaseEvent]:
        """The results of resumed calls, each after the subagent its tool ran (if any)."""
        resumed, engine = self.options.resumed, self.engine
        if resumed is None:
            return []
        out = engine.translate_subagent_events()
        for result_event in resumed.events:
            out += engine.result_due(result_event.tool_call_id, str(result_event.content))
            out.append(result_event)
        engine.usage.add_resumed(resumed.usage)
        return out

    def _refused(self, resumed: ResumedToolCalls) -> RunErrorEvent:
        """End a request whose answers were refused (a failed signature, a malformed decision):
        nothing ran, the calls stay open, the message says why."""
        message = resumed.refusal_message or ""
        if not self.options.lifecycle.emit_run_error:
            raise ApprovalRefusedError(message)
        code = resumed.refusal_code or APPROVAL_REFUSED_CODE
        return run_error(ClientError(message, code), usage=self.engine.token_usage())

    def _source(self, stream: AsyncIterator[StreamEvent]) -> AsyncIterator[Any]:
        """What the loop reads: with a shared state, the run's one bounded queue, fed by a task
        reading the SDK's stream, by the subagent sink (nested events, as dicts) and by the
        state's changes (which give :data:`IDLE`); without one, nothing but the SDK's stream
        can feed the run, and the loop reads that stream itself."""
        state = self.options.shared_state
        if state is None:
            return stream
        queue = self.queue = run_queue.RunQueue(run_queue.RUN_QUEUE_SIZE)
        state.subagents.attach(queue)
        queue.read(stream)
        return queue

    def _between(self, item: Any) -> list[BaseEvent]:
        """The turn of a nested event (kept for the engine), or the queue's idle turn: the
        state's change, then what the engine can stream of the nested events."""
        out = self._state_change()
        sink, engine = self.engine.subagents.sink, self.engine
        if item is not IDLE and sink is not None:
            sink.keep(item)
        elif not (engine.subagents.waiting or (sink is not None and len(sink))):
            return out  # no nested event to translate
        return out + engine.translate_subagent_events()

    def _weave(self, events: list[BaseEvent]) -> list[BaseEvent]:
        """The engine's events with the run's state predictions in place (see
        :meth:`StatePredictions.weave`): applied here, as each declared call starts and ends."""
        predictions = self.predictions
        if predictions is None:
            return events
        return predictions.weave(events, self.engine.book.calls)

    def _state_change(self) -> list[BaseEvent]:
        """A STATE_SNAPSHOT (or STATE_DELTA) when the shared state changed since the last."""
        state = self.options.shared_state
        if state is None or not state.take_change():
            return []
        return self.state_stream.events(state.value)

    async def _closing(self) -> AsyncGenerator[BaseEvent, None]:
        """Close what is open, then final state, MESSAGES_SNAPSHOT, end event, RUN_FINISHED."""
        engine, options = self.engine, self.options
        if self.result is not None and cancel_mode(self.result) != "none":
            for event in engine.close_subagents("cancelled"):
                yield event
        for event in self._weave(engine.finish()) + self._state_change():
            yield event
        interrupts = await self._interrupts()
        state = await _resolve(options.lifecycle.final_state)
        if state is not None:
            for event in self.state_stream.events(state):
                yield event
        if options.lifecycle.emit_messages_snapshot:
            yield engine.messages_snapshot()
        custom = await _custom_event(options.lifecycle.end_custom_event, "end_custom_event")
        if custom is not None:
            yield custom
        yield self._run_finished(interrupts)

    async def _interrupts(self) -> list[Interrupt]:
        """The resume's undecided approvals, then the run's own (not its client tool calls)."""
        resumed, result, engine = self.options.resumed, self.result, self.engine
        interrupts = list(resumed.open_interrupts) if resumed is not None else []
        paused = [] if result is None else result.interruptions
        paused = [item for item in paused if not is_client_tool_approval(item)]
        if paused and result is not None:
            approvals = resumed.approvals if resumed is not None else Approvals()
            schemas = await _editable_schemas(approvals, paused, result.context_wrapper)
            interrupts += interrupts_from_result(
                paused,
                engine.call_ids() | _history_call_ids(engine.run_input),
                signer=approvals.signer,
                thread_id=resumed.binding if resumed is not None else engine.run_input.thread_id,
                params_schemas=schemas,
            )
        return interrupts

    def _run_finished(self, interrupts: list[Interrupt]) -> RunFinishedEvent:
        engine, result = self.engine, self.result
        run_input = engine.run_input
        self._count_unstreamed()
        pre_1_0 = run_input.protocol_version is None
        outcome: Any
        if interrupts:
            outcome = RunFinishedInterruptOutcome(interrupts=interrupts)
        elif result is not None and cancel_mode(result) != "none":
            # Clients older than 1.0 reject the cancelled outcome: they get none.
            outcome = None if pre_1_0 else RunFinishedCancelledOutcome()
        else:
            pending = [] if pre_1_0 else engine.pending_tool_call_ids()
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None)
        return RunFinishedEvent(
            thread_id=run_input.thread_id,
            run_id=run_input.run_id,
            outcome=outcome,
            usage=engine.token_usage(),
        )

    def _count_unstreamed(self) -> None:
        """Add the usage the SDK counted but the stream did not show (agents used as tools)."""
        if self.result is not None:
            self.engine.usage.add_unstreamed(self.result.context_wrapper.usage)

    def _failure(self, exc: Exception) -> list[BaseEvent]:
        """What closes a failed run: open subagents and windows, then RUN_ERROR if wanted.

        Its message and code are the error policy's choice (the spec's by default: the
        ``run_error_message``, else the exception's text and class name; the wrapper's and
        ``agui_sse_response``'s keep the text out), made before the event is built.
        """
        engine, options = self.engine, self.options
        out = engine.close_subagents("failed") + self._weave(engine.finish()) + self._state_change()
        if options.lifecycle.emit_run_error:
            self._count_unstreamed()
            usage = engine.token_usage()
            if isinstance(exc, StateTooLargeError):  # the package's own text, for the client
                out.append(run_error(ClientError(str(exc), exc.code), usage=usage))
            else:
                out.append(failed_run(exc, options.lifecycle.run_error_message, usage=usage))
        return out

    async def _release(self) -> None:
        """Cancel an owned run that has not ended, then close the queue (its reader task is
        cancelled and awaited) and the stream."""
        result = self.result
        if result is not None and not result.is_complete:
            result.cancel()
        if self.queue is not None:
            await self.queue.aclose()
        closer = getattr(self.stream, "aclose", None)
        if result is not None and closer is not None:
            await closer()


async def _editable_schemas(
    approvals: Approvals, paused: Sequence[ToolApprovalItem], context: RunContextWrapper[Any]
) -> dict[str, dict[str, Any]]:
    """The argument schemas the paused calls' interrupts offer edits with: those of the tools
    the approval settings make editable."""
    if not approvals.editable:
        return {}
    schemas = await paused_params_schemas(paused, context)
    return {name: schema for name, schema in schemas.items() if approvals.may_edit(name)}


def _history_call_ids(run_input: RunAgentInput) -> set[str]:
    ids: set[str] = set()
    for message in run_input.messages:
        for call in getattr(message, "tool_calls", None) or []:
            ids.add(call.id)
    return ids
