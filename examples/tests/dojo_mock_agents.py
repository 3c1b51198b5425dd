"""A mock of the OpenAI API answering as the AG-UI Dojo's fixtures for this integration do
(``e2e/openai-agents-fixtures.ts`` in the Dojo): predicates on the request's tools, its system
text (the agent's instructions) and the text of its messages (tool results included), each with
a fixed reply. A request no predicate matches fails the test, as it gets no useful answer from
the Dojo's mock.

- the subagents page: each specialist is recognised by its instructions ("You research a
  topic", "You turn bullet-point facts", "You review a draft", when the team's tools are not
  offered), and the manager (the three tools offered) calls the next specialist until the
  critic's words are in the conversation, then writes the article. The replies here are this
  mock's own; what the manager's fixtures key on ("AI research facts", "AI evolved from
  symbolic systems", "Improve the opening") is the Dojo's;
- the approval page: ``issue_refund`` with ``{"order_id": "ORD-1001"}`` when the messages name
  that order;
- after a tool result, where no fixture answers, the generic reply of the Dojo's other fixtures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from support.scripted import Call, RecordedCall, Text, Turn

TEAM = ("research_topic", "write_prose", "critique_draft")
RESEARCH = "AI research facts: the field was named in 1956; learning from data came to lead it."
DRAFT = "AI evolved from symbolic systems to machines that learn, over seven decades."
REVIEW = "Improve the opening, and tie the decades together."
ARTICLE = "Over seventy years, AI moved from hand-written rules to systems that learn."
TOOL_RESULT_REPLY = "Done! I've completed that for you."

SPECIALISTS = {
    "You research a topic": RESEARCH,
    "You turn bullet-point facts": DRAFT,
    "You review a draft": REVIEW,
}
"""The system text each specialist's fixture keys on, and its reply."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def messages_text(call: RecordedCall) -> str:
    """The text of every message of the request, tool results included."""
    parts = []
    for item in call.input:
        if item.get("type") == "function_call_output":
            parts.append(_text(item.get("output")))
        elif "content" in item:
            parts.append(_text(item.get("content")))
    return "\n".join(parts)


def _manager(text: str) -> Turn:
    """The manager's fixtures, keyed on what the specialists' replies say."""
    if "AI research facts" not in text:
        return Turn([Call("research_topic", {"input": "history of AI"})])
    if "AI evolved from symbolic systems" not in text:
        return Turn([Call("write_prose", {"input": "AI research facts"})])
    if "Improve the opening" not in text:
        return Turn([Call("critique_draft", {"input": DRAFT})])
    return Turn([Text(ARTICLE)])


def answer(call: RecordedCall) -> Turn:
    """The fixture that matches ``call``; a failed test when none does."""
    system, text = call.instructions or "", messages_text(call)
    team = all(name in call.tool_names for name in TEAM)
    if team:
        return _manager(text)
    for key, reply in SPECIALISTS.items():
        if key in system:
            return Turn([Text(reply)])
    if "issue_refund" in call.tool_names and "ORD-1001" in text:
        if call.input and call.input[-1].get("type") == "function_call_output":
            return Turn([Text(TOOL_RESULT_REPLY)])
        return Turn([Call("issue_refund", {"order_id": "ORD-1001"})])
    raise AssertionError(f"no Dojo fixture matches: system {system[:80]!r}, text {text[-80:]!r}")
