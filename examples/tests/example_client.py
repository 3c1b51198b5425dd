"""Drive the example server like an AG-UI client: post a run, read and check its events, and
build the next request from the last MESSAGES_SNAPSHOT."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

import httpx
import jsonpatch
from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    Context,
    CustomEvent,
    EventType,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    Tool,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from support.invariants import check_stream, parse_sse


class Chat:
    """One conversation with one example route; each turn starts from the previous snapshot."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        path: str,
        *,
        tools: Sequence[Tool] = (),
        context: Sequence[Context] = (),
        thread_id: str = "thread-1",
        protocol_version: str | None = PROTOCOL_VERSION,
        state: Any = None,
        forwarded_props: Any = None,
    ) -> None:
        self.client = client
        self.forwarded_props = forwarded_props
        self.path = path
        self.tools = list(tools)
        self.context = list(context)
        self.thread_id = thread_id
        self.protocol_version = protocol_version
        self.history: list[Message] = []
        self.turns = 0
        self.state: Any = {} if state is None else state
        """The shared state, as a client keeps it: sent with each request, replaced by each
        STATE_SNAPSHOT, patched by each STATE_DELTA."""

    def request(self, *new: Message, resume: Sequence[ResumeEntry] | None = None) -> RunAgentInput:
        """The next request: the history so far plus ``new`` messages."""
        return RunAgentInput(
            thread_id=self.thread_id,
            # A new run id for every run, as clients make them.
            run_id=f"run-{self.turns + 1}-{uuid.uuid4().hex[:8]}",
            messages=[*self.history, *new],
            tools=self.tools,
            context=self.context,
            state=self.state,
            forwarded_props=self.forwarded_props,
            resume=list(resume) if resume else None,
            protocol_version=self.protocol_version,
        )

    async def send(
        self, *new: Message, resume: Sequence[ResumeEntry] | None = None, check: bool = True
    ) -> Run:
        """Post one turn, check its stream (unless told not to), keep its snapshot as history."""
        run_input = self.request(*new, resume=resume)
        run = await post_run(self.client, self.path, run_input, check=check)
        self.turns += 1
        self.history = list(run.snapshot.messages)
        self.state = run.state_after(self.state)
        return run

    async def say(self, text: str) -> Run:
        """Send a user message."""
        return await self.send(UserMessage(id=f"user-{self.turns + 1}", role="user", content=text))

    async def say_message(self, message: UserMessage) -> Run:
        """Send a user message built by the test (content parts, say)."""
        return await self.send(message)


class Run:
    """The checked events of one run, with accessors for what the tests look at."""

    def __init__(self, run_input: RunAgentInput, events: list[BaseEvent]) -> None:
        self.input = run_input
        self.events = events

    @property
    def types(self) -> list[EventType]:
        return [event.type for event in self.events]

    @property
    def finished(self) -> RunFinishedEvent:
        last = self.events[-1]
        assert isinstance(last, RunFinishedEvent), f"run ended with {last.type}"
        return last

    @property
    def snapshot(self) -> MessagesSnapshotEvent:
        snapshots = [e for e in self.events if isinstance(e, MessagesSnapshotEvent)]
        assert len(snapshots) == 1
        return snapshots[0]

    @property
    def state_snapshots(self) -> list[Any]:
        """Every STATE_SNAPSHOT of the run, in order."""
        return [e.snapshot for e in self.events if isinstance(e, StateSnapshotEvent)]

    @property
    def state_kinds(self) -> list[EventType]:
        """The state events of the run (STATE_SNAPSHOT or STATE_DELTA), in order."""
        return [e.type for e in self.events if isinstance(e, (StateSnapshotEvent, StateDeltaEvent))]

    def states(self, before: Any) -> list[Any]:
        """The state a client holds after each state event of the run, starting from
        ``before``: a STATE_SNAPSHOT replaces it, a STATE_DELTA is applied to it as an RFC 6902
        JSON Patch (a patch that does not apply fails the test)."""
        held, seen = before, []
        for event in self.events:
            if isinstance(event, StateSnapshotEvent):
                held = event.snapshot
            elif isinstance(event, StateDeltaEvent):
                patch = [op.model_dump(mode="json", by_alias=True) for op in event.delta]
                held = jsonpatch.apply_patch(held, patch, in_place=False)
            else:
                continue
            seen.append(held)
        return seen

    def state_after(self, before: Any) -> Any:
        """The state a client holds after this run."""
        states = self.states(before)
        return states[-1] if states else before

    @property
    def text(self) -> str:
        return "".join(e.delta for e in self.events if isinstance(e, TextMessageContentEvent))

    @property
    def tool_calls(self) -> list[tuple[str, str, Any]]:
        """``(call id, tool name, parsed arguments)`` of every call the agent itself streamed
        (not its subagents'), in order."""
        args: dict[str, str] = {}
        for event in self.events:
            if isinstance(event, ToolCallArgsEvent):
                args[event.tool_call_id] = args.get(event.tool_call_id, "") + event.delta
        starts = [
            e
            for e in self.events
            if isinstance(e, ToolCallStartEvent) and e.subagent_run_id is None
        ]
        return [
            (s.tool_call_id, s.tool_call_name, json.loads(args[s.tool_call_id])) for s in starts
        ]

    @property
    def results(self) -> dict[str, str]:
        """Tool results by call id."""
        return {
            e.tool_call_id: e.content for e in self.events if isinstance(e, ToolCallResultEvent)
        }

    def custom(self, name: str) -> CustomEvent:
        found = [e for e in self.events if isinstance(e, CustomEvent) and e.name == name]
        assert len(found) == 1, f"expected one CUSTOM {name!r}"
        return found[0]

    def assistant_calls(self) -> list[str]:
        """Ids of the tool calls the snapshot's assistant messages hold (the agent's own, not
        those of its subagents)."""
        return [
            call.id
            for message in self.snapshot.messages
            if isinstance(message, AssistantMessage) and message.subagent_run_id is None
            for call in message.tool_calls or []
        ]


async def post_run(
    client: httpx.AsyncClient, path: str, run_input: RunAgentInput, *, check: bool = True
) -> Run:
    """POST ``run_input`` as an AG-UI client does and check the SSE stream that comes back."""
    body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    response = await client.post(path, json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    if check:
        check_stream(events, run_input=run_input, pre_1_0=run_input.protocol_version is None)
    assert_standard_encoding(response.text, events)
    return Run(run_input, events)


def assert_standard_encoding(body: str, events: Sequence[BaseEvent]) -> None:
    """Every event on the wire is byte for byte what ``EventEncoder`` writes for it, after the
    ``id:`` line a run kept on the server gives each of its events (``<runId>.<seq>``, the
    sequence strictly increasing)."""
    lines, seqs = [], []
    for block in body.split("\n\n"):
        if block.startswith("id: "):
            event_id, _, block = block.partition("\n")
            seqs.append(int(event_id.rsplit(".", 1)[1]))
        if block.startswith("data: "):
            lines.append(block + "\n\n")
    standard = EventEncoder()
    assert lines == [standard.encode(event) for event in events]
    assert seqs == sorted(set(seqs))


# Client-side tools the frontend examples declare, shaped like the AG-UI Dojo's.
TASK_STEPS = Tool(
    name="generate_task_steps",
    description="Show the user a list of steps to review before carrying out a task.",
    parameters={
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string"},
                        "status": {"type": "string", "enum": ["enabled", "disabled"]},
                    },
                    "required": ["description", "status"],
                },
            }
        },
        "required": ["steps"],
    },
)
HAIKU = Tool(
    name="generate_haiku",
    description="Display a haiku card: Japanese lines, their English translation, a picture.",
    parameters={
        "type": "object",
        "properties": {
            "japanese": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 3,
                "maxItems": 3,
            },
            "english": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
            "image_name": {
                "type": "string",
                "enum": ["mountain.jpg", "autumn_leaves.jpg", "sea.jpg"],
            },
        },
        "required": ["japanese", "english", "image_name"],
    },
)
