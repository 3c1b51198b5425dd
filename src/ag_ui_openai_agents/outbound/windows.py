"""Internal: window and id bookkeeping of the outbound engine (every id and open/closed flag).

Invariants (what the rest of the engine relies on, and what the stream guarantees)
---------------------------------------------------------------------------------
Ids
  * A real SDK id always wins. An id is *real* when it is a non-empty string other than the
    SDK's placeholder (``FAKE_RESPONSES_ID``). Otherwise :meth:`WindowBook.new_id` makes one
    (``msg_…``, ``call_…``, ``rs_…``) exactly once, when the window is created, and the window
    keeps it: every START/CONTENT/END of the window and its MESSAGES_SNAPSHOT entry use it.
  * A tool call's id is its ``call_id``; a hosted call without one uses its item id, then a
    generated ``call_…``. Its result message id is ``f"{tool_call_id}-result"``.
  * A reasoning item's phase id is its item id (or ``rs_…``); its parts are ``phase_id``,
    ``f"{phase_id}-1"``, ``f"{phase_id}-2"``, … in order.
  * Correlation keys of the Responses stream (``output_index``, placeholder item ids) are used
    only inside this module's maps; they are never copied onto an AG-UI event.

Windows
  * Raw Responses events name their item by ``output_index`` within the current response.
    ``by_index`` maps that index to the window of the current response only; a new
    ``response.created`` starts a new map. Arguments that arrive before their
    ``output_item.added`` wait in ``early_args`` and are flushed when the window is created,
    so a call is STARTed once, never twice.
  * Committed run items (which arrive after ``response.completed``) find their window by real
    id (``by_item_id``, ``calls``); with placeholder ids, by order among the uncommitted windows
    of the same kind (``unmatched``). A committed item with no window streams its whole window.
  * A window is opened at most once and closed at most once. ``finish`` closes every window
    still open, so RUN_FINISHED never sees one open.

Assistant messages (``parent_message_id``)
  * ``group`` is the assistant message that the next tool call joins. A text window starts a new
    group named by the text's id; a tool call with no group starts one named ``msg_…``. A
    reasoning item, a tool result or an agent change ends the group: the client has pushed a
    non-assistant message (or a new step) by then, so a later call must not join the old one.
  * ``produced`` lists this run's messages in the order the client creates them: groups,
    reasoning windows and tool results. MESSAGES_SNAPSHOT is built from it. A subagent started
    by one of this engine's calls adds a :class:`SubagentSlot` there: its messages sit after the
    call's assistant message and before the call's result.

Replay
  * Every window has a ``replay`` record (``replay.py``): its real provider item id and, when its
    output index was seen, which reasoning item it directly followed. ``recorder`` links them
    by output index within the current response; it is the only place that does.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui_openai_agents.outbound.media import ResultPart
from ag_ui_openai_agents.outbound.replay import ReplayInfo, ReplayRecorder
from ag_ui_openai_agents.protocol import new_id, real_id

WindowKind = Literal["text", "tool", "reasoning"]


@dataclass(eq=False, slots=True)
class TextWindow:
    """One assistant message item: one TEXT_MESSAGE window, opened on its first non-empty text."""

    message_id: str
    """The AG-UI message id (the item id, or a generated ``msg_…``)."""
    chunks: list[str] = field(default_factory=list)
    """Text and refusal deltas streamed so far, in order; once the item is done, their join
    as the one piece (the item's own text when they spell it)."""
    opened: bool = False
    """TEXT_MESSAGE_START was emitted."""
    closed: bool = False
    """TEXT_MESSAGE_END was emitted (or the window can no longer open)."""
    committed: bool = False
    """The SDK committed the item (``message_output_created``)."""
    replay: ReplayInfo = field(default_factory=ReplayInfo)
    """What replaying the item to the provider needs (see ``replay.py``)."""


@dataclass(eq=False, slots=True)
class ToolCallWindow:
    """One function, handoff or hosted call: TOOL_CALL_START → ARGS* → END, then maybe a result."""

    tool_call_id: str
    """The AG-UI tool call id (``call_id``, else the item id, else ``call_…``)."""
    name: str
    """The tool name; for hosted calls, the Responses item type."""
    parent_message_id: str = ""
    """The assistant message the call belongs to (set when the call starts)."""
    hosted: bool = False
    """The call is run by the provider or an SDK executor, not by a function tool."""
    args: list[str] = field(default_factory=list)
    """Argument chunks streamed so far, in order (joined when the snapshot needs them)."""
    started: bool = False
    """TOOL_CALL_START was emitted."""
    ended: bool = False
    """TOOL_CALL_END was emitted."""
    committed: bool = False
    """The SDK committed the call (``tool_called`` / ``handoff_requested``)."""
    answered: bool = False
    """A TOOL_CALL_RESULT was emitted for it."""
    client_owned: bool = False
    """The client answers the call (a frontend tool); it stays pending."""
    replay: ReplayInfo = field(default_factory=ReplayInfo)
    """What replaying the item to the provider needs (see ``replay.py``)."""
    activity: Activity | None = None
    """The hosted call's activity message (1.0 clients; see ``activities.py``)."""


@dataclass(eq=False, slots=True)
class Activity:
    """The activity message of a hosted call: ACTIVITY_SNAPSHOT, then ACTIVITY_DELTA patches."""

    message_id: str
    """``f"{tool_call_id}-activity"``."""
    activity_type: str
    """``web_search``, ``file_search``, ``code_interpreter``, ``image_generation``, ``mcp_call``."""
    content: dict[str, Any]
    """The activity's latest content (streamed code may not be sent yet)."""
    shown: dict[str, Any] = field(default_factory=dict)
    """The content the client holds; MESSAGES_SNAPSHOT restates it."""
    code_waiting: int = 0
    """Characters of streamed code not sent yet."""


@dataclass(eq=False, slots=True)
class ReasoningPart:
    """One reasoning summary or text part: one REASONING_MESSAGE window."""

    message_id: str
    """``phase_id`` for the first part, ``f"{phase_id}-{n}"`` for the following ones."""
    chunks: list[str] = field(default_factory=list)
    """Deltas streamed so far, in order (joined when the snapshot needs them)."""
    kind: str = "summary"
    """Which kind of Responses part it streams: ``summary`` or ``text``."""
    index: int = 0
    """The part's index among the item's parts of that kind."""
    closed: bool = False
    """REASONING_MESSAGE_END was emitted."""


@dataclass(eq=False, slots=True)
class ReasoningWindow:
    """One reasoning item: REASONING_START, its parts, an encrypted value, REASONING_END."""

    phase_id: str
    """The AG-UI id of the reasoning phase (the item id, or a generated ``rs_…``)."""
    parts: list[ReasoningPart] = field(default_factory=list)
    """Parts in stream order; the first carries the encrypted value in the snapshot."""
    span_open: bool = False
    """REASONING_START was emitted and REASONING_END not yet."""
    closed: bool = False
    """The reasoning item is finished; nothing more streams for it."""
    committed: bool = False
    """The SDK committed the item (``reasoning_item_created``)."""
    encrypted_value: str | None = None
    """The item's encrypted content, once known."""
    replay: ReplayInfo = field(default_factory=ReplayInfo)
    """What replaying the item to the provider needs (see ``replay.py``)."""

    @property
    def open_part(self) -> ReasoningPart | None:
        """The part currently streaming, if any."""
        if self.parts and not self.parts[-1].closed:
            return self.parts[-1]
        return None


@dataclass(eq=False, slots=True)
class AssistantGroup:
    """One assistant message as the client builds it: optional text, then tool calls."""

    message_id: str
    """The assistant message id: its text's id, or a generated ``msg_…``."""
    text: TextWindow | None = None
    """The text that opened the message, if any."""
    calls: list[ToolCallWindow] = field(default_factory=list)
    """The tool calls that joined the message, in order."""


@dataclass(eq=False, slots=True)
class ToolResult:
    """A TOOL_CALL_RESULT sent in this run: a tool message in the snapshot."""

    message_id: str
    """``f"{tool_call_id}-result"``."""
    tool_call_id: str
    """The call it answers."""
    content: str | list[ResultPart]
    """The result as streamed: its text, or content parts (media, for a 1.0 client)."""


@dataclass(eq=False, slots=True)
class SubagentSlot:
    """Where a subagent's messages go in the snapshot: the messages its own engine produced."""

    subagent_run_id: str
    """The subagent run the messages are attributed to."""
    produced: list[Produced]
    """The subagent engine's ``WindowBook.produced`` (the same list, growing as it streams)."""


Produced = AssistantGroup | ReasoningWindow | ToolResult | SubagentSlot | Activity
Window = TextWindow | ToolCallWindow | ReasoningWindow


class WindowBook:
    """Every id map and open window of one run (see the module docstring for the invariants)."""

    __slots__ = (
        "by_index",
        "by_item_id",
        "calls",
        "early_args",
        "group",
        "produced",
        "recorder",
        "unmatched",
    )

    def __init__(self) -> None:
        self.by_index: dict[int, Window] = {}
        self.early_args: dict[int, list[str]] = {}
        self.by_item_id: dict[str, Window] = {}
        self.calls: dict[str, ToolCallWindow] = {}
        self.unmatched: dict[WindowKind, deque[Window]] = {
            "text": deque(),
            "tool": deque(),
            "reasoning": deque(),
        }
        self.group: AssistantGroup | None = None
        self.produced: list[Produced] = []
        self.recorder = ReplayRecorder()

    @staticmethod
    def new_id(prefix: str) -> str:
        """Make a fresh id such as ``msg_3f…``."""
        return new_id(prefix)

    def resolve_id(self, sdk_id: object, prefix: str) -> str:
        """Keep a real SDK id, or make a fresh one."""
        return real_id(sdk_id) or self.new_id(prefix)

    def new_response(self) -> None:
        """Start the index maps of a new model response (``response.created``)."""
        self.by_index = {}
        self.early_args = {}
        for queue in self.unmatched.values():
            queue.clear()
        self.recorder.new_response()

    def add(self, window: Window, kind: WindowKind, index: int | None, item_id: object) -> None:
        """Register a new window under its output index and real item id."""
        if index is not None:
            self.by_index[index] = window
        key = real_id(item_id)
        if key is not None:
            self.by_item_id[key] = window
        window.replay.item_id = key
        window.replay.reasoning = isinstance(window, ReasoningWindow)
        self.recorder.place(window.replay, index)
        if isinstance(window, ToolCallWindow):
            self.calls[window.tool_call_id] = window
        self.unmatched[kind].append(window)
        if isinstance(window, ReasoningWindow):
            self.end_group()
            self.produced.append(window)

    def at(self, index: int) -> Window | None:
        """The window of the current response at ``output_index``."""
        return self.by_index.get(index)

    def take_early_args(self, index: int) -> list[str]:
        """Arguments that arrived before the window at ``index`` existed."""
        return self.early_args.pop(index, [])

    def match(self, kind: WindowKind, item_id: object) -> Window | None:
        """Find the window of a committed run item: by real id, else the oldest unmatched one."""
        queue = self.unmatched[kind]
        key = real_id(item_id)
        if key is not None:
            window = self.by_item_id.get(key)
            if window is not None and window in queue:
                queue.remove(window)
            return window
        return queue.popleft() if queue else None

    def forget(self, kind: WindowKind, window: Window) -> None:
        """Drop a window from the unmatched queue once a committed item has claimed it."""
        queue = self.unmatched[kind]
        if window in queue:
            queue.remove(window)

    # Assistant message grouping -------------------------------------------------------------

    def start_text_group(self, text: TextWindow) -> None:
        """A text message opened: it is the assistant message later calls join."""
        self.group = AssistantGroup(text.message_id, text=text)
        self.produced.append(self.group)

    def join_group(self, call: ToolCallWindow) -> str:
        """Attach a starting call to the current assistant message (or a new one); return its id."""
        if self.group is None:
            self.group = AssistantGroup(self.new_id("msg"))
            self.produced.append(self.group)
        self.group.calls.append(call)
        return self.group.message_id

    def end_group(self) -> None:
        """The client pushed a non-assistant message (or the agent changed): start afresh."""
        self.group = None

    def add_result(self, result: ToolResult) -> None:
        """Record a tool result message; it ends the current assistant message."""
        self.end_group()
        self.produced.append(result)

    def add_activity(self, activity: Activity) -> None:
        """Record an activity message; like a result, it ends the current assistant message
        (the client has pushed it after the message)."""
        self.end_group()
        self.produced.append(activity)

    def open_windows(self) -> list[Window]:
        """Every window still open, in the order it was created."""
        found: dict[int, Window] = {}
        for produced in self.produced:
            if isinstance(produced, AssistantGroup):
                if produced.text is not None and produced.text.opened and not produced.text.closed:
                    found[id(produced.text)] = produced.text
                for call in produced.calls:
                    if call.started and not call.ended:
                        found[id(call)] = call
            elif isinstance(produced, ReasoningWindow) and not produced.closed:
                found[id(produced)] = produced
        return list(found.values())
