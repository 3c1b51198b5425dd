"""Inbound translation: an AG-UI ``RunAgentInput`` turned into OpenAI Agents SDK input.

:class:`AGUIToOpenAITranslator` maps the AG-UI conversation onto Responses input items, the
client-declared tools onto request-scoped :class:`~agents.FunctionTool` proxies, and passes the
request's metadata through on a :class:`TranslatedInput`. It keeps no state between calls, so one
instance can serve every request. Each message kind and content-part kind has its own public
``translate_*`` method, the place to change one mapping in a subclass.

Nothing in a request is fatal here: unknown messages and unusable content parts are skipped
with a log line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias, cast

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    Context,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from agents import Agent, FunctionTool, TResponseInputItem
from openai.types.responses import (
    EasyInputMessageParam,
    ResponseFunctionToolCallParam,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from ag_ui_openai_agents.inbound.client_tools import create_client_tool
from ag_ui_openai_agents.inbound.content import InputContent
from ag_ui_openai_agents.inbound.pairing import ReplayLinks, enforce_pairing
from ag_ui_openai_agents.inbound.parts import ContentTranslation, discriminator
from ag_ui_openai_agents.inbound.replay_items import (
    assistant_item,
    carried_items,
    merge_reasoning_part,
    reasoning_part_item,
)
from ag_ui_openai_agents.inbound.tool_output import OutputItem, exact_output, structured_text
from ag_ui_openai_agents.log_lines import summarise_repeats, summarised_warnings
from ag_ui_openai_agents.protocol import is_hosted_call_name, read_hosted_artefact, read_replay

__all__ = [
    "CONTEXT_HEADER",
    "PRODUCED_WIRE_TYPES",
    "AGUIToOpenAITranslator",
    "TranslatedInput",
]

logger = summarise_repeats(logging.getLogger(__name__))

CONTEXT_HEADER = "Context from the application:"
"""First line of the rendered AG-UI context block."""

PRODUCED_WIRE_TYPES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "input_item_type": frozenset(
            {"function_call", "function_call_output", "reasoning", "message"}
        ),
        "message_role": frozenset({"system", "developer", "user", "assistant"}),
        "message_content_type": frozenset(
            {"input_text", "input_image", "input_file", "input_audio"}
        ),
        "tool_output_content_type": frozenset({"input_text", "input_image", "input_file"}),
        "reasoning_summary_type": frozenset({"summary_text"}),
        "reasoning_content_type": frozenset({"reasoning_text"}),
        "output_message_content_type": frozenset({"output_text"}),
        "image_detail": frozenset({"auto"}),
        "audio_format": frozenset({"wav", "mp3"}),
    }
)
"""Every discriminator value the inbound translator writes into SDK input, by kind.

Messages are sent in the ``{"role": ..., "content": ...}`` form, so they are identified by role
rather than by an item ``type``; an assistant message whose provider id the snapshot recorded
goes as the provider's ``message`` item instead. Hosted and compaction items are replayed as the
provider sent them and are not listed here.
"""

_TOOL_OUTPUT_CONTENT_TYPES = PRODUCED_WIRE_TYPES["tool_output_content_type"]
_MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)

MessageHandler: TypeAlias = Callable[[Any], list[TResponseInputItem]]
ToolOutput: TypeAlias = str | list[InputContent] | list[OutputItem]


@dataclass(frozen=True)
class TranslatedInput:
    """One AG-UI request in the form an OpenAI Agents SDK run takes."""

    messages: list[TResponseInputItem]
    """The conversation as Responses input items: pass it as ``Runner.run_streamed(input=...)``."""

    tools: list[FunctionTool]
    """Proxies for the tools the client declared; add them to a per-request agent clone."""

    thread_id: str
    """The request's conversation id, unchanged."""

    run_id: str
    """The request's run id, unchanged."""

    parent_run_id: str | None = None
    """The run that spawned this one, if the client named one."""

    state: Any = None
    """The client's state as sent, for the application to use."""

    context: list[Context] = field(default_factory=list)
    """The AG-UI context items (``description`` / ``value``); empty when none were sent."""

    forwarded_props: Any = None
    """Application-specific values the client forwarded, untouched."""

    resume: list[ResumeEntry] | None = None
    """Answers to the interrupts that ended the previous run, or ``None`` when this run is not
    a resume."""

    def with_client_tools(self, agent: Agent[Any]) -> Agent[Any]:
        """A clone of ``agent`` that also has the client's tools (``agent`` itself when there
        are none to add). A client tool named like one of the agent's own tools is left out
        with a warning: the server's tool wins, so a client cannot stand in for it."""
        own = {getattr(tool, "name", None) for tool in agent.tools}
        added = [tool for tool in self.tools if tool.name not in own]
        for tool in self.tools:
            if tool.name in own:
                logger.warning(
                    "Client tool %r ignored: the agent has a tool of that name", tool.name
                )
        return agent.clone(tools=[*agent.tools, *added]) if added else agent


def _replay_metadata(history: Iterable[Any]) -> Iterable[Any]:
    """The metadata of every message and tool call of a history, in order."""
    for message in history:
        yield getattr(message, "metadata", None)
        for call in getattr(message, "tool_calls", None) or []:
            yield call.metadata


def _coerce_message(message: Any) -> Any:
    """Validate a message given as a plain mapping; models pass through."""
    if isinstance(message, Mapping):
        return _MESSAGE_ADAPTER.validate_python(message)
    return message


class AGUIToOpenAITranslator(ContentTranslation):
    """Translate AG-UI requests into OpenAI Agents SDK input. Stateless and reusable.

    Dispatch goes through two tables, message ``role`` → ``translate_*_message`` and content part
    ``type`` → ``translate_*_part``, built from bound methods, so a subclass overriding one
    method changes that mapping only.
    """

    def __init__(self) -> None:
        self._message_handlers: Mapping[str, MessageHandler] = MappingProxyType(
            {
                "system": self.translate_system_message,
                "developer": self.translate_developer_message,
                "user": self.translate_user_message,
                "assistant": self.translate_assistant_message,
                "tool": self.translate_tool_message,
                "reasoning": self.translate_reasoning_message,
                "activity": self.translate_activity_message,
            }
        )
        self._part_handlers = self.part_handlers()

    # --- whole request -------------------------------------------------------------------------

    @summarised_warnings()
    def translate(self, run_input: RunAgentInput) -> TranslatedInput:
        """Translate one request: messages, client tools, and the metadata passed through."""
        return TranslatedInput(
            messages=self.translate_messages(run_input.messages),
            tools=self.translate_tools(run_input.tools or []),
            thread_id=run_input.thread_id,
            run_id=run_input.run_id,
            parent_run_id=run_input.parent_run_id,
            state=run_input.state,
            context=list(run_input.context or []),
            forwarded_props=run_input.forwarded_props,
            resume=list(run_input.resume) if run_input.resume is not None else None,
        )

    @summarised_warnings()
    def translate_messages(
        self, messages: Iterable[Message | Mapping[str, Any]]
    ) -> list[TResponseInputItem]:
        """Translate a conversation, keeping its order.

        Messages may also be plain mappings in AG-UI's JSON form; they are validated first.
        Messages with an unknown role or that fail validation are skipped, and so are messages
        attributed to a subagent (``subagent_run_id``): an agent used as a tool did that work.
        Messages this package produced carry replay metadata (``replay.py``): from it the
        provider's own items come back, ids, phases, every reasoning part, hosted calls and
        compaction included. The result then passes
        :func:`~ag_ui_openai_agents.inbound.pairing.enforce_pairing`, so a history that lost
        or changed fields still makes a request the Responses API accepts.
        """
        history = [message for message in map(self._accept, messages) if message is not None]
        hosted_call_ids = self._hosted_call_ids(history)
        _warn_unmatched_tool_messages(history)
        items: list[TResponseInputItem] = []
        for message in history:
            if getattr(message, "subagent_run_id", None) is not None:
                continue  # a subagent's work: the outer model saw only its tool's result
            if isinstance(message, ToolMessage) and message.tool_call_id in hosted_call_ids:
                logger.debug("Not replaying the result of hosted call %s.", message.tool_call_id)
                continue
            for item in self._message_handlers[message.role](message):
                if not merge_reasoning_part(items, item):
                    items.append(item)
        return enforce_pairing(items, ReplayLinks.of(_replay_metadata(history)))

    def _accept(self, message: Any) -> Any | None:
        """The message ready for dispatch, or ``None`` (logged) when it cannot be translated."""
        role = discriminator(message, "role")
        if not isinstance(role, str) or role not in self._message_handlers:
            logger.warning("Skipping a message with unknown role %r.", role)
            return None
        try:
            return _coerce_message(message)
        except ValueError:
            logger.warning("Skipping a malformed %r message.", role, exc_info=True)
            return None

    @staticmethod
    def _hosted_call_ids(messages: Iterable[Any]) -> set[str]:
        """Ids of hosted tool calls made by the assistant messages of a conversation."""
        return {
            call.id
            for message in messages
            if isinstance(message, AssistantMessage)
            for call in message.tool_calls or []
            if is_hosted_call_name(call.function.name)
        }

    # --- messages ------------------------------------------------------------------------------

    @staticmethod
    def _text_message(role: str, content: str) -> list[TResponseInputItem]:
        if not content:
            logger.debug("Skipping an empty %s message.", role)
            return []
        return [cast(EasyInputMessageParam, {"role": role, "content": content})]

    def translate_system_message(self, message: SystemMessage) -> list[TResponseInputItem]:
        """A system message: ``{"role": "system", "content": ...}``; its id is not sent."""
        return self._text_message("system", message.content)

    def translate_developer_message(self, message: DeveloperMessage) -> list[TResponseInputItem]:
        """A developer message: ``{"role": "developer", "content": ...}``."""
        return self._text_message("developer", message.content)

    def translate_user_message(self, message: UserMessage) -> list[TResponseInputItem]:
        """A user message: text as is, parts through the ``translate_*_part`` methods.

        A message none of whose parts can be sent is skipped whole.
        """
        if isinstance(message.content, str):
            return self._text_message("user", message.content)
        parts = self.translate_content(message.content)
        if not parts:
            logger.info("Skipping user message %s: none of its parts can be sent.", message.id)
            return []
        return [cast(EasyInputMessageParam, {"role": "user", "content": parts})]

    def translate_assistant_message(self, message: AssistantMessage) -> list[TResponseInputItem]:
        """An assistant message: its text (when not empty), then one item per tool call.

        With replay metadata the text is the provider's ``message`` item (id, ``phase``) and
        calls keep their item ids; hosted calls come back as the provider item their
        ``encrypted_value`` holds (without one they are not replayed). Calls keep their id as
        ``call_id``.
        """
        layout = read_replay(message.metadata)
        items: list[TResponseInputItem] = carried_items(layout, "lead")
        if message.content:
            items.append(assistant_item(message.content, layout))
        items += carried_items(layout, "trail")
        for call in message.tool_calls or []:
            items += self.translate_tool_call(call)
        return items

    def translate_tool_call(self, call: ToolCall) -> list[TResponseInputItem]:
        """One tool call of an assistant message, with the items its metadata carries."""
        layout = read_replay(call.metadata)
        item: TResponseInputItem | None
        if is_hosted_call_name(call.function.name):
            item = cast(Any, read_hosted_artefact(call.encrypted_value, call.function.name))
            if item is None:
                logger.debug("Not replaying hosted call %s (%s).", call.id, call.function.name)
        else:
            item = self._function_call(call, layout.get("id"))
        middle = [item] if item is not None else []
        return [*carried_items(layout, "lead"), *middle, *carried_items(layout, "trail")]

    @staticmethod
    def _function_call(call: ToolCall, item_id: str | None = None) -> ResponseFunctionToolCallParam:
        item: ResponseFunctionToolCallParam = {
            "type": "function_call",
            "call_id": call.id,
            "name": call.function.name,
            "arguments": call.function.arguments,
        }
        if item_id is not None:
            item["id"] = item_id
        return item

    def translate_tool_message(self, message: ToolMessage) -> list[TResponseInputItem]:
        """A tool result: a ``function_call_output`` whose ``call_id`` is the message's
        ``tool_call_id``."""
        output: FunctionCallOutput = {
            "type": "function_call_output",
            "call_id": message.tool_call_id,
            "output": cast(Any, self.translate_tool_output(message)),
        }
        return [output]

    def translate_tool_output(self, message: ToolMessage) -> ToolOutput:
        """The output of a tool message: text, or a content list when it holds media.

        Text-only part lists are joined into one string. A result this package showed with
        media (marked parts, or the JSON text of Responses items a client older than 1.0 was
        given) goes back as the very items the model saw. When nothing usable is left and the
        message has an ``error``, the error text is the output.
        """
        output: ToolOutput
        if isinstance(message.content, str):
            output = structured_text(message.content) or message.content
        else:
            output = exact_output(message.content) or self._tool_output_parts(message.content)
        if not output and message.error:
            return message.error
        return output

    def _tool_output_parts(self, content: Sequence[Any]) -> ToolOutput:
        parts: list[InputContent] = []
        for part in self.translate_content(content):
            if part["type"] in _TOOL_OUTPUT_CONTENT_TYPES:
                parts.append(part)
            else:
                logger.debug("Dropping a %s part from a tool result.", part["type"])
        if all(part["type"] == "input_text" for part in parts):
            return "\n".join(cast(str, part.get("text", "")) for part in parts)
        return parts

    def translate_reasoning_message(self, message: ReasoningMessage) -> list[TResponseInputItem]:
        """A reasoning message this package produced: one part of a provider reasoning item.

        Consecutive parts of one item are merged back into that item, with its encrypted
        content; a reasoning message without replay metadata cannot restore anything and is
        not sent.
        """
        layout = read_replay(message.metadata)
        item = reasoning_part_item(message.content, message.encrypted_value, layout)
        if item is None:
            logger.debug("Not replaying reasoning %s: it has no replay metadata.", message.id)
            return []
        return [*carried_items(layout, "lead"), item, *carried_items(layout, "trail")]

    def translate_activity_message(self, message: ActivityMessage) -> list[TResponseInputItem]:
        """Activity messages are application progress, not conversation: never sent."""
        logger.debug("Dropping activity message %s (%s).", message.id, message.activity_type)
        return []

    # --- tools and context ---------------------------------------------------------------------

    def translate_tools(self, tools: Iterable[Tool]) -> list[FunctionTool]:
        """Proxies for the client's tools. A repeated name keeps its first definition."""
        proxies: list[FunctionTool] = []
        seen: set[str] = set()
        for tool in tools:
            if tool.name in seen:
                logger.warning("Client tool %r is declared twice; keeping the first.", tool.name)
                continue
            proxy = self.translate_tool(tool)
            if proxy is not None:
                seen.add(tool.name)
                proxies.append(proxy)
        return proxies

    def translate_tool(self, tool: Tool) -> FunctionTool | None:
        """One client tool as a proxy with its name, description and JSON Schema.

        A tool without a name, or named like a hosted call type (whose history would not be
        replayed), is skipped.
        """
        if not tool.name:
            logger.warning("Skipping a client tool without a name.")
            return None
        if is_hosted_call_name(tool.name):
            logger.warning("Skipping client tool %r: the name is a hosted call type.", tool.name)
            return None
        return create_client_tool(tool.name, tool.description, tool.parameters)

    def translate_context(self, items: Iterable[Context] | None) -> str:
        """Render AG-UI context for a prompt: a header line, then ``description: value`` per
        item. Empty string when there is no context."""
        lines = [f"{item.description}: {item.value}" for item in items or []]
        if not lines:
            return ""
        return "\n".join([CONTEXT_HEADER, *lines])


def _warn_unmatched_tool_messages(history: Sequence[Any]) -> None:
    """Log each tool message whose ``tool_call_id`` names no call of the history."""
    call_ids = {
        call.id
        for message in history
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
    }
    for message in history:
        if isinstance(message, ToolMessage) and message.tool_call_id not in call_ids:
            logger.warning(
                "Tool message %s answers tool call %r, which no assistant message made.",
                message.id,
                message.tool_call_id,
            )
