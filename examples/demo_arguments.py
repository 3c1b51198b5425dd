"""How the offline demo model fills a tool's arguments: from the JSON schema, the user's words
and earlier tool outputs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from demo_conversation import Conversation, overlap, significant_words
from demo_documents import current_document, write_document
from demo_haiku import haiku_for, is_haiku
from demo_recipes import book_recipe, is_recipe
from demo_steps import plan_steps
from demo_surfaces import special_arguments

__all__ = ["fill", "fill_arguments", "schema_defs"]

_PLACE_FIELDS = frozenset({"city", "location", "place", "destination", "country", "region", "town"})
_WHOLE_FIELDS = frozenset(
    {"input", "query", "question", "request", "prompt", "message", "text", "task", "instructions"}
    | {"notes", "draft", "content", "body"}
)
_ID_FIELDS = frozenset({"id", "number", "code", "sku", "reference", "ref"})
_CSS_FIELDS = frozenset({"background", "color", "colour", "gradient"})
_COLOURS = (
    "red", "orange", "yellow", "green", "blue", "purple", "pink", "teal", "navy", "black",
    "white", "gray", "grey", "gold", "silver", "brown", "violet", "indigo", "coral", "crimson",
)  # fmt: skip
_GRADIENT = "linear-gradient(135deg, #667eea 0%, #764ba2 100%)"
_QUOTED_FIELDS = frozenset({"text", "content", "body", "draft"})
"""Fields that take the text a request gives after a colon ("Count the words in: ...")."""
_LEADS = ("First:", "Next:", "Then:", "After that:")
_FINAL_LEAD = "Finally:"
_COUNT = re.compile(r"\b(\d{1,2})\s+(?:steps|items|points|ideas|things|stages|tasks)\b", re.I)
_MAX_ITEMS = 10
_COUNT_TAIL = re.compile(r"\s+in\s+\d{1,2}\s+\w+$", re.I)


def fill_arguments(schema: Mapping[str, Any], conversation: Conversation) -> Any:
    """Arguments for a tool with ``schema``, chosen from the conversation."""
    return fill(schema, "arguments", conversation, schema_defs(schema), None)


def schema_defs(schema: Mapping[str, Any]) -> Mapping[str, Any]:
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


def fill(
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
        special = special_arguments(properties, conversation) if name == "arguments" else None
        if special is not None:
            return special
        if is_recipe(properties):
            return _fill_recipe(schema, conversation, defs, slot)
        if is_haiku(properties):
            return _fill_haiku(schema, conversation, defs)
        return {
            key: fill(sub, key, conversation, defs, slot)
            for key, sub in properties.items()
            if not _left_out(key, sub, schema, conversation)
        }
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        steps = _fill_steps(schema, _resolve(items, defs), conversation, defs)
        if steps is not None:
            return steps
        count = _item_count(schema, conversation.user_text)
        return [fill(items, name, conversation, defs, (i, count)) for i in range(count)]
    if kind in ("integer", "number"):
        return _pick_number(schema, conversation.user_text, kind, slot)
    if kind == "boolean":
        negated = re.search(r"\b(no|not|don't|never|reject|deny)\b", conversation.user_text.lower())
        return negated is None
    if kind == "null":
        return None
    return _pick_string(name, conversation, slot)


def _fill_recipe(
    schema: Mapping[str, Any],
    conversation: Conversation,
    defs: Mapping[str, Any],
    slot: tuple[int, int] | None,
) -> dict[str, Any]:
    """A recipe from the demo recipe book, with any choice the user named (a skill level,
    a preference) in place of the book's."""
    recipe = book_recipe(conversation.user_text, conversation.instructions)
    value: dict[str, Any] = {}
    for key, sub in schema.get("properties", {}).items():
        if _left_out(key, sub, schema, conversation):
            continue
        resolved = _resolve(sub, defs)
        if key in recipe and _allowed(resolved, recipe[key], defs):
            value[key] = _named_choice(resolved, conversation.user_text, defs) or recipe[key]
        else:
            value[key] = fill(sub, key, conversation, defs, slot)
    return value


def _fill_haiku(
    schema: Mapping[str, Any], conversation: Conversation, defs: Mapping[str, Any]
) -> dict[str, Any]:
    """A haiku from the demo's book, on the theme the user's words name; an image (or other
    choice) picked by that theme."""
    haiku = haiku_for(conversation.user_text)
    themed = replace(conversation, user_text=f"{conversation.user_text} {' '.join(haiku.theme)}")
    value: dict[str, Any] = {}
    for key, sub in schema.get("properties", {}).items():
        if key in ("japanese", "english"):
            value[key] = list(getattr(haiku, key))
        elif not _left_out(key, sub, schema, conversation):
            value[key] = fill(sub, key, themed, defs, None)
    return value


def _fill_steps(
    schema: Mapping[str, Any],
    items: Mapping[str, Any],
    conversation: Conversation,
    defs: Mapping[str, Any],
) -> list[dict[str, Any]] | None:
    """Steps that fit the user's goal, for an array of objects with a ``description`` (a
    plan); None for any other array. In gerund form when the schema or instructions ask."""
    properties = items.get("properties", {}) if _type_of(items) == "object" else {}
    if "description" not in properties:
        return None
    asked = _COUNT.search(conversation.user_text)
    count = min(int(asked.group(1)), _MAX_ITEMS) if asked else None
    low, high = int(schema.get("minItems", 1)), int(schema.get("maxItems", _MAX_ITEMS))
    gerund = "gerund" in f"{json.dumps(items)} {conversation.instructions}".lower()
    steps = plan_steps(conversation.user_text, count, gerund=gerund)
    steps = steps[: max(low, min(len(steps), high))]
    plan = []
    for index, step in enumerate(steps):
        value = {
            key: fill(sub, key, conversation, defs, (index, len(steps)))
            for key, sub in properties.items()
            if key != "description" and not _left_out(key, sub, items, conversation)
        }
        plan.append({"description": step, **value})
    return plan


def _choices(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> tuple[list[Any] | None, bool]:
    """The enum of a property (or of its items, for an array), and whether it is an array."""
    if _type_of(schema) == "array":
        items = _resolve(schema.get("items", {}), defs)
        return (items.get("enum") if isinstance(items.get("enum"), list) else None), True
    return (schema.get("enum") if isinstance(schema.get("enum"), list) else None), False


def _allowed(schema: Mapping[str, Any], value: Any, defs: Mapping[str, Any]) -> bool:
    """Whether the book's value is allowed by the property's enum, if it has one."""
    choices, many = _choices(schema, defs)
    if choices is None:
        return True
    values = value if many and isinstance(value, list) else [value]
    return all(item in choices for item in values)


def _named_choice(schema: Mapping[str, Any], text: str, defs: Mapping[str, Any]) -> Any:
    """The enum value(s) the user's words name, or None."""
    choices, many = _choices(schema, defs)
    if choices is None:
        return None
    words = significant_words(text)
    named = [choice for choice in choices if overlap(words, str(choice))]
    if not named:
        return None
    return named if many else named[0]


def _item_count(schema: Mapping[str, Any], text: str = "") -> int:
    """As many items as the user asked for ("in 5 steps"), else three, within
    ``minItems``/``maxItems``."""
    asked = _COUNT.search(text)
    wanted = min(int(asked.group(1)), _MAX_ITEMS) if asked else 3
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", max(low, wanted)))
    return max(low, min(wanted, high))


def _pick_enum(values: Sequence[Any], text: str) -> Any:
    """The first enum value the user's words mention, else the first value."""
    words = significant_words(text)
    for value in values:
        if overlap(words, str(value)):
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
    if name == "document" and slot is None:
        return write_document(text, current_document(conversation.instructions))
    if field_words & _CSS_FIELDS:
        value = _css_colour(text)
    elif field_words & _PLACE_FIELDS:
        value = _place(text)
    elif field_words & _ID_FIELDS and _identifier(text):
        value = _identifier(text) or ""
    elif field_words & _QUOTED_FIELDS and slot is None and _quoted(text):
        value = _quoted(text) or ""
    elif field_words & _WHOLE_FIELDS and slot is None:
        value = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())
    else:
        value = _from_outputs(conversation) or _topic(text)
    if slot is None:
        return value
    position, count = slot
    lead = _FINAL_LEAD if position == count - 1 and count > 1 else _LEADS[position % len(_LEADS)]
    return f"{lead} {value}"


def _css_colour(text: str) -> str:
    """A CSS background: a gradient of the colour the request names, else a purple one."""
    named = [c for c in _COLOURS if re.search(rf"\b{c}\b", text, re.IGNORECASE)]
    if not named:
        return _GRADIENT
    if len(named) == 1:
        return f"linear-gradient(135deg, {named[0]} 0%, white 100%)"
    return f"linear-gradient(135deg, {named[0]} 0%, {named[1]} 100%)"


def _quoted(text: str) -> str | None:
    """The text a request gives after a colon, if it gives one."""
    head, colon, tail = text.partition(":")
    return tail.strip() if colon and tail.strip() and len(head.split()) <= 8 else None


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


def _left_out(
    name: str, schema: Mapping[str, Any], parent: Mapping[str, Any], conversation: Conversation
) -> bool:
    """Whether to leave out an optional property: one with a default, which the request gives
    no explicit topic for ("… about X")."""
    required = parent.get("required", [])
    if name in required or "default" not in schema:
        return False
    return re.search(r"\b(?:about|regarding)\s+\S", conversation.user_text, re.IGNORECASE) is None


def _topic(text: str) -> str:
    """What the request is about: the words after "about", else after "to"/"for"/"on"/"of"."""
    flat = _COUNT_TAIL.sub("", " ".join(text.split()).rstrip("?.! "))
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
            score = len(overlap(words, candidate))
            if score > 0 and (best is None or score > best[0]):
                best = (score, candidate)
    return best[1] if best else None
