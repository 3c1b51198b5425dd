"""Internal: ``FastEventEncoder``, ``ag_ui``'s ``EventEncoder`` output, several times cheaper.

``EventEncoder.encode`` writes ``data: `` + ``event.model_dump_json(by_alias=True)`` + a blank
line. Pydantic's JSON serializer costs about 5 µs for a one-token TEXT_MESSAGE_CONTENT, more
than everything else the adapter does for that token. Most of a stream is events whose fields
are all strings (ids, names, deltas): for those, the JSON text is the keys in declared order
with each present value written as a JSON string, which the C string escaper of the standard
``json`` module does in a fraction of the time.

The fast encoders are generated at import, one per event class, from the class's own field
definitions: the wire key (``by_alias``), the declared order, which fields are left out when
they hold ``None`` (the rule of ``ag_ui``'s base model: optional with a ``None`` default), and
which values a field may be written as here (exact ``str``, ``int`` or ``bool`` values, and the
members of a ``Literal``). An event whose values fall outside that (a dict, a list, a model, a
float, a ``str`` subclass, an unset required field, extra fields, a lone surrogate, which
pydantic refuses to encode) is handed on (see below), and so is any class without a
generated encoder (subclasses included). Before a class's encoder is used, a probe event with
every scalar field set is encoded both ways; a class whose probe differs keeps the standard
path.

An event the generated encoder gives up on, and every class without one, is tried next by
``model_json``, which writes nested models, lists and free JSON values (MESSAGES_SNAPSHOT,
RUN_FINISHED with usage, CUSTOM, STATE_SNAPSHOT) under the same rules and places long texts
in the line uncopied. Only what neither writes goes to ``EventEncoder``.
"""

from __future__ import annotations

import keyword
import logging
import operator
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from json.encoder import encode_basestring
from typing import Any, Literal, Union

import ag_ui.core
from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

from ag_ui_openai_agents.server.model_json import model_writer, omittable, plain_model, wire_key

logger = logging.getLogger(__name__)

_SSE_CONTENT_TYPE = "text/event-stream"
_SCALARS: dict[Any, str] = {str: "str", int: "int", bool: "bool"}

_has_surrogate = re.compile("[\ud800-\udfff]").search
Encode = Callable[[BaseEvent], "str | None"]


@dataclass(frozen=True)
class FieldPlan:
    """How one field of an event class is written on the fast path."""

    name: str
    """The attribute name (``message_id``)."""
    key: str
    """The wire key, as ``by_alias=True`` writes it (``messageId``)."""
    omittable: bool
    """Left out when it holds ``None`` (optional with a ``None`` default)."""
    kinds: tuple[str, ...]
    """Value types written here: ``str``, ``int``, ``bool`` (exact types only)."""
    literals: tuple[Any, ...] = ()
    """For a ``Literal`` field: the values it may hold, each written as its JSON string."""


def _members(annotation: Any) -> list[Any]:
    """The alternatives of a union (``Optional`` included), ``Annotated`` unwrapped."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [m for arg in typing.get_args(annotation) for m in _members(arg)]
    return [annotation]


def _plan_field(name: str, info: Any) -> FieldPlan:
    kinds: list[str] = []
    literals: list[Any] = []
    for member in _members(info.annotation):
        if typing.get_origin(member) is Literal:
            values = typing.get_args(member)
            if all(isinstance(value, str) for value in values):
                literals.extend(values)
        elif member in _SCALARS:
            kinds.append(_SCALARS[member])
    return FieldPlan(name, wire_key(name, info), omittable(info), tuple(kinds), tuple(literals))


def field_plans(cls: type[BaseEvent]) -> tuple[FieldPlan, ...] | None:
    """The fast-path plan of ``cls``, or ``None`` when it has none.

    A class has a plan when pydantic writes it plainly and each required field can hold a
    value written here; optional fields that cannot are fast only while they hold ``None``.
    """
    if not plain_model(cls):
        return None
    plans = tuple(_plan_field(name, info) for name, info in cls.model_fields.items())
    if any(not plan.omittable and not (plan.kinds or plan.literals) for plan in plans):
        return None
    return plans


def event_classes() -> list[type[BaseEvent]]:
    """Every concrete event class ``ag_ui.core`` exports."""
    found = (getattr(ag_ui.core, name) for name in ag_ui.core.__all__)
    return [
        cls
        for cls in found
        if isinstance(cls, type) and issubclass(cls, BaseEvent) and cls is not BaseEvent
    ]


def _value_lines(index: int, plan: FieldPlan, enum: type[Enum] | None) -> list[str]:
    """Code that checks the field's value (``_x``) and appends it to ``_out``, or gives up."""
    prefix = repr("," + encode_basestring(plan.key) + ":")
    branches: list[tuple[str, str]] = []
    if plan.literals:
        literal_type = f"_enum{index}" if enum is not None else "_str"
        branches.append(
            (f"_x.__class__ is {literal_type} and _x in _lit{index}", f"_lit{index}[_x]")
        )
    writers = {"str": "_q(_x)", "int": "_int_text(_x)", "bool": "('true' if _x else 'false')"}
    for kind in plan.kinds:
        branches.append((f"_x.__class__ is _{kind}", writers[kind]))
    lines: list[str] = []
    for number, (condition, writer) in enumerate(branches):
        lines.append(f"    {'if' if number == 0 else 'elif'} {condition}:")
        lines.append(f"        _out += {prefix} + {writer}")
    if plan.omittable:
        lines.append(f"    {'elif' if lines else 'if'} _x is None:")
        lines.append("        pass")
    lines += ["    else:", "        return None"] if lines else ["    return None"]
    return lines


def _literal_table(plan: FieldPlan) -> dict[Any, str]:
    return {
        value: encode_basestring(value.value if isinstance(value, Enum) else value)
        for value in plan.literals
    }


def _literal_enum(plan: FieldPlan) -> type[Enum] | None:
    """The enum of a field's literal members, if they are enum members (of one enum)."""
    enums = {type(value) for value in plan.literals if isinstance(value, Enum)}
    if len(enums) > 1 or (enums and not all(isinstance(v, Enum) for v in plan.literals)):
        raise TypeError(f"{plan.name}: literals mixing enums and strings")
    return enums.pop() if enums else None


def _common_shape(plans: tuple[FieldPlan, ...], scope: dict[str, Any]) -> tuple[str, str] | None:
    """The condition and the one-expression output of the usual event of a class: every
    omittable field ``None``, every other one a fixed literal or a string.

    ``None`` when some required field is neither (then every event takes the general path).
    """
    conditions: list[str] = []
    pieces: list[str] = []
    text = "data: {"
    for index, plan in enumerate(plans):
        value = f"_v{index}"
        if plan.omittable:
            conditions.append(f"{value} is None")
            continue
        key = ("," if pieces or text != "data: {" else "") + encode_basestring(plan.key) + ":"
        if len(plan.literals) == 1:
            literal = plan.literals[0]
            scope[f"_c{index}"] = literal
            if isinstance(literal, Enum):
                conditions.append(f"{value} is _c{index}")
                text += key + encode_basestring(literal.value)
            else:
                conditions.append(f"({value}.__class__ is _str and {value} == _c{index})")
                text += key + encode_basestring(literal)
        elif plan.literals:
            kind = "_str" if _literal_enum(plan) is None else f"_enum{index}"
            conditions.append(f"{value}.__class__ is {kind} and {value} in _lit{index}")
            pieces += [repr(text + key), f"_lit{index}[{value}]"]
            text = ""
        elif "str" in plan.kinds:
            conditions.append(f"{value}.__class__ is _str")
            pieces += [repr(text + key), f"_q({value})"]
            text = ""
        else:
            return None
    pieces.append(repr(text + "}\n\n"))
    expression = _f_string(pieces)
    return None if expression is None else (" and ".join(conditions) or "True", expression)


def _f_string(pieces: list[str]) -> str | None:
    """One f-string for alternating constants (as ``repr``) and expressions: one join.

    ``None`` if a constant's ``repr`` is not single-quoted (then the general path serves)."""
    parts: list[str] = []
    for number, piece in enumerate(pieces):
        if number % 2:
            parts.append("{" + piece + "}")
            continue
        if not (piece.startswith("'") and piece.endswith("'")):
            return None
        parts.append(piece[1:-1].replace("{", "{{").replace("}", "}}"))
    return "f'" + "".join(parts) + "'"


def _generate(cls: type[BaseEvent], plans: tuple[FieldPlan, ...]) -> Encode:
    """The fast encoder of ``cls``: an SSE line, or ``None`` for the standard path."""
    for plan in plans:
        if not plan.name.isidentifier() or keyword.iskeyword(plan.name):
            raise TypeError(f"{cls.__name__}.{plan.name} cannot be read by generated code")
    scope: dict[str, Any] = {
        "__name__": __name__,
        "_q": encode_basestring,
        "_int": int,
        "_int_text": int.__repr__,
        "_str": str,
        "_bool": bool,
        "_surrogate": _has_surrogate,
    }
    lines = ["def encode(event):", "    if event.__pydantic_extra__:", "        return None"]
    scope["_fields"] = operator.itemgetter(*(plan.name for plan in plans))
    values = ", ".join(f"_v{index}" for index in range(len(plans)))
    lines += [
        "    try:",
        f"        {values}{',' if len(plans) == 1 else ''} = _fields(event.__dict__)",
    ]
    lines += ["    except KeyError:", "        return None"]
    for index, plan in enumerate(plans):
        if plan.literals:
            scope[f"_lit{index}"] = _literal_table(plan)
            scope[f"_enum{index}"] = _literal_enum(plan)
    common = _common_shape(plans, scope)
    if common is not None:
        condition, expression = common
        lines += [f"    if {condition}:", f"        _out = {expression}", "    else:"]
    else:
        lines += ["    if True:"]
    lines.append("        _out = ''")
    for index, plan in enumerate(plans):
        lines.append(f"        _x = _v{index}")
        lines += ["    " + line for line in _value_lines(index, plan, _literal_enum(plan))]
    lines += [
        "        _out = 'data: {' + _out[1:] + '}\\n\\n'",
        "    if _out.isascii() or _surrogate(_out) is None:",
        "        return _out",
        "    return None",
    ]
    exec("\n".join(lines), scope)  # generated from checked field names, like builders.py
    encode: Encode = scope["encode"]
    encode.__qualname__ = encode.__name__ = f"encode_{cls.__name__}"
    return encode


_PROBE_TEXT = 'probe "\\ \n\t\x00\x1f\x7f \u2028 é € 😀'
_PROBE_VALUES: dict[str, Any] = {"str": _PROBE_TEXT, "int": 1_700_000_000_000, "bool": True}


def _probes(cls: type[BaseEvent], plans: tuple[FieldPlan, ...]) -> list[BaseEvent]:
    """Two validated events: every field the fast path writes set, and only required ones."""
    full: dict[str, Any] = {}
    bare: dict[str, Any] = {}
    for plan in plans:
        if plan.literals or plan.kinds:
            value = plan.literals[0] if plan.literals else _PROBE_VALUES[plan.kinds[0]]
            full[plan.name] = value
            if not plan.omittable:
                bare[plan.name] = value
    return [cls(**full), cls(**bare)]


def _verified(cls: type[BaseEvent], encode: Encode) -> bool:
    """Whether ``encode`` gives ``EventEncoder``'s very output for the probes of ``cls``."""
    plans = field_plans(cls)
    assert plans is not None
    try:
        probes = _probes(cls, plans)
    except Exception:  # a constraint the probe values break: keep the standard path
        return False
    standard = EventEncoder()
    return all(encode(probe) == standard.encode(probe) for probe in probes)


def _fast_encoders() -> dict[type[BaseEvent], Encode]:
    encoders: dict[type[BaseEvent], Encode] = {}
    for cls in event_classes():
        plans = field_plans(cls)
        if plans is None:
            continue
        try:
            encode = _generate(cls, plans)
            verified = _verified(cls, encode)
        except Exception:  # a model shape the generator does not know: the standard path
            verified = False
        if verified:
            encoders[cls] = encode
        else:
            logger.warning("%s encodes differently here; it keeps EventEncoder", cls.__name__)
    return encoders


FAST_ENCODERS: dict[type[BaseEvent], Encode] = _fast_encoders()
"""The generated encoder of every event class that has one, by exact class."""


def encode_nested(event: BaseEvent) -> str | None:
    """``EventEncoder``'s line for an event with nested models, lists or JSON values, written
    by ``model_json``; ``None`` when some value is not one it writes."""
    writer = model_writer(type(event))
    out = ["data: "]
    if writer is None or not writer(event, out):
        return None
    out.append("\n\n")
    line = "".join(out)
    if line.isascii() or _has_surrogate(line) is None:
        return line
    return None


def _nested_events() -> frozenset[type[BaseEvent]]:
    """The event classes ``model_json`` can write: those without a generated encoder, and
    the events of the others that it gives up on (RUN_FINISHED with usage, …)."""
    return frozenset(cls for cls in event_classes() if model_writer(cls) is not None)


NESTED_EVENTS: frozenset[type[BaseEvent]] = _nested_events()
"""Event classes written by ``model_json`` when their values allow (MESSAGES_SNAPSHOT, …)."""


class FastEventEncoder(EventEncoder):
    """A drop-in for ``EventEncoder``: the same constructor, content type and output.

    ``encode`` writes events whose values are strings, integers, booleans, models, lists and
    JSON values made of those itself, and passes every other event (a float, a subclass, an
    extra field, …) to ``EventEncoder.encode``; the result is byte for byte the same.
    """

    def __init__(self, accept: str | None = None) -> None:
        super().__init__(accept)  # type: ignore[arg-type]
        fast = super().get_content_type() == _SSE_CONTENT_TYPE
        self._fast: dict[type[BaseEvent], Encode] = FAST_ENCODERS if fast else {}
        self._nested: frozenset[type[BaseEvent]] = NESTED_EVENTS if fast else frozenset()
        self._standard = super().encode

    def encode(self, event: BaseEvent) -> str:
        """The SSE line of ``event``, as ``EventEncoder.encode`` writes it."""
        fast = self._fast.get(type(event))
        if fast is not None:
            text = fast(event)
            if text is not None:
                return text
        if type(event) in self._nested:
            line = encode_nested(event)
            if line is not None:
                return line
        return self._standard(event)
