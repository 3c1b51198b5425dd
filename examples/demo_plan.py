"""What the offline demo model says, decided from the conversation alone.

The demo model has no language understanding. It reads the last user message, the tool calls
made since that message and their outputs, and picks one of three moves:

* call a tool whose name (or, failing that, two words of its description) matches the
  user's message, each tool at most once per user message, with arguments filled from the
  user's words, earlier tool outputs and the tool's JSON schema;
* once tools have answered, and no other tool fits, reply in text built from their outputs;
* otherwise reply in text that quotes the request and the start of the instructions.

Everything here is a pure function of its inputs, so the same conversation always gets the
same plan.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

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

_STOPWORD_TEXT = """
    about after again all also and any are ask back been before being but can could did does
    doing done for from get give had has have her here him his how into its just let like make
    many may more most much need not now off one only our out please should show some such
    tell than that the their them then there these they this those too use using very want was
    way were what when where which while who why will with would you your yours
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_PLACE_FIELDS = frozenset({"city", "location", "place", "destination", "country", "region", "town"})
_WHOLE_FIELDS = frozenset(
    {"input", "query", "question", "request", "prompt", "message", "text", "task", "instructions"}
)
_ID_FIELDS = frozenset({"id", "number", "code", "sku", "reference", "ref"})
_LEADS = ("First:", "Next:", "Then:", "After that:")
_FINAL_LEAD = "Finally:"
_HANDOFF_PREFIX = "transfer_to_"
_CONTEXT_HEADER = "Context from the application:"


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: its name, description and JSON schema of its arguments."""

    name: str
    description: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class PastCall:
    """A tool call made since the last user message, with its output once it has one."""

    name: str
    call_id: str
    output: str | None = None


@dataclass(frozen=True)
class Conversation:
    """The parts of a model request the demo model reasons about."""

    user_text: str
    instructions: str
    calls: tuple[PastCall, ...] = ()

    @property
    def answered(self) -> tuple[PastCall, ...]:
        """Calls since the last user message that have an output."""
        return tuple(call for call in self.calls if call.output is not None)


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


def significant_words(text: str) -> list[str]:
    """Lower-case words of ``text`` worth matching: no stopwords, no words under three letters."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return [word for word in words if len(word) >= 3 and word not in _STOPWORDS]


def related(first: str, second: str) -> bool:
    """Whether two words match: equal, or one a prefix of the other (``write``/``writer``)."""
    if first == second:
        return True
    shorter, longer = sorted((first, second), key=len)
    return len(shorter) >= 4 and longer.startswith(shorter)


def _overlap(words: Iterable[str], text: str) -> set[str]:
    """The words of ``words`` related to some significant word of ``text``."""
    targets = significant_words(text)
    return {word for word in words if any(related(word, target) for target in targets)}


# --- Reading the request ---------------------------------------------------------------------


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    return dict(dump(exclude_unset=True)) if callable(dump) else {}


def _text_of(content: Any) -> str:
    """The text of a message content or tool output: a string or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [_as_dict(part) for part in content]
        return " ".join(str(part["text"]) for part in parts if isinstance(part.get("text"), str))
    return "" if content is None else str(content)


def read_conversation(instructions: str | None, items: str | Sequence[Any]) -> Conversation:
    """Find the last user message and the tool calls and outputs that followed it."""
    if isinstance(items, str):
        return Conversation(user_text=items, instructions=instructions or "")
    user_text = ""
    calls: dict[str, PastCall] = {}
    for raw in items:
        item = _as_dict(raw)
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            user_text, calls = _text_of(item.get("content")), {}
        elif kind == "function_call":
            call_id = str(item.get("call_id", ""))
            calls[call_id] = PastCall(name=str(item.get("name", "")), call_id=call_id)
        elif kind == "function_call_output" and str(item.get("call_id")) in calls:
            call = calls[str(item["call_id"])]
            calls[call.call_id] = PastCall(call.name, call.call_id, _text_of(item.get("output")))
    return Conversation(user_text, instructions or "", tuple(calls.values()))


# --- Deciding ---------------------------------------------------------------------------------


def _fit(tool: ToolSpec, words: Sequence[str]) -> tuple[int, int] | None:
    """How well a tool fits the user's words, or None if it does not.

    A tool fits when a word of its name matches, or two words of its description do (one
    shared word such as "order" is not enough to call ``issue_refund``). Tools named earlier
    in the message come first ("research X and write Y"), then better matches, where name
    matches count double.
    """
    in_name = _overlap(words, tool.name)
    in_description = _overlap(words, tool.description)
    if not in_name and len(in_description) < 2:
        return None
    first = min(words.index(word) for word in in_name or in_description)
    return first, -(2 * len(in_name) + len(in_description))


def _pick_tool(conversation: Conversation, tools: Sequence[ToolSpec]) -> ToolSpec | None:
    """The best-fitting tool not yet called for this user message (first listed on a tie)."""
    called = {call.name for call in conversation.calls}
    handed_off = any(name.startswith(_HANDOFF_PREFIX) for name in called)
    words = significant_words(conversation.user_text)
    best: tuple[tuple[int, int], ToolSpec] | None = None
    for tool in tools:
        if tool.name in called or (handed_off and tool.name.startswith(_HANDOFF_PREFIX)):
            continue
        fit = _fit(tool, words)
        if fit is not None and (best is None or fit < best[0]):
            best = (fit, tool)
    return best[1] if best else None


def plan_turn(
    conversation: Conversation,
    tools: Sequence[ToolSpec],
    *,
    output_schema: Mapping[str, Any] | None = None,
) -> Plan:
    """Decide the next model turn for ``conversation``.

    Args:
        conversation: What :func:`read_conversation` found in the request.
        tools: The tools the model may call (empty when tool choice is ``none``).
        output_schema: JSON schema the final answer must follow, if the agent has one.
    """
    tool = _pick_tool(conversation, tools)
    if tool is not None:
        matched = sorted(
            _overlap(significant_words(conversation.user_text), tool.name + " " + tool.description)
        )
        arguments = json.dumps(fill_arguments(tool.schema, conversation), ensure_ascii=False)
        reasoning = (
            f"The request mentions {', '.join(matched)}. The tool {tool.name} covers that, "
            "so I will call it."
        )
        return Plan(reasoning=reasoning, calls=(PlannedCall(tool.name, arguments),))
    if output_schema is not None:
        value = _fill(output_schema, "output", conversation, _defs(output_schema), None)
        reasoning = "The answer must follow a JSON schema, so I will fill it in."
        return Plan(reasoning=reasoning, text=json.dumps(value, ensure_ascii=False))
    answered = [call for call in conversation.answered if not call.name.startswith(_HANDOFF_PREFIX)]
    if answered:
        names = ", ".join(dict.fromkeys(call.name for call in answered))
        reasoning = f"I have what {names} returned, so I can answer from it."
        return Plan(reasoning=reasoning, text=_answer_from_outputs(answered))
    reasoning = "No tool fits this request, so I will answer directly."
    return Plan(reasoning=reasoning, text=_plain_answer(conversation))


# --- Writing text -----------------------------------------------------------------------------


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _answer_from_outputs(calls: Sequence[PastCall]) -> str:
    """One line per tool output: the latest in full (up to a point), earlier ones in brief."""
    lines = ["Here is what I found:"]
    for position, call in enumerate(calls):
        output = (call.output or "").strip()
        if output == DEFAULT_APPROVAL_REJECTION_MESSAGE:
            lines.append(f"- {call.name} did not run: {output}")
        else:
            limit = 600 if position == len(calls) - 1 else 120
            lines.append(f"- {call.name}: {_shorten(output, limit)}")
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    head = text.split(_CONTEXT_HEADER)[0].strip()
    match = re.match(r"(.+?[.!?])(\s|$)", head, flags=re.DOTALL)
    return _shorten(match.group(1) if match else head, 200)


def _context_lines(instructions: str) -> list[str]:
    if _CONTEXT_HEADER not in instructions:
        return []
    tail = instructions.split(_CONTEXT_HEADER, 1)[1]
    return [line.strip() for line in tail.splitlines() if line.strip()]


def _plain_answer(conversation: Conversation) -> str:
    parts = [f"You said: “{_shorten(conversation.user_text, 200)}”."]
    sentence = _first_sentence(conversation.instructions)
    if sentence:
        parts.append(f"My instructions start with: “{sentence}”")
    context = _context_lines(conversation.instructions)
    if context:
        parts.append("The page shared: " + "; ".join(context) + ".")
    parts.append(
        "(This reply comes from the offline demo model; set OPENAI_API_KEY for a real one.)"
    )
    return " ".join(parts)


# --- Filling arguments from a JSON schema -----------------------------------------------------


def fill_arguments(schema: Mapping[str, Any], conversation: Conversation) -> Any:
    """Arguments for a tool with ``schema``, chosen from the conversation."""
    return _fill(schema, "arguments", conversation, _defs(schema), None)


def _defs(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    defs = schema.get("$defs", schema.get("definitions", {}))
    return defs if isinstance(defs, Mapping) else {}


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs:
        return _resolve(defs[ref.rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [
            o for o in schema.get(key, []) if isinstance(o, Mapping) and o.get("type") != "null"
        ]
        if options:
            return _resolve(options[0], defs)
    return schema


def _type_of(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    return str(kind)


def _fill(
    schema: Mapping[str, Any],
    name: str,
    conversation: Conversation,
    defs: Mapping[str, Any],
    slot: tuple[int, int] | None,
) -> Any:
    """A value for ``schema``; ``slot`` is (position, count) inside an array, else None."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _pick_enum(schema["enum"], conversation.user_text)
    kind = _type_of(schema)
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: _fill(sub, key, conversation, defs, slot) for key, sub in properties.items()}
    if kind == "array":
        count = _item_count(schema)
        items = schema.get("items", {"type": "string"})
        return [_fill(items, name, conversation, defs, (i, count)) for i in range(count)]
    if kind in ("integer", "number"):
        return _pick_number(schema, conversation.user_text, kind, slot)
    if kind == "boolean":
        negated = re.search(r"\b(no|not|don't|never|reject|deny)\b", conversation.user_text.lower())
        return negated is None
    if kind == "null":
        return None
    return _pick_string(name, conversation, slot)


def _item_count(schema: Mapping[str, Any]) -> int:
    """Three items, within ``minItems``/``maxItems``."""
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", max(low, 3)))
    return max(low, min(3, high))


def _pick_enum(values: Sequence[Any], text: str) -> Any:
    """The first enum value the user's words mention, else the first value."""
    words = significant_words(text)
    for value in values:
        if _overlap(words, str(value)):
            return value
    return values[0]


def _pick_number(
    schema: Mapping[str, Any], text: str, kind: str, slot: tuple[int, int] | None
) -> int | float:
    """The first number in the user's words, else the minimum (or 1); counts up in arrays."""
    match = re.search(r"(?<![\w-])-?\d+(?:\.\d+)?(?![\w-])", text)
    value = float(match.group()) if match else float(schema.get("minimum", 1))
    if slot is not None and not match:
        value += slot[0]
    if "maximum" in schema:
        value = min(value, float(schema["maximum"]))
    if "minimum" in schema:
        value = max(value, float(schema["minimum"]))
    return int(value) if kind == "integer" else value


def _pick_string(name: str, conversation: Conversation, slot: tuple[int, int] | None) -> str:
    """A string for ``name``: a place, the whole request, an earlier output, or the topic."""
    field_words = set(re.findall(r"[a-z]+", name.lower()))
    text = conversation.user_text
    if field_words & _PLACE_FIELDS:
        value = _place(text)
    elif field_words & _ID_FIELDS and _identifier(text):
        value = _identifier(text) or ""
    elif field_words & _WHOLE_FIELDS and slot is None:
        value = " ".join(text.split())
    else:
        value = _from_outputs(conversation) or _topic(text)
    if slot is None:
        return value
    position, count = slot
    lead = _FINAL_LEAD if position == count - 1 and count > 1 else _LEADS[position % len(_LEADS)]
    return f"{lead} {value}"


def _place(text: str) -> str:
    """The place named after "in", "for", "at"… ("weather in Paris" gives "Paris")."""
    capitalised = re.search(
        r"\b(?:in|for|at|to|near|of)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)", text
    )
    if capitalised:
        return capitalised.group(1)
    lower = re.search(r"\b(?:in|at|near)\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})", text.lower())
    if lower:
        return lower.group(1).title()
    return _topic(text)


def _identifier(text: str) -> str | None:
    """The word that looks most like an identifier: letters with digits ("A-17") before bare
    numbers ("4521")."""
    tokens = [t.strip("#") for t in re.findall(r"#?\w+(?:-\w+)*", text) if re.search(r"\d", t)]
    mixed = [token for token in tokens if re.search(r"[A-Za-z]", token)]
    found = mixed or tokens
    return found[0] if found else None


def _topic(text: str) -> str:
    """What the request is about: the words after "about", else after "to"/"for"/"on"/"of"."""
    flat = " ".join(text.split()).rstrip("?.! ")
    for pattern in (r"\b(?:about|regarding)\s+(.+)$", r"\b(?:to|for|on|of)\s+(.+)$"):
        match = re.search(pattern, flat, flags=re.IGNORECASE)
        if match:
            return match.group(1)
    return flat or "the request"


def _candidates(output: str) -> list[str]:
    """The values an output offers: items of a JSON list or object, else its lines."""
    try:
        data = json.loads(output)
    except ValueError:
        data = None
    if isinstance(data, list):
        return [str(item) for item in data if isinstance(item, (str, int, float))]
    if isinstance(data, dict):
        return [str(value) for value in data.values() if isinstance(value, (str, int, float))]
    lines = (re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in output.splitlines())
    return [line for line in lines if line]


def _from_outputs(conversation: Conversation) -> str | None:
    """The value from an earlier tool output that shares the most words with the request."""
    words = significant_words(conversation.user_text)
    best: tuple[int, str] | None = None
    for call in conversation.answered:
        for candidate in _candidates(call.output or ""):
            score = len(_overlap(words, candidate))
            if score > 0 and (best is None or score > best[0]):
                best = (score, candidate)
    return best[1] if best else None
