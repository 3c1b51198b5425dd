"""Internal: the outbound engine, a synchronous state machine from SDK events to AG-UI events.

Its public path is :mod:`ag_ui_openai_agents.engine`.

One :class:`OpenAIToAGUITranslator` serves one run. :meth:`~OpenAIToAGUITranslator.translate`
takes one SDK stream event and returns the AG-UI events it causes; :meth:`finish` closes what
is still open. It never awaits and never touches the ``Runner``: lifecycle, cancellation and
encoding belong to :class:`~ag_ui_openai_agents.translator.AGUITranslator`.

Each SDK event kind has a ``translate_*`` method, found through dispatch tables keyed by the
SDK's own discriminators; override one in a subclass to change one mapping. Event types in
neither a table nor an ignored set are logged at debug level and produce nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, get_args

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    StepFinishedEvent,
    StepStartedEvent,
    TokenUsage,
)
from agents import (
    AgentUpdatedStreamEvent,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MessageOutputItem,
    RunItem,
    StreamEvent,
)

from ag_ui_openai_agents.outbound.activities import PROGRESS_EVENTS, ActivityTranslation
from ag_ui_openai_agents.outbound.reasoning import ReasoningTranslation
from ag_ui_openai_agents.outbound.replay import provider_item
from ag_ui_openai_agents.outbound.snapshot import build_messages_snapshot
from ag_ui_openai_agents.outbound.subagent_book import CloseReason, SubagentBook
from ag_ui_openai_agents.outbound.text import TextTranslation
from ag_ui_openai_agents.outbound.tools import ToolTranslation
from ag_ui_openai_agents.outbound.usage import UsageTally
from ag_ui_openai_agents.outbound.windows import (
    ReasoningWindow,
    TextWindow,
    ToolCallWindow,
    WindowBook,
)
from ag_ui_openai_agents.protocol import CARRIED_ITEM_TYPES, HOSTED_CALL_TYPES
from ag_ui_openai_agents.subagents import SubagentSink

logger = logging.getLogger(__name__)

Events = list[BaseEvent]


# Responses stream events, by their ``type``: the method that translates each.
RAW_EVENT_HANDLERS: dict[str, str] = {
    "response.created": "translate_response_created",
    "response.output_item.added": "translate_output_item_added",
    "response.output_item.done": "translate_output_item_done",
    "response.output_text.delta": "translate_text_delta",
    "response.refusal.delta": "translate_text_delta",
    "response.function_call_arguments.delta": "translate_function_call_arguments_delta",
    "response.function_call_arguments.done": "translate_function_call_arguments_done",
    "response.mcp_call_arguments.delta": "translate_function_call_arguments_delta",
    "response.custom_tool_call_input.delta": "translate_function_call_arguments_delta",
    "response.reasoning_summary_part.added": "translate_reasoning_part_added",
    "response.reasoning_summary_text.delta": "translate_reasoning_summary_delta",
    "response.reasoning_summary_text.done": "translate_reasoning_text_done",
    "response.reasoning_summary_part.done": "translate_reasoning_part_done",
    "response.reasoning_text.delta": "translate_reasoning_text_delta",
    "response.reasoning_text.done": "translate_reasoning_part_done",
    "response.completed": "translate_response_completed",
    "response.incomplete": "translate_response_incomplete",
    "response.failed": "translate_response_incomplete",
    **dict.fromkeys(sorted(PROGRESS_EVENTS), "translate_hosted_progress"),
    "response.code_interpreter_call_code.delta": "translate_code_delta",
    "response.code_interpreter_call_code.done": "translate_code_done",
    "response.image_generation_call.partial_image": "translate_partial_image",
}

# Responses stream events that deliberately produce nothing (their content arrives through
# the events above, or has no AG-UI counterpart). Every other type is logged as unknown.
IGNORED_RAW_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "response.in_progress",
        "response.queued",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.done",
        "response.mcp_call_arguments.done",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.mcp_list_tools.in_progress",
        "response.audio.delta",
        "response.audio.done",
        "response.audio.transcript.delta",
        "response.audio.transcript.done",
        "response.custom_tool_call_input.done",
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
        "response.compaction.compacting",
        "error",
    }
)

# Committed run items, by their ``type``: the method that translates each.
RUN_ITEM_HANDLERS: dict[str, str] = {
    "message_output_item": "translate_message_output_item",
    "tool_call_item": "translate_tool_call_item",
    "tool_call_output_item": "translate_tool_call_output_item",
    "handoff_call_item": "translate_handoff_call_item",
    "handoff_output_item": "translate_handoff_output_item",
    "reasoning_item": "translate_reasoning_item",
    "mcp_approval_request_item": "translate_mcp_approval_request_item",
    "mcp_approval_response_item": "translate_mcp_approval_response_item",
    "mcp_list_tools_item": "translate_mcp_list_tools_item",
}

# Run items with no AG-UI counterpart.
IGNORED_RUN_ITEM_TYPES: frozenset[str] = frozenset(
    {
        "tool_search_call_item",
        "tool_search_output_item",
        "compaction_item",
        "tool_approval_item",
        "input_item",
    }
)

# ``output_item.added`` / ``output_item.done``, by the item's ``type``.
_ITEM_ADDED: dict[str, str] = {
    "message": "translate_text_item_added",
    "function_call": "translate_function_call_item_added",
    "custom_tool_call": "translate_function_call_item_added",
    "reasoning": "translate_reasoning_item_added",
    **dict.fromkeys(HOSTED_CALL_TYPES, "translate_hosted_call_item_added"),
}
_ITEM_DONE: dict[str, str] = {
    "message": "translate_text_item_done",
    "function_call": "translate_call_item_done",
    "custom_tool_call": "translate_call_item_done",
    "reasoning": "translate_reasoning_item_done",
    **dict.fromkeys(HOSTED_CALL_TYPES, "translate_call_item_done"),
    **dict.fromkeys(CARRIED_ITEM_TYPES, "translate_carried_item_done"),
}


class OpenAIToAGUITranslator(
    ActivityTranslation, TextTranslation, ToolTranslation, ReasoningTranslation
):
    """Translate the SDK stream of ONE run into AG-UI events. Create a fresh one per run."""

    raw_event_handlers: ClassVar[dict[str, str]] = RAW_EVENT_HANDLERS
    run_item_handlers: ClassVar[dict[str, str]] = RUN_ITEM_HANDLERS

    def __init__(self, run_input: RunAgentInput) -> None:
        self.run_input = run_input
        self.book = WindowBook()
        self.usage = UsageTally()
        self.client_tool_names: frozenset[str] = frozenset(t.name for t in run_input.tools or [])
        self.taken_message_ids: set[str] = {message.id for message in run_input.messages}
        self.current_step: str | None = None
        self.current_agent: Any = None
        self.subagents = SubagentBook(self)
        self._dispatch: dict[str, Callable[[Any], Events]] = {
            "run_item_stream_event": self._translate_run_item,
            "agent_updated_stream_event": self.translate_agent_updated,
        }
        self._raw: dict[str, Callable[[Any], Events]] = {
            kind: getattr(self, name) for kind, name in self.raw_event_handlers.items()
        }
        self._raw_by_class: dict[type, Callable[[Any], Events]] = {}
        self._items: dict[str, Callable[[Any], Events]] = {
            kind: getattr(self, name) for kind, name in self.run_item_handlers.items()
        }
        self._items_by_class: dict[type, Callable[[Any], Events] | None] = {}
        self._item_added: dict[str, Callable[[Any, int], Events]] = {
            kind: getattr(self, name) for kind, name in _ITEM_ADDED.items()
        }
        self._item_done: dict[str, Callable[[Any, int], Events]] = {
            kind: getattr(self, name) for kind, name in _ITEM_DONE.items()
        }
        self._added_by_class: dict[type, Callable[[Any, int], Events]] = {}
        self._done_by_class: dict[type, Callable[[Any, int], Events]] = {}

    # Entry points -----------------------------------------------------------------------------

    def translate(self, event: StreamEvent) -> Events:
        """Translate one SDK stream event into the AG-UI events it causes (maybe none).

        Raw Responses events, nearly all of a stream, go straight to their handler in
        ``raw_event_handlers``, found by the event's class (see :meth:`_raw_handler`); the
        table ``_dispatch`` covers the other stream event kinds.
        """
        if event.type == "raw_response_event":
            data = event.data
            raw_handler = self._raw_by_class.get(type(data)) or self._raw_handler(data)
            return raw_handler(data)
        handler = self._dispatch.get(event.type)
        if handler is None:
            logger.debug("Unknown SDK stream event type %r: nothing emitted.", event.type)
            return []
        return handler(event)

    def finish(self) -> Events:
        """Close every subagent, window and step still open (end of stream, or before RUN_ERROR)."""
        out: Events = self.subagents.close_under(self, "unfinished")
        for window in self.book.open_windows():
            if isinstance(window, TextWindow):
                out += self.close_text(window)
            elif isinstance(window, ToolCallWindow):
                out += self._end_call(window, None)
            elif isinstance(window, ReasoningWindow):
                out += self.close_reasoning(window)
        if self.current_step is not None:
            out.append(StepFinishedEvent(step_name=self.current_step))
            self.current_step = None
        return out

    # Subagents --------------------------------------------------------------------------------

    def attach_subagent_sink(self, sink: SubagentSink, *, shown: bool = True) -> None:
        """Take the nested events of agents used as tools from ``sink`` (filled by
        ``subagent_events`` during this run).

        ``shown=False`` keeps the subagents from the client: they are still translated (their
        usage counts) but stream nothing and leave no message in the snapshot, so the client
        sees each agent tool as one call and its result."""
        self.subagents.sink = sink
        self.subagents.shown = shown

    def translate_subagent_events(self) -> Events:
        """Translate the nested events the sink holds (those whose subagent can stream yet)."""
        return self.subagents.intake()

    def close_subagents(self, reason: CloseReason) -> Events:
        """Close every subagent still open, saying why the run ended (before the terminal event)."""
        return self.subagents.close_under(self, reason)

    def result_due(self, call_id: str, content: str) -> Events:
        """Close the subagents ``call_id`` spawned: their events come before its result."""
        return self.subagents.close_for_call(self, call_id, content)

    def new_subagent_engine(self) -> OpenAIToAGUITranslator:
        """An engine for one subagent run: same rules, this run's usage tally and message ids."""
        child = type(self)(self.run_input)
        child.usage = self.usage
        child.taken_message_ids = self.taken_message_ids
        child.client_tool_names = frozenset()
        child.subagents = self.subagents
        return child

    def messages_snapshot(self) -> MessagesSnapshotEvent:
        """The whole conversation: input history, then this run's messages, streamed ids."""
        self.book.recorder.finish()
        return build_messages_snapshot(self.run_input.messages, self.book.produced)

    def pending_tool_call_ids(self) -> list[str]:
        """Client-owned calls started in this run and left unanswered, in call order."""
        return [
            call.tool_call_id
            for call in self.book.calls.values()
            if call.client_owned and not call.answered and not call.hosted and call.started
        ]

    def call_ids(self) -> set[str]:
        """Every tool call id this run streamed."""
        return set(self.book.calls)

    def token_usage(self) -> list[TokenUsage] | None:
        """Usage so far, one entry per model (None when nothing reported any)."""
        return self.usage.entries()

    # Dispatch ---------------------------------------------------------------------------------

    def _translate_run_item(self, event: Any) -> Events:
        # Each run item class of ``agents.items`` has one fixed ``type`` tag, and reading an
        # attribute of a run item goes through the SDK's Python ``__getattribute__``: look the
        # tag up once per class. Other classes (subclasses included) go by their tag each time.
        item: RunItem = event.item
        cls = type(item)
        if cls in self._items_by_class:
            handler = self._items_by_class[cls]
        else:
            handler = self._items.get(item.type)
            if handler is None and item.type not in IGNORED_RUN_ITEM_TYPES:
                logger.debug("Unknown SDK run item type %r: nothing emitted.", item.type)
            if cls.__module__ == MessageOutputItem.__module__:
                self._items_by_class[cls] = handler
        return handler(item) if handler is not None else []

    def _raw_handler(self, data: Any) -> Callable[[Any], Events]:
        handler = _handler_by_tag(self._raw, self._raw_by_class, data, _produce_nothing)
        if handler is _produce_nothing:
            tag = getattr(data, "type", None)
            if tag not in IGNORED_RAW_EVENT_TYPES:
                logger.debug("Unknown Responses stream event type %r: nothing emitted.", tag)
        return handler

    def _by_item_type(
        self,
        table: dict[str, Callable[[Any, int], Events]],
        by_class: dict[type, Callable[[Any, int], Events]],
        event: Any,
    ) -> Events:
        item = event.item
        method = by_class.get(type(item)) or _handler_by_tag(
            table, by_class, item, _nothing_for_item
        )
        return method(item, event.output_index)

    # Responses lifecycle ----------------------------------------------------------------------

    def translate_response_created(self, event: Any) -> Events:
        """A new model response: output indexes start again."""
        self.book.new_response()
        return []

    def translate_output_item_added(self, event: Any) -> Events:
        """``response.output_item.added``: dispatch on the item's type."""
        return self._by_item_type(self._item_added, self._added_by_class, event)

    def translate_output_item_done(self, event: Any) -> Events:
        """``response.output_item.done``: dispatch on the item's type."""
        return self._by_item_type(self._item_done, self._done_by_class, event)

    def translate_response_completed(self, event: Any) -> Events:
        """Count the usage of a completed response."""
        self.usage.add_response(event.response, counted_by_sdk=True)
        return []

    def translate_response_incomplete(self, event: Any) -> Events:
        """Count the usage of an incomplete or failed response (the SDK then raises)."""
        self.usage.add_response(event.response, counted_by_sdk=False)
        return []

    def translate_carried_item_done(self, item: Any, output_index: int) -> Events:
        """An output item with no AG-UI counterpart (MCP tool listing, compaction): nothing is
        emitted; the snapshot carries it so the next request replays it in its place."""
        self.book.recorder.carry(provider_item(item), output_index)
        return []

    # Agents -----------------------------------------------------------------------------------

    def translate_agent_updated(self, event: AgentUpdatedStreamEvent) -> Events:
        """The running agent changed: finish the previous agent's step, start the new one's."""
        self.current_agent = event.new_agent
        name = str(getattr(event.new_agent, "name", "") or "agent")
        out: Events = []
        if self.current_step is not None:
            out.append(StepFinishedEvent(step_name=self.current_step))
        self.book.end_group()
        self.current_step = name
        out.append(StepStartedEvent(step_name=name))
        return out

    # MCP --------------------------------------------------------------------------------------

    def translate_mcp_approval_request_item(self, item: MCPApprovalRequestItem) -> Events:
        """A hosted MCP server asks for approval: a CUSTOM ``mcp_approval_request`` event."""
        raw = item.raw_item
        dump = getattr(raw, "model_dump", None)
        value = dump(mode="json", exclude_none=True) if callable(dump) else dict(raw)
        return [CustomEvent(name="mcp_approval_request", value=value)]

    def translate_mcp_approval_response_item(self, item: MCPApprovalResponseItem) -> Events:
        """Server bookkeeping only: nothing is emitted."""
        return []

    def translate_mcp_list_tools_item(self, item: MCPListToolsItem) -> Events:
        """Server bookkeeping only: nothing is emitted."""
        return []


def _produce_nothing(data: Any) -> Events:
    """The handler of a raw event type with no AG-UI counterpart."""
    return []


def _nothing_for_item(item: Any, output_index: int) -> Events:
    """The handler of an output item type with no AG-UI counterpart."""
    return []


Handler = TypeVar("Handler", bound=Callable[..., Events])


def _handler_by_tag(
    table: dict[str, Handler], by_class: dict[type, Handler], value: Any, nothing: Handler
) -> Handler:
    """The handler of ``value`` by its ``type`` tag (``nothing`` when the table has none).

    Reading ``type`` of a Responses model goes through pydantic's attribute hook, which costs
    more than the rest of the dispatch: a class that declares its one tag keeps its handler
    in ``by_class``. Other classes go by their tag each time."""
    tag = getattr(value, "type", None)
    handler = (table.get(tag) if isinstance(tag, str) else None) or nothing
    if _declares_only(type(value), tag):
        by_class[type(value)] = handler
    return handler


def _declares_only(cls: type, tag: object) -> bool:
    """Whether ``cls`` declares ``tag`` as the one value of its ``type`` field (a pydantic
    model with ``type: Literal[tag]``): then every instance is of that type."""
    fields = getattr(cls, "model_fields", None)
    declared = fields.get("type") if isinstance(fields, dict) else None
    return declared is not None and get_args(declared.annotation) == (tag,)
