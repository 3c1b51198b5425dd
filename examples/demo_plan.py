"""What the offline demo model says, decided from the conversation alone.

The demo model has no language understanding. It reads the last user message, the tool calls
made since that message and their outputs (:mod:`demo_conversation`), and picks one of three
moves:

* call a tool whose name (or, failing that, two words of its description) matches words of
  the user's message that no earlier call answered, each tool at most once per user message,
  with arguments filled from the user's words, earlier tool outputs and the tool's JSON schema
  (:mod:`demo_arguments`). A tool whose description names another tool works on that tool's
  output: the named tool is called first, and its output fills the arguments. A
  ``tool_choice`` of ``"required"`` or of a tool's name forces a call;
* once tools have answered, and no other tool fits, reply in text that says what they returned
  (:mod:`demo_replies`);
* otherwise reply in text: a greeting, what the page shared, the recipe or document the agent
  works on, or an honest word that the demo model cannot answer and what its tools can do.

Replies are written in the language the instructions ask for, when :mod:`demo_phrases` has it.
Everything here is a pure function of its inputs, so the same conversation always gets the
same plan.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from demo_arguments import fill, fill_arguments, schema_defs
from demo_conversation import (
    Conversation,
    PastCall,
    ToolSpec,
    overlap,
    read_conversation,
    related,
    significant_words,
)
from demo_phrases import phrases_for, reply_language
from demo_replies import plain_reply, reply_from_outputs

__all__ = [
    "Conversation",
    "PastCall",
    "Plan",
    "PlannedCall",
    "ToolSpec",
    "fill_arguments",
    "plan_turn",
    "read_conversation",
    "related",
    "significant_words",
]

_HANDOFF_PREFIX = "transfer_to_"


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the model will make: tool name and JSON arguments."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Plan:
    """One model turn: a reasoning summary, then either text or tool calls."""

    reasoning: str
    text: str | None = None
    calls: tuple[PlannedCall, ...] = field(default_factory=tuple)


# --- Deciding ---------------------------------------------------------------------------------


def _fit(tool: ToolSpec, words: Sequence[str]) -> tuple[int, int] | None:
    """How well a tool fits the user's words, or None if it does not.

    A tool fits when a word of its name matches, or two words of its description do (one
    shared word such as "order" is not enough to call ``issue_refund``). Tools named earlier
    in the message come first ("research X and write Y"), then better matches, where name
    matches count double.
    """
    claimed = _claimed(tool, words)
    if not claimed:
        return None
    in_name = overlap(words, tool.name)
    first = min(words.index(word) for word in claimed)
    return first, -(2 * len(in_name) + len(overlap(words, tool.description)))


def _claimed(tool: ToolSpec, words: Sequence[str]) -> set[str]:
    """The words that make ``tool`` fit: those matching its name, else two or more of its
    description's; empty when it does not fit."""
    in_name = overlap(words, tool.name)
    in_description = overlap(words, tool.description)
    return in_name or (in_description if len(in_description) >= 2 else set())


def _named_tools(tool: ToolSpec, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The other tools ``tool``'s description names: it works on what they return."""
    names = set(re.findall(r"\w+", tool.description))
    return [other for other in tools if other.name != tool.name and other.name in names]


@dataclass(frozen=True)
class _Choice:
    """The tool to call next, and why."""

    tool: ToolSpec
    """The tool to call."""
    why: str
    """The reason, as the start of the reasoning summary."""


def _pick_tool(conversation: Conversation, tools: Sequence[ToolSpec]) -> _Choice | None:
    """The next tool to call for this user message, each tool at most once.

    First the best-fitting tool (first listed on a tie), on words that no tool called earlier
    in the turn already answered; but a tool named in its description comes before it. Then
    any tool whose description names a tool that has answered: it works on that output.
    """
    called = {call.name for call in conversation.calls}
    handed_off = any(name.startswith(_HANDOFF_PREFIX) for name in called)
    waiting = _waiting(conversation)
    open_tools = [
        tool
        for tool in tools
        if tool.name not in called
        and tool.name not in waiting
        and not (handed_off and tool.name.startswith(_HANDOFF_PREFIX))
    ]
    words = significant_words(conversation.user_text)
    for tool in tools:
        if tool.name in called:
            words = [word for word in words if word not in _claimed(tool, words)]
    best: tuple[tuple[int, int], ToolSpec] | None = None
    for tool in open_tools:
        fit = _fit(tool, words)
        if fit is not None and (best is None or fit < best[0]):
            best = (fit, tool)
    if best is not None:
        matched = ", ".join(sorted(_claimed(best[1], words)))
        return _prerequisite(best[1], open_tools, tools) or _Choice(
            best[1], f"The request mentions {matched}. The tool {best[1].name} covers that"
        )
    answered = {call.name for call in conversation.answered}
    for tool in open_tools:
        sources = [other.name for other in _named_tools(tool, tools) if other.name in answered]
        if sources:
            return _Choice(tool, f"{tool.name} works on what {sources[0]} returned")
    return None


def _prerequisite(
    tool: ToolSpec, open_tools: Sequence[ToolSpec], tools: Sequence[ToolSpec]
) -> _Choice | None:
    """The not yet called tool that ``tool`` works on (followed back), if there is one."""
    seen = {tool.name}
    found: ToolSpec | None = None
    current = tool
    while True:
        before = [t for t in _named_tools(current, tools) if t in open_tools and t.name not in seen]
        if not before:
            break
        current = found = before[0]
        seen.add(current.name)
    if found is None:
        return None
    return _Choice(found, f"{tool.name} works on what {found.name} returns, so {found.name} first")


_AFTER = re.compile(r"\bAfter (\w+), always call (\w+)")


def _waiting(conversation: Conversation) -> set[str]:
    """Tools the instructions say to call "After <tool>", while that tool has not answered."""
    answered = {call.name for call in conversation.answered}
    return {
        then for first, then in _AFTER.findall(conversation.instructions) if first not in answered
    }


def _instructed(conversation: Conversation, tools: Sequence[ToolSpec]) -> _Choice | None:
    """The tool the instructions say to "Always call … when the user asks to <verbs>" (when
    the user's message has one of the verbs), or "After <tool>, always call …" (once that tool
    has answered), if it has not been called yet for this user message."""
    called = {call.name for call in conversation.calls}
    words = set(re.findall(r"[a-z]+", conversation.user_text.lower()))
    rules = re.findall(
        r"\bAlways call (\w+)[^.]*?\bwhen the user asks to ([\w ,]+)", conversation.instructions
    )
    for name, verbs in rules:
        asked = set(re.findall(r"[a-z]+", verbs.lower())) - {"or", "and"}
        tool = next((t for t in tools if t.name == name and t.name not in called), None)
        if tool is not None and asked & words:
            return _Choice(tool, f"My instructions say to call {name} for this")
    answered = {call.name for call in conversation.answered}
    for first, then in _AFTER.findall(conversation.instructions):
        tool = next((t for t in tools if t.name == then and t.name not in called), None)
        if tool is not None and first in answered:
            return _Choice(tool, f"My instructions say to call {then} after {first}")
    return None


def _forced(tool_choice: str | None, tools: Sequence[ToolSpec]) -> _Choice | None:
    """The tool a ``tool_choice`` of a tool's name or ``"required"`` makes the model call."""
    named = [tool for tool in tools if tool.name == tool_choice]
    if named:
        return _Choice(named[0], f"I must call {tool_choice}")
    if tool_choice == "required" and tools:
        return _Choice(tools[0], "I must call a tool, and none fits better than this one")
    return None


def _source(tool: ToolSpec, tools: Sequence[ToolSpec], conversation: Conversation) -> Conversation:
    """The conversation to fill ``tool``'s arguments from: when its description names a tool
    that answered, that output stands in for the user's message."""
    outputs = {call.name: call.output for call in conversation.answered}
    for other in _named_tools(tool, tools):
        if outputs.get(other.name):
            return replace(conversation, user_text=str(outputs[other.name]))
    return conversation


def plan_turn(
    conversation: Conversation,
    tools: Sequence[ToolSpec],
    *,
    output_schema: Mapping[str, Any] | None = None,
    tool_choice: str | None = None,
) -> Plan:
    """Decide the next model turn for ``conversation``.

    Args:
        conversation: What :func:`read_conversation` found in the request.
        tools: The tools the model may call (empty when tool choice is ``none``).
        output_schema: JSON schema the final answer must follow, if the agent has one.
        tool_choice: ``"required"`` or a tool's name when the request forces a tool call.
    """
    choice = _pick_tool(conversation, tools) or _instructed(conversation, tools)
    if choice is None or (
        tool_choice not in (None, "required") and choice.tool.name != tool_choice
    ):
        choice = _forced(tool_choice, tools) or choice
    if choice is not None:
        tool = choice.tool
        values = fill_arguments(tool.schema, _source(tool, tools, conversation))
        arguments = json.dumps(values, ensure_ascii=False)
        reasoning = f"{choice.why}, so I will call it."
        return Plan(reasoning=reasoning, calls=(PlannedCall(tool.name, arguments),))
    if output_schema is not None:
        value = fill(output_schema, "output", conversation, schema_defs(output_schema), None)
        reasoning = "The answer must follow a JSON schema, so I will fill it in."
        return Plan(reasoning=reasoning, text=json.dumps(value, ensure_ascii=False))
    phrases = phrases_for(reply_language(conversation.instructions))
    answered = [call for call in conversation.answered if not call.name.startswith(_HANDOFF_PREFIX)]
    if answered:
        names = ", ".join(dict.fromkeys(call.name for call in answered))
        reasoning = f"I have what {names} returned, so I can answer from it."
        return Plan(
            reasoning=reasoning, text=reply_from_outputs(conversation, answered, tools, phrases)
        )
    reasoning = "No tool fits this request, so I will answer directly."
    return Plan(reasoning=reasoning, text=plain_reply(conversation, tools, phrases))
