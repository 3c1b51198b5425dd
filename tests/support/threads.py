"""Threads kept on the server, driven as a client drives them: the scripted model, the gated
tool, and :class:`Conversation`, which sends requests to an ``OpenAIAgentsAgent`` with a store
and keeps what the client was shown.

The model decides each turn from its input alone (so any process or store answers alike):
for the latest user message ``Refund order <n>`` it calls ``issue_refund`` (call id
``call_refund_<k>``, ``k`` = user messages so far) and answers the call's output once it has
it; any other user message is echoed as ``Echo <k>: <text> (<u> user messages)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    StateSnapshotEvent,
    TextMessageContentEvent,
    Tool,
    UserMessage,
)
from agents import Agent, RunConfig, function_tool
from agents.tool_context import ToolContext

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import ThreadStore
from support.invariants import check_stream
from support.runs import RunEvents
from support.scripted import (
    Call,
    RecordedCall,
    ScriptedProvider,
    ScriptedResponsesModel,
    Text,
    Turn,
    TurnUsage,
)

PROTOCOLS = ("1.0", None)
"""Both request kinds: protocolVersion "1.0", and absent (CopilotKit's runtime)."""

TOOL_NAME = "issue_refund"


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def decide_turn(call: RecordedCall) -> Turn:
    """The model's turn, from its input alone."""
    users = [i for i, item in enumerate(call.input) if item.get("role") == "user"]
    if not users:
        return Turn([Text("Nothing to answer.")])
    turn = len(users)
    latest = call.input[users[-1] :]
    text = _text(call.input[users[-1]])
    match = re.search(r"[Rr]efund order (\w+)", text)
    if match is None:
        return Turn([Text(f"Echo {turn}: {text} ({turn} user messages)", id=f"msg_echo_{turn}")])
    call_id = f"call_refund_{turn}"
    outputs = [
        item
        for item in latest
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id
    ]
    if outputs:
        answer = f"Result of {call_id}: {outputs[-1].get('output')}"
        return Turn([Text(answer, id=f"msg_answer_{turn}")], usage=TurnUsage(9, 4))
    refund = Call(TOOL_NAME, {"order_id": match.group(1)}, call_id=call_id, id=f"fc_refund_{turn}")
    return Turn([refund], usage=TurnUsage(12, 3))


@dataclass
class Shop:
    """An agent with the gated refund tool, its model, and every run of the tool."""

    agent: Agent[Any]
    model: ScriptedResponsesModel
    config: RunConfig
    refunds: list[tuple[str, str]] = field(default_factory=list)
    """(call id, order id) of every run of ``issue_refund``."""

    def wrapper(self, store: ThreadStore | None, **options: Any) -> OpenAIAgentsAgent:
        if store is not None:
            options.setdefault("thread_key", by_thread_id)
        return OpenAIAgentsAgent(self.agent, run_config=self.config, threads=store, **options)


def by_thread_id(thread_id: str, request: Any) -> str:
    """The tests' ``thread_key``: one user, so the thread id alone (within the agent's name)."""
    return thread_id


def shop() -> Shop:
    refunds: list[tuple[str, str]] = []

    @function_tool(name_override=TOOL_NAME, needs_approval=True)
    def issue_refund(ctx: ToolContext[Any], order_id: str) -> str:
        """Refund an order."""
        refunds.append((ctx.tool_call_id, order_id))
        return f"Refund issued for {order_id}"

    model = ScriptedResponsesModel(decide_turn, model_name="scripted-threads")
    agent = Agent(name="shop", instructions="Help.", tools=[issue_refund])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    return Shop(agent, model, config, refunds)


@dataclass
class Run(RunEvents):
    """One request and the events that answered it (checked)."""

    request: RunAgentInput
    events: list[BaseEvent]
    error: BaseException | None = None

    @property
    def states(self) -> list[Any]:
        return [e.snapshot for e in self.events if isinstance(e, StateSnapshotEvent)]

    @property
    def text(self) -> str:
        return "".join(e.delta for e in self.events if isinstance(e, TextMessageContentEvent))


def user(text: str, id: str) -> UserMessage:
    return UserMessage(id=id, content=text)


@dataclass
class Conversation:
    """One client of one thread: what it was shown, and how it builds its next request."""

    wrapper: OpenAIAgentsAgent
    protocol_version: str | None
    thread_id: str = "thread-9f2c1e4b7a6d4c0e8b1f"
    shown: list[Message] = field(default_factory=list)
    state: Any = field(default_factory=dict)
    runs: int = 0

    def request(
        self,
        messages: Sequence[Message],
        *,
        resume: Sequence[ResumeEntry] = (),
        state: Any = None,
        tools: Sequence[Tool] = (),
    ) -> RunAgentInput:
        self.runs += 1
        return RunAgentInput(
            thread_id=self.thread_id,
            run_id=f"run-{self.runs}",
            protocol_version=self.protocol_version,
            messages=list(messages),
            tools=list(tools),
            context=[],
            state=self.state if state is None else state,
            forwarded_props={},
            resume=list(resume) or None,
        )

    async def send(
        self, run_input: RunAgentInput, *, history: Sequence[Message] | None = None
    ) -> Run:
        """Send one request; check its stream against the ``history`` the server runs on
        (default: what the client was shown, then the request's messages it was not shown)."""
        if history is None:
            shown = {m.id for m in self.shown}
            history = [*self.shown, *(m for m in run_input.messages if m.id not in shown)]
        events: list[BaseEvent] = []
        error: BaseException | None = None
        try:
            async for event in self.wrapper.run_streamed(run_input):
                events.append(event)
        except Exception as exc:
            error = exc
        trusted = run_input.model_copy(update={"messages": list(history)})
        check_stream(events, run_input=trusted, pre_1_0=run_input.protocol_version is None)
        run = Run(run_input, events, error)
        snapshots = [e for e in events if isinstance(e, MessagesSnapshotEvent)]
        if snapshots:
            self.shown = list(snapshots[-1].messages)
        if run.states:
            self.state = run.states[-1]
        return run

    async def say(self, text: str, id: str, *, resend: bool = False) -> Run:
        """A new user message: alone, or after everything shown (``resend``)."""
        message = user(text, id)
        sent = [*self.shown, message] if resend else [message]
        return await self.send(self.request(sent))
