"""An offline, deterministic model that streams like the OpenAI Responses API.

With no ``OPENAI_API_KEY`` the example server runs every agent on :class:`DemoModel` through
``RunConfig(model_provider=DemoModelProvider(), tracing_disabled=True)``, so agents reached by
handoff or used as tools run offline too. What the model says is decided by :mod:`demo_plan`;
this module turns that plan into the events a real Responses stream carries:

``response.created`` → ``response.in_progress`` → per output item ``output_item.added``, its
deltas (reasoning summary, text, or function-call arguments, in small chunks) and
``output_item.done`` → ``response.completed`` with the full output and token usage.

The same request always produces the same events, ids included, but for the ids of the tool
calls it makes: like the Responses API's, each is new (so two threads that say the same thing
never share a call id, and a call id names one call).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from agents import (
    FunctionTool,
    Handoff,
    ImageGenerationTool,
    ModelResponse,
    ModelSettings,
    RunConfig,
    Usage,
)
from agents.agent_output import AgentOutputSchemaBase
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model, ModelProvider, ModelTracing
from agents.tool import Tool
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseImageGenCallCompletedEvent,
    ResponseImageGenCallGeneratingEvent,
    ResponseImageGenCallInProgressEvent,
    ResponseImageGenCallPartialImageEvent,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryPartDoneEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_output_item import ImageGenerationCall
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_reasoning_item import Summary

from demo_plan import Conversation, Plan, ToolSpec, plan_turn, read_conversation
from pictures import sunset_png

__all__ = ["DEFAULT_DEMO_MODEL", "DemoModel", "DemoModelProvider", "offline_run_config"]

DEFAULT_DEMO_MODEL = "offline-demo"
_WORDS_PER_CHUNK = 3
_ARGUMENT_CHUNK = 16
_ENCRYPTED_INCLUDE = "reasoning.encrypted_content"
_PICTURE_WORDS = frozenset({"image", "picture", "photo", "illustration"})
_PARTIAL_BLOCKS = (32, 8)
"""The partial images of a generated picture: coarse squares, then finer ones."""


class DemoModel(Model):
    """A :class:`~agents.models.interface.Model` that needs no network and no API key."""

    def __init__(self, model_name: str = DEFAULT_DEMO_MODEL) -> None:
        self.model_name = model_name

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> ModelResponse:
        """Answer in one piece: the output items the stream would have carried."""
        turn = _Turn(
            self.model_name,
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
        )
        return ModelResponse(
            output=list(turn.output), usage=turn.usage(), response_id=turn.response_id
        )

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream the answer event by event, as the Responses API does."""
        turn = _Turn(
            self.model_name,
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
        )
        for event in turn.events():
            yield event


class DemoModelProvider(ModelProvider):
    """Gives every agent a :class:`DemoModel`, whatever model name it asks for."""

    def get_model(self, model_name: str | None) -> Model:
        """Return a demo model that reports ``model_name`` in its responses."""
        return DemoModel(model_name or DEFAULT_DEMO_MODEL)


def offline_run_config() -> RunConfig:
    """A ``RunConfig`` that runs every agent of a run on the demo model, with tracing off."""
    return RunConfig(model_provider=DemoModelProvider(), tracing_disabled=True)


# --- One model turn ---------------------------------------------------------------------------


def _tool_specs(tools: Sequence[Tool], handoffs: Sequence[Handoff]) -> list[ToolSpec]:
    """The function tools (client tool proxies included) and handoffs the model may call."""
    specs = [
        ToolSpec(tool.name, tool.description or "", tool.params_json_schema)
        for tool in tools
        if isinstance(tool, FunctionTool)
    ]
    specs += [
        ToolSpec(h.tool_name, h.tool_description or "", h.input_json_schema) for h in handoffs
    ]
    return specs


def _plain(value: Any) -> Any:
    """``value`` as JSON-ready data, for hashing and token counting."""
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump(exclude_unset=True) if callable(dump) else value


def _tokens(text: str) -> int:
    """A rough token count: one per four characters."""
    return math.ceil(len(text) / 4)


def _wants_picture(conversation: Conversation, tools: Sequence[Tool]) -> bool:
    """Whether the agent has the image generation tool and the user asks for a picture."""
    words = set(re.findall(r"[a-z]+", conversation.user_text.lower()))
    has_tool = any(isinstance(tool, ImageGenerationTool) for tool in tools)
    return has_tool and not conversation.calls and bool(words & _PICTURE_WORDS)


def _new_call_id() -> str:
    """A call id no other call has, as the Responses API gives each call."""
    return f"call_{uuid.uuid4().hex[:24]}"


def _chunks(text: str, words: int = _WORDS_PER_CHUNK) -> Iterator[str]:
    """``text`` in pieces of a few words each, whitespace kept."""
    pieces = re.findall(r"\S+\s*|\s+", text)
    for start in range(0, len(pieces), words):
        yield "".join(pieces[start : start + words])


class _Turn:
    """The plan for one request, and its rendering as output items and stream events."""

    def __init__(
        self,
        model_name: str,
        instructions: str | None,
        items: str | list[TResponseInputItem],
        settings: ModelSettings,
        tools: Sequence[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: Sequence[Handoff],
    ) -> None:
        self.model_name = model_name
        specs = [] if settings.tool_choice == "none" else _tool_specs(tools, handoffs)
        schema = (
            None
            if output_schema is None or output_schema.is_plain_text()
            else output_schema.json_schema()
        )
        choice = settings.tool_choice if isinstance(settings.tool_choice, str) else None
        conversation = read_conversation(instructions, items)
        self.plan: Plan = plan_turn(
            conversation,
            specs,
            output_schema=schema,
            tool_choice=None if choice in ("auto", "none") else choice,
        )
        self.picture = not self.plan.calls and _wants_picture(conversation, tools)
        if self.picture:
            self.plan = Plan(
                reasoning="The request asks for a picture, so I will generate one.",
                text="Here is the picture I generated: a sunset over the sea.",
            )
        request = json.dumps(
            [instructions, _plain(items), [spec.name for spec in specs]],
            sort_keys=True,
            default=str,
            ensure_ascii=False,
        )
        self.input_tokens = _tokens(request)
        self.key = hashlib.sha256(request.encode()).hexdigest()[:16]
        self.response_id = f"resp_{self.key}"
        self.encrypted = _ENCRYPTED_INCLUDE in (settings.response_include or [])
        self.output: tuple[TResponseOutputItem, ...] = tuple(self._output_items())

    def _output_items(self) -> Iterator[TResponseOutputItem]:
        yield ResponseReasoningItem(
            id=f"rs_{self.key}",
            type="reasoning",
            summary=[Summary(type="summary_text", text=self.plan.reasoning)],
            encrypted_content=f"demo-encrypted-{self.key}" if self.encrypted else None,
        )
        if self.picture:
            yield ImageGenerationCall(
                id=f"ig_{self.key}",
                type="image_generation_call",
                status="completed",
                result=base64.b64encode(sunset_png()).decode(),
                output_format="png",
                revised_prompt="A sunset over a calm sea, in flat colours.",
                size="1024x1024",
            )
        if self.plan.text is not None:
            yield ResponseOutputMessage(
                id=f"msg_{self.key}",
                type="message",
                role="assistant",
                status="completed",
                content=[
                    ResponseOutputText(
                        type="output_text", text=self.plan.text, annotations=[], logprobs=[]
                    )
                ],
            )
        for index, call in enumerate(self.plan.calls):
            yield ResponseFunctionToolCall(
                id=f"fc_{self.key}_{index}",
                call_id=_new_call_id(),
                type="function_call",
                name=call.name,
                arguments=call.arguments,
                status="completed",
            )

    def response_usage(self) -> ResponseUsage:
        """Token usage of this turn, as ``response.completed`` reports it."""
        reasoning = _tokens(self.plan.reasoning)
        arguments = sum(_tokens(call.arguments) for call in self.plan.calls)
        output = reasoning + _tokens(self.plan.text or "") + arguments
        return ResponseUsage.model_validate(
            {
                "input_tokens": self.input_tokens,
                "output_tokens": output,
                "total_tokens": self.input_tokens + output,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": reasoning},
            }
        )

    def usage(self) -> Usage:
        """Token usage of this turn, as the SDK records it."""
        reported = self.response_usage()
        return Usage(
            requests=1,
            input_tokens=reported.input_tokens,
            output_tokens=reported.output_tokens,
            total_tokens=reported.total_tokens,
            input_tokens_details=reported.input_tokens_details,
            output_tokens_details=reported.output_tokens_details,
        )

    def _response(self, status: str, output: list[TResponseOutputItem]) -> Response:
        return Response.model_validate(
            {
                "id": self.response_id,
                "object": "response",
                "created_at": 0,
                "model": self.model_name,
                "status": status,
                "output": output,
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "usage": self.response_usage() if status == "completed" else None,
            }
        )

    def events(self) -> Iterator[TResponseStreamEvent]:
        """The whole stream, numbered in order."""
        raw: list[Any] = [
            ResponseCreatedEvent(
                type="response.created",
                response=self._response("in_progress", []),
                sequence_number=0,
            ),
            ResponseInProgressEvent(
                type="response.in_progress",
                response=self._response("in_progress", []),
                sequence_number=0,
            ),
        ]
        for index, item in enumerate(self.output):
            raw.extend(_item_events(index, item))
        raw.append(
            ResponseCompletedEvent(
                type="response.completed",
                response=self._response("completed", list(self.output)),
                sequence_number=0,
            )
        )
        for number, event in enumerate(raw):
            yield event.model_copy(update={"sequence_number": number})


# --- Events of one output item ----------------------------------------------------------------


def _item_events(index: int, item: TResponseOutputItem) -> Iterator[Any]:
    yield ResponseOutputItemAddedEvent(
        type="response.output_item.added",
        item=_in_progress(item),
        output_index=index,
        sequence_number=0,
    )
    if isinstance(item, ResponseReasoningItem):
        yield from _reasoning_events(index, item)
    elif isinstance(item, ResponseOutputMessage):
        yield from _text_events(index, item)
    elif isinstance(item, ResponseFunctionToolCall):
        yield from _argument_events(index, item)
    elif isinstance(item, ImageGenerationCall):
        yield from _picture_events(index, item)
    yield ResponseOutputItemDoneEvent(
        type="response.output_item.done", item=item, output_index=index, sequence_number=0
    )


def _in_progress(item: TResponseOutputItem) -> TResponseOutputItem:
    """The item as ``output_item.added`` shows it: started, with nothing streamed yet."""
    if isinstance(item, ResponseReasoningItem):
        update: dict[str, Any] = {"summary": [], "encrypted_content": None, "status": "in_progress"}
    elif isinstance(item, ResponseOutputMessage):
        update = {"content": [], "status": "in_progress"}
    elif isinstance(item, ResponseFunctionToolCall):
        update = {"arguments": "", "status": "in_progress"}
    elif isinstance(item, ImageGenerationCall):
        update = {"result": None, "status": "in_progress", "revised_prompt": None}
    else:
        return item
    return item.model_copy(update=update)


def _reasoning_events(index: int, item: ResponseReasoningItem) -> Iterator[Any]:
    common: dict[str, Any] = {"item_id": item.id, "output_index": index, "sequence_number": 0}
    for part_index, part in enumerate(item.summary):
        slot = {**common, "summary_index": part_index}
        yield ResponseReasoningSummaryPartAddedEvent.model_validate(
            {
                **slot,
                "type": "response.reasoning_summary_part.added",
                "part": {"type": "summary_text", "text": ""},
            }
        )
        for piece in _chunks(part.text):
            yield ResponseReasoningSummaryTextDeltaEvent(
                **slot, type="response.reasoning_summary_text.delta", delta=piece
            )
        yield ResponseReasoningSummaryTextDoneEvent(
            **slot, type="response.reasoning_summary_text.done", text=part.text
        )
        yield ResponseReasoningSummaryPartDoneEvent.model_validate(
            {
                **slot,
                "type": "response.reasoning_summary_part.done",
                "part": {"type": "summary_text", "text": part.text},
            }
        )


def _text_events(index: int, item: ResponseOutputMessage) -> Iterator[Any]:
    common: dict[str, Any] = {"item_id": item.id, "output_index": index, "sequence_number": 0}
    for content_index, part in enumerate(item.content):
        if not isinstance(part, ResponseOutputText):
            continue
        slot = {**common, "content_index": content_index}
        empty = part.model_copy(update={"text": ""})
        yield ResponseContentPartAddedEvent(**slot, type="response.content_part.added", part=empty)
        for piece in _chunks(part.text):
            yield ResponseTextDeltaEvent(
                **slot, type="response.output_text.delta", delta=piece, logprobs=[]
            )
        yield ResponseTextDoneEvent(
            **slot, type="response.output_text.done", text=part.text, logprobs=[]
        )
        yield ResponseContentPartDoneEvent(**slot, type="response.content_part.done", part=part)


def _argument_events(index: int, item: ResponseFunctionToolCall) -> Iterator[Any]:
    common: dict[str, Any] = {
        "item_id": item.id or item.call_id,
        "output_index": index,
        "sequence_number": 0,
    }
    arguments = item.arguments
    for start in range(0, len(arguments), _ARGUMENT_CHUNK):
        delta = arguments[start : start + _ARGUMENT_CHUNK]
        yield ResponseFunctionCallArgumentsDeltaEvent(
            **common, type="response.function_call_arguments.delta", delta=delta
        )
    yield ResponseFunctionCallArgumentsDoneEvent.model_validate(
        {
            **common,
            "type": "response.function_call_arguments.done",
            "arguments": arguments,
            "name": item.name,
        }
    )


def _picture_events(index: int, item: ImageGenerationCall) -> Iterator[Any]:
    """A hosted image generation at work: in progress, generating, partial images, completed."""
    common: dict[str, Any] = {"item_id": item.id, "output_index": index, "sequence_number": 0}
    yield ResponseImageGenCallInProgressEvent(
        **common, type="response.image_generation_call.in_progress"
    )
    yield ResponseImageGenCallGeneratingEvent(
        **common, type="response.image_generation_call.generating"
    )
    for number, block in enumerate(_PARTIAL_BLOCKS):
        yield ResponseImageGenCallPartialImageEvent(
            **common,
            type="response.image_generation_call.partial_image",
            partial_image_b64=base64.b64encode(sunset_png(block=block)).decode(),
            partial_image_index=number,
            output_format="png",
        )
    yield ResponseImageGenCallCompletedEvent(
        **common, type="response.image_generation_call.completed"
    )
