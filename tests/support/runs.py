"""Drive whole runs through the translator: request → to_openai → scripted run → to_agui.

Every stream produced here goes through :func:`support.invariants.check_stream` before a test
sees it, so each test only asserts what is particular to its case.

* :func:`run_agui` runs an agent on a :class:`~support.scripted.ScriptedResponsesModel` with the
  real ``Runner.run_streamed`` and translates the ``RunResultStreaming``.
* :func:`record` keeps the raw SDK stream events of a real run, for tests that replay them
  (changed, reordered or cut) through :func:`translate_events` as a bare async iterator.
* :func:`engine_steps` feeds SDK events to a bare outbound engine one at a time, to see which
  SDK event caused which AG-UI events.
* :func:`brief` turns events into short tuples so tests can compare exact sequences.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    Tool,
    UserMessage,
)
from agents import Agent, RunConfig, RunResultStreaming
from agents.items import RunItem
from agents.stream_events import RawResponsesStreamEvent, RunItemStreamEvent, StreamEvent
from pydantic import BaseModel

from ag_ui_openai_agents import AGUITranslator, TranslatedInput
from ag_ui_openai_agents.outbound.engine import OpenAIToAGUITranslator
from support.invariants import check_stream
from support.scripted import ScriptedResponsesModel, TurnSource, run_streamed

__all__ = [
    "AguiRun",
    "brief",
    "check_prefix",
    "engine_steps",
    "feed",
    "item_event",
    "of_type",
    "only",
    "raw",
    "record",
    "request",
    "run_agui",
    "sdk_kind",
    "translate_events",
    "user",
    "with_client_tools",
]

E = TypeVar("E", bound=BaseEvent)

# Events whose payload is too large to be useful in a sequence comparison.
_TYPE_ONLY = {"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"}
_NOT_PAYLOAD = {"type", "timestamp", "raw_event", "role"}


class RunEvents:
    """Accessors over a run's ``events``, for the classes that hold one run."""

    events: list[BaseEvent]

    @property
    def types(self) -> list[str]:
        """The event types, in order."""
        return [event.type.value for event in self.events]

    def of(self, cls: type[E]) -> list[E]:
        """Every event of class ``cls``."""
        return of_type(self.events, cls)

    def one(self, cls: type[E]) -> E:
        """The single event of class ``cls``."""
        return only(self.events, cls)

    @property
    def finished(self) -> RunFinishedEvent:
        """The RUN_FINISHED event (which must be last)."""
        last = self.events[-1]
        assert isinstance(last, RunFinishedEvent), f"the run ended with {last.type.value}"
        return last

    @property
    def interrupts(self) -> list[Interrupt]:
        """The interrupts the run ended with (its RUN_FINISHED must carry them)."""
        outcome = self.finished.outcome
        assert isinstance(outcome, RunFinishedInterruptOutcome), f"outcome {outcome!r}"
        return outcome.interrupts

    @property
    def run_error(self) -> RunErrorEvent:
        """The RUN_ERROR event (which must be last)."""
        last = self.events[-1]
        assert isinstance(last, RunErrorEvent), f"the run ended with {last.type.value}"
        return last

    @property
    def snapshot(self) -> list[Message]:
        """The messages of the single MESSAGES_SNAPSHOT."""
        return self.one(MessagesSnapshotEvent).messages


@dataclass
class AguiRun(RunEvents):
    """What one translated run produced."""

    events: list[BaseEvent]
    """Every AG-UI event, in order (already checked by ``check_stream``)."""
    model: ScriptedResponsesModel | None
    """The scripted model the run used (None for replayed streams)."""
    result: RunResultStreaming | None
    """The SDK result object (None for replayed streams)."""
    error: BaseException | None = None
    """The exception ``to_agui`` re-raised, if any."""

    @property
    def brief(self) -> list[tuple[Any, ...]]:
        """The events as short tuples (see :func:`brief`)."""
        return brief(self.events)


def of_type(events: Iterable[BaseEvent], cls: type[E]) -> list[E]:
    """Every event of class ``cls`` in ``events``."""
    return [event for event in events if isinstance(event, cls)]


def only(events: Iterable[BaseEvent], cls: type[E]) -> E:
    """The single event of class ``cls`` in ``events``."""
    found = of_type(events, cls)
    assert len(found) == 1, f"expected one {cls.__name__}, found {len(found)}"
    return found[0]


def brief(events: Iterable[BaseEvent]) -> list[tuple[Any, ...]]:
    """Each event as ``(TYPE, *payload values)`` in field order; lifecycle events as ``(TYPE,)``.

    Fields left None are dropped, so ``TOOL_CALL_START`` reads
    ``("TOOL_CALL_START", tool_call_id, tool_call_name, parent_message_id)``.
    """
    out: list[tuple[Any, ...]] = []
    for event in events:
        name = event.type.value
        if name in _TYPE_ONLY:
            out.append((name,))
            continue
        data = event.model_dump(exclude_none=True)
        out.append((name, *(value for key, value in data.items() if key not in _NOT_PAYLOAD)))
    return out


def user(text: str = "Hello", id: str = "user-1") -> UserMessage:
    """A user message."""
    return UserMessage(id=id, role="user", content=text)


def request(
    *messages: Message,
    tools: Sequence[Tool] = (),
    state: Any = None,
    protocol_version: str | None = "1.0",
    thread_id: str = "thread-1",
    run_id: str = "run-1",
    parent_run_id: str | None = None,
) -> RunAgentInput:
    """A RunAgentInput; with no messages, one user message ``user-1``."""
    return RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        parent_run_id=parent_run_id,
        protocol_version=protocol_version,
        state=state,
        messages=list(messages) or [user()],
        tools=list(tools),
        context=[],
        forwarded_props=None,
    )


def check_prefix(events: Sequence[BaseEvent], run_input: RunAgentInput) -> None:
    """Check a stream that stopped before its terminal event (the consumer stopped, or
    RUN_ERROR was switched off): it must be valid up to a RUN_ERROR a server could append."""
    ended = [*events, RunErrorEvent(message="appended by the test")]
    pre_1_0 = run_input.protocol_version is None
    check_stream(ended, run_input=run_input, pre_1_0=pre_1_0, cut=True)


async def _drain(
    stream: AsyncIterator[BaseEvent],
    run_input: RunAgentInput,
    expect_error: bool,
    emit_run_error: bool,
) -> tuple[list[BaseEvent], BaseException | None]:
    """Collect a to_agui stream, check it, and keep the exception it re-raised (if allowed)."""
    events: list[BaseEvent] = []
    error: BaseException | None = None
    try:
        async for event in stream:
            events.append(event)
    except Exception as exc:
        if not expect_error:
            raise
        error = exc
    if error is not None and not emit_run_error:
        check_prefix(events, run_input)
    else:
        check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    if expect_error:
        assert error is not None, "the run was expected to fail"
    return events, error


AgentSource = Agent[Any] | Callable[[TranslatedInput], Agent[Any]]


def with_client_tools(agent: Agent[Any]) -> Callable[[TranslatedInput], Agent[Any]]:
    """Build the per-request clone ``OpenAIAgentsAgent`` runs: the request's client tools
    added (their proxies stop the run once one of them is called)."""

    def clone(translated: TranslatedInput) -> Agent[Any]:
        return translated.with_client_tools(agent)

    return clone


async def run_agui(
    agent: AgentSource,
    run_input: RunAgentInput,
    turns: TurnSource | None = None,
    *,
    model: ScriptedResponsesModel | None = None,
    translator: AGUITranslator | None = None,
    run_config: RunConfig | None = None,
    context: Any = None,
    runner_kwargs: dict[str, Any] | None = None,
    expect_error: bool = False,
    **to_agui_kwargs: Any,
) -> AguiRun:
    """Translate ``run_input``, run ``agent`` offline on ``turns``, translate the result.

    ``agent`` may be a function of the translated request (see :func:`with_client_tools`).
    ``runner_kwargs`` go to ``Runner.run_streamed`` (``max_turns``, ``error_handlers``, …).
    ``expect_error`` keeps the exception ``to_agui`` re-raises on the returned run instead of
    propagating it. Extra keyword arguments go to ``to_agui``.
    """
    translator = translator or AGUITranslator()
    translated = translator.to_openai(run_input)
    if not isinstance(agent, Agent):
        agent = agent(translated)
    result, used = run_streamed(
        agent,
        translated.messages,
        model=model,
        turns=None if model is not None else (turns or ()),
        run_config=run_config,
        context=context,
        **(runner_kwargs or {}),
    )
    stream = translator.to_agui(result, run_input, **to_agui_kwargs)
    emit_run_error = bool(to_agui_kwargs.get("emit_run_error", True))
    events, error = await _drain(stream, run_input, expect_error, emit_run_error)
    return AguiRun(events, used, result, error)


async def feed(events: Iterable[StreamEvent]) -> AsyncIterator[StreamEvent]:
    """A bare async iterator over recorded or hand-built SDK stream events."""
    for event in events:
        yield event


async def translate_events(
    sdk_events: Iterable[StreamEvent],
    run_input: RunAgentInput | None = None,
    *,
    translator: AGUITranslator | None = None,
    expect_error: bool = False,
    **to_agui_kwargs: Any,
) -> AguiRun:
    """Translate SDK stream events given as a bare async iterator, and check the stream."""
    run_input = run_input or request()
    translator = translator or AGUITranslator()
    stream = translator.to_agui(feed(list(sdk_events)), run_input, **to_agui_kwargs)
    emit_run_error = bool(to_agui_kwargs.get("emit_run_error", True))
    events, error = await _drain(stream, run_input, expect_error, emit_run_error)
    return AguiRun(events, None, None, error)


async def record(
    agent: Agent[Any], turns: TurnSource, input: str = "Hello", *, allow_error: bool = False
) -> tuple[list[StreamEvent], ScriptedResponsesModel]:
    """Run ``agent`` offline and keep its SDK stream events, unchanged.

    ``allow_error`` keeps the events streamed before the run raised, instead of failing.
    """
    result, model = run_streamed(agent, input, turns=turns)
    events: list[StreamEvent] = []
    try:
        async for event in result.stream_events():
            events.append(event)
    except Exception:
        if not allow_error:
            raise
    return events, model


def raw(data: BaseModel) -> RawResponsesStreamEvent:
    """Wrap one Responses stream event as the SDK streams it."""
    return RawResponsesStreamEvent(data=data)  # type: ignore[arg-type]


def item_event(name: Any, item: RunItem) -> RunItemStreamEvent:
    """Wrap one committed run item as the SDK streams it."""
    return RunItemStreamEvent(name=name, item=item)


def sdk_kind(event: StreamEvent) -> str:
    """A short name for an SDK stream event: the Responses type, the run item event name, or
    ``agent_updated``."""
    if isinstance(event, RawResponsesStreamEvent):
        return str(event.data.type)
    if isinstance(event, RunItemStreamEvent):
        return str(event.name)
    return "agent_updated"


def engine_steps(
    sdk_events: Iterable[StreamEvent],
    run_input: RunAgentInput | None = None,
    *,
    engine_cls: type[OpenAIToAGUITranslator] = OpenAIToAGUITranslator,
) -> tuple[list[tuple[StreamEvent, list[BaseEvent]]], list[BaseEvent]]:
    """Feed SDK events one by one to a fresh engine: each event with what it produced, and
    what ``finish`` closed at the end. The whole stream, wrapped in a lifecycle, is checked."""
    run_input = run_input or request()
    engine = engine_cls(run_input)
    steps = [(event, engine.translate(event)) for event in sdk_events]
    tail = engine.finish()
    stream: list[BaseEvent] = [
        RunStartedEvent(
            thread_id=run_input.thread_id,
            run_id=run_input.run_id,
            parent_run_id=run_input.parent_run_id,
            protocol_version="1.0",
        ),
        *(event for _, produced in steps for event in produced),
        *tail,
        engine.messages_snapshot(),
        RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id),
    ]
    check_stream(stream, run_input=run_input)
    return steps, tail
