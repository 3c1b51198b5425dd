"""``AGUITranslator``: the public, stateless entry point (``to_openai`` and ``to_agui``).

``to_agui`` owns the run's lifecycle around the synchronous outbound engine: RUN_STARTED,
optional custom and state events, the engine's events, the closing snapshot and outcome, the
error path, and cancelling an owned SDK run when the consumer stops reading.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, Union

from ag_ui.core import (
    PROTOCOL_VERSION,
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
    RunStartedEvent,
    StateSnapshotEvent,
)
from agents.result import RunResultStreaming
from agents.stream_events import StreamEvent

from ag_ui_openai_agents.approvals.interrupts import interrupts_from_result
from ag_ui_openai_agents.approvals.signing import (
    DEFAULT_APPROVAL_MAX_AGE,
    ApprovalSecret,
    ApprovalSigner,
    approval_signer,
)
from ag_ui_openai_agents.approvals.verify import APPROVAL_REFUSED_CODE, ApprovalRefusedError
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator, TranslatedInput
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from ag_ui_openai_agents.outbound.usage import token_usage
from ag_ui_openai_agents.scope import RunScope
from ag_ui_openai_agents.state import SharedState
from ag_ui_openai_agents.subagents import SubagentSink, with_subagent_events

if TYPE_CHECKING:
    from ag_ui_openai_agents.approvals.resume import ResumedToolCalls

__all__ = ["AGUITranslator", "Source"]

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


async def _first_event(
    stream: AsyncIterator[StreamEvent],
) -> tuple[list[StreamEvent], Exception | None]:
    """Take the stream's first event (none when it is empty), or the error it raised instead."""
    try:
        return [await stream.__anext__()], None
    except StopAsyncIteration:
        return [], None
    except Exception as exc:
        return [], exc


class _ClientToolStop:
    """Ends an owned SDK run after the turn in which a client tool's proxy ran.

    The SDK waits for its registered consumer to take a turn's events before it starts the next
    turn, and the proxy's output is one of those events: asking for ``cancel(mode="after_turn")``
    there lets every tool of the turn finish and keeps the model from being called again.
    ``to_agui`` registers as that consumer before the run can end its first turn, by taking the
    first event before anything else.
    """

    __slots__ = ("requested", "result")

    def __init__(self, result: RunResultStreaming) -> None:
        self.result = result
        self.requested = False
        """Whether this object asked the SDK to stop (so the run is not reported cancelled)."""

    def __call__(self) -> None:
        if not self.requested and getattr(self.result, "_cancel_mode", "none") == "none":
            self.requested = True
            self.result.cancel(mode="after_turn")

    @staticmethod
    def cancelled_by_caller(result: RunResultStreaming, stop: _ClientToolStop | None) -> bool:
        """Whether someone other than the client-tool stop cancelled ``result``."""
        mode = getattr(result, "_cancel_mode", "none")
        if mode == "none":
            return False
        return not (mode == "after_turn" and stop is not None and stop.requested)


class AGUITranslator:
    """Translate AG-UI requests to SDK input and SDK streams to AG-UI events.

    Stateless: one instance serves any number of concurrent requests. ``to_agui`` creates a
    fresh outbound engine (``outbound_cls``) for every run.

    ``approval_secret`` (one secret, a list with the signing one first, or an
    :class:`~ag_ui_openai_agents.ApprovalSigner`; None reads ``AG_UI_APPROVAL_SECRET``)
    signs the approval interrupts ``to_agui`` emits; they stay valid for ``approval_max_age``
    seconds. Pass the same to ``resume_tool_calls``, which checks them.
    """

    def __init__(
        self,
        *,
        inbound_cls: type[AGUIToOpenAITranslator] = AGUIToOpenAITranslator,
        outbound_cls: type[OpenAIToAGUITranslator] = OpenAIToAGUITranslator,
        approval_secret: ApprovalSecret | ApprovalSigner | None = None,
        approval_max_age: float = DEFAULT_APPROVAL_MAX_AGE,
    ) -> None:
        self.inbound_cls = inbound_cls
        self.outbound_cls = outbound_cls
        self._inbound = inbound_cls()
        self.approval_signer = approval_signer(approval_secret, approval_max_age)
        """Signs approval interrupts; None when approvals are not signed."""

    def to_openai(self, run_input: RunAgentInput) -> TranslatedInput:
        """Translate one request: SDK input items, client tool proxies and request metadata."""
        return self._inbound.translate(run_input)

    def translate_context(self, items: Iterable[Context] | None) -> str:
        """Render the AG-UI context as the block to add to instructions ("" when empty)."""
        return self._inbound.translate_context(list(items or []))

    async def to_agui(
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
        scope: RunScope | None = None,
    ) -> AsyncGenerator[BaseEvent, None]:
        """Yield the AG-UI events of one run, from RUN_STARTED to RUN_FINISHED or RUN_ERROR.

        ``events`` is the SDK's ``RunResultStreaming`` (then an early stop by the consumer
        cancels the run, and paused approvals become interrupts), its ``stream_events()``
        iterator (nothing is cancelled for you), or None when nothing runs (a resume whose
        approvals are still undecided).

        ``scope`` is the :class:`RunScope` the run was started in (``use_run_scope``): its state
        is streamed as ``shared_state`` is, and agents used as tools with
        ``on_stream=subagent_events`` stream as subagents.
        """
        engine = self.outbound_cls(run_input)
        result = events if isinstance(events, RunResultStreaming) else None
        stream: AsyncIterator[StreamEvent] | None = (
            result.stream_events() if result is not None else events  # type: ignore[assignment]
        )
        sink: SubagentSink | None = None
        if scope is not None:
            shared_state = shared_state or scope.state
            sink = scope.subagents
            engine.attach_subagent_sink(sink)
        merged = (
            with_subagent_events(stream, sink) if stream is not None and sink is not None else None
        )
        if resumed is not None and sink is None:
            engine.usage.add_entry(token_usage(resumed.usage, None))
        stop = _ClientToolStop(result) if result is not None else None
        engine.on_client_tool_call = stop
        finished = False
        try:
            first: list[StreamEvent] = []
            early_error: Exception | None = None
            if result is not None and stream is not None:
                # Become the run's consumer before its first turn can end, so the SDK waits for
                # this loop at every turn's end and a client tool call can stop it there.
                first, early_error = await _first_event(stream)
            yield RunStartedEvent(
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                parent_run_id=run_input.parent_run_id,
                protocol_version=PROTOCOL_VERSION,
            )
            custom = await _custom_event(start_custom_event, "start_custom_event")
            if custom is not None:
                yield custom
            state = await _resolve(initial_state)
            if state is not None:
                yield StateSnapshotEvent(snapshot=state)
            if resumed is not None and resumed.refusals:
                yield self._refused(engine, resumed, emit_run_error)
                return
            if shared_state is not None and shared_state.take_change():
                yield StateSnapshotEvent(snapshot=shared_state.value)
            if resumed is not None:
                for event in self._resumed_events(engine, resumed, sink):
                    yield event
            if early_error is not None:
                raise early_error
            translate = engine.translate
            for sdk_event in first:
                if shared_state is not None and shared_state.take_change():
                    yield StateSnapshotEvent(snapshot=shared_state.value)
                for event in translate(sdk_event):
                    yield event
            if merged is not None:
                subagents = engine.subagents
                async for batch in merged:
                    for sdk_event in batch:
                        if shared_state is not None and shared_state.take_change():
                            yield StateSnapshotEvent(snapshot=shared_state.value)
                        for event in translate(sdk_event):
                            yield event
                        if subagents.waiting:
                            for event in engine.translate_subagent_events():
                                yield event
                    for event in engine.translate_subagent_events():
                        yield event
                if result is not None and getattr(result, "_cancel_mode", "none") != "none":
                    for event in engine.close_subagents("cancelled"):
                        yield event
            elif stream is not None and shared_state is None:
                async for sdk_event in stream:
                    for event in translate(sdk_event):
                        yield event
            elif stream is not None and shared_state is not None:
                async for sdk_event in stream:
                    if shared_state.take_change():
                        yield StateSnapshotEvent(snapshot=shared_state.value)
                    for event in translate(sdk_event):
                        yield event
            for event in engine.finish():
                yield event
            if shared_state is not None and shared_state.take_change():
                yield StateSnapshotEvent(snapshot=shared_state.value)
            interrupts = self._interrupts(engine, result, resumed)
            state = await _resolve(final_state)
            if state is not None:
                yield StateSnapshotEvent(snapshot=state)
            if emit_messages_snapshot:
                yield engine.messages_snapshot()
            custom = await _custom_event(end_custom_event, "end_custom_event")
            if custom is not None:
                yield custom
            finished = True
            yield self._run_finished(engine, run_input, result, interrupts, stop)
        except (GeneratorExit, asyncio.CancelledError):
            if result is not None and not finished:
                result.cancel()
            raise
        except Exception as exc:
            for event in engine.close_subagents("failed"):
                yield event
            for event in engine.finish():
                yield event
            if shared_state is not None and shared_state.take_change():
                yield StateSnapshotEvent(snapshot=shared_state.value)
            if emit_run_error:
                self._count_unstreamed(engine, result)
                yield RunErrorEvent(
                    message=run_error_message or str(exc) or type(exc).__name__,
                    code=type(exc).__name__ if run_error_message is None else None,
                    usage=engine.token_usage(),
                )
            raise
        finally:
            if result is not None and not result.is_complete:
                result.cancel()
            if merged is not None:
                await merged.aclose()
            closer = getattr(stream, "aclose", None)
            if result is not None and closer is not None:
                await closer()

    # Helpers ----------------------------------------------------------------------------------

    @staticmethod
    def _resumed_events(
        engine: OpenAIToAGUITranslator, resumed: ResumedToolCalls, sink: SubagentSink | None
    ) -> list[BaseEvent]:
        """The results of resumed calls, each after the subagent its tool ran (if any)."""
        if sink is None:
            return list(resumed.events)
        out = engine.translate_subagent_events()
        for result_event in resumed.events:
            call_id = getattr(result_event, "tool_call_id", None)
            if isinstance(call_id, str):
                out += engine.result_due(call_id, str(getattr(result_event, "content", "")))
            out.append(result_event)
        engine.usage.add_resumed(resumed.usage)
        return out

    @staticmethod
    def _count_unstreamed(
        engine: OpenAIToAGUITranslator, result: RunResultStreaming | None
    ) -> None:
        if result is not None:
            engine.usage.add_unstreamed(result.context_wrapper.usage)

    def _interrupts(
        self,
        engine: OpenAIToAGUITranslator,
        result: RunResultStreaming | None,
        resumed: ResumedToolCalls | None,
    ) -> list[Interrupt]:
        interrupts = list(resumed.open_interrupts) if resumed is not None else []
        if result is not None and result.interruptions:
            known = engine.call_ids() | _history_call_ids(engine.run_input)
            interrupts += interrupts_from_result(
                result.interruptions,
                known,
                signer=self.approval_signer,
                thread_id=engine.run_input.thread_id,
            )
        return interrupts

    @staticmethod
    def _refused(
        engine: OpenAIToAGUITranslator, resumed: ResumedToolCalls, emit_run_error: bool
    ) -> RunErrorEvent:
        """End a request whose approvals were refused: nothing ran, the message says why."""
        message = resumed.refusal_message or ""
        if not emit_run_error:
            raise ApprovalRefusedError(message)
        return RunErrorEvent(
            message=message, code=APPROVAL_REFUSED_CODE, usage=engine.token_usage()
        )

    def _run_finished(
        self,
        engine: OpenAIToAGUITranslator,
        run_input: RunAgentInput,
        result: RunResultStreaming | None,
        interrupts: list[Interrupt],
        stop: _ClientToolStop | None = None,
    ) -> RunFinishedEvent:
        self._count_unstreamed(engine, result)
        pre_1_0 = run_input.protocol_version is None
        outcome: Any
        if interrupts:
            outcome = RunFinishedInterruptOutcome(interrupts=interrupts)
        elif result is not None and _ClientToolStop.cancelled_by_caller(result, stop):
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


def _history_call_ids(run_input: RunAgentInput) -> set[str]:
    ids: set[str] = set()
    for message in run_input.messages:
        for call in getattr(message, "tool_calls", None) or []:
            ids.add(call.id)
    return ids
