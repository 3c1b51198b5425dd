"""Internal: pydantic's JSON of AG-UI models with nested models, lists and JSON values.

``FastEventEncoder``'s generated encoders cover events whose fields are flat strings, integers
and booleans. The events left (MESSAGES_SNAPSHOT above all, RUN_FINISHED with usage, CUSTOM,
STATE_SNAPSHOT) hold models inside models, lists and free JSON values, and pydantic spends
most of its time on them calling ``ag_ui``'s Python wrap serializer once per nested model: a
50-turn snapshot takes milliseconds. The writers here follow the same field definitions
(wire keys, declared order, ``None`` omission, null for a required optional field) one level
at a time, and write nothing they cannot be sure of:

* a model must be of the very class its field declares (a union's members included), with no
  extra fields and every field set;
* a value must be of an exact type its annotation names: ``str``, ``int``, ``bool``, the
  members of a ``Literal``, a ``list`` of such values, a model;
* a free JSON value (``Any``, ``Dict[str, Any]``) may hold exact ``dict`` (``str`` keys),
  ``list``, ``str``, ``bool``, ``None`` and integers within 64 bits; never a float, whose
  text pydantic and Python write differently.

Anything else makes the writer give up, and the event goes to ``EventEncoder`` whole. Long
strings that JSON writes as they are go into the output by reference, so the line is the only
copy of a long text (see ``server/encoder.py``).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from enum import Enum
from json.encoder import encode_basestring
from typing import Any, Literal, Union

import annotated_types
from pydantic import BaseModel

Write = Callable[[Any, list[str]], bool]
"""Append a value's JSON to the pieces; ``False``: it cannot be written here."""

LARGE_CONTENT = 1 << 15
"""Strings this long (characters) or longer that need no escaping are written uncopied."""
_needs_escape = re.compile(r'[\x00-\x1f"\\\ud800-\udfff]').search
"""What makes a JSON string differ from its text (or pydantic refuse it)."""
_INT_RANGE = range(-(2**63), 2**64)
_q = encode_basestring
_SERIALIZER = "_omit_fields_without_value"
"""The one model serializer of ``ag_ui``'s base model: it drops omittable ``None`` values."""


def plain_model(cls: type[BaseModel]) -> bool:
    """Whether pydantic writes ``cls`` as its fields in order, with no code of the model's own
    beyond the base model's ``None`` omission."""
    decorators = cls.__pydantic_decorators__
    if decorators.field_serializers or decorators.computed_fields:
        return False
    if set(decorators.model_serializers) != {_SERIALIZER}:
        return False
    for info in cls.model_fields.values():
        if info.exclude or getattr(info, "exclude_if", None) is not None:
            return False
        if not all(isinstance(item, annotated_types.BaseMetadata) for item in info.metadata):
            return False
    return True


def wire_key(name: str, info: Any) -> str:
    """A field's key as ``model_dump_json(by_alias=True)`` writes it."""
    return str(info.serialization_alias or info.alias or name)


def omittable(info: Any) -> bool:
    """Whether ``ag_ui``'s base model leaves the field out when it holds ``None``."""
    return not info.is_required() and info.default is None


def write_str(value: str, out: list[str]) -> bool:
    """A JSON string; a long one needing no escape is placed as it is, between quotes."""
    if len(value) >= LARGE_CONTENT and _needs_escape(value) is None:
        out += ('"', value, '"')
    else:
        out.append(_q(value))
    return True


def _write_int(value: int, out: list[str]) -> bool:
    if value not in _INT_RANGE:
        return False
    out.append(int.__repr__(value))
    return True


def _write_bool(value: bool, out: list[str]) -> bool:
    out.append("true" if value else "false")
    return True


def _write_null(value: None, out: list[str]) -> bool:
    out.append("null")
    return True


def write_json(value: Any, out: list[str]) -> bool:
    """A free JSON value as pydantic infers it (see the module docstring for what is kept)."""
    writer = _JSON_WRITERS.get(type(value))
    return writer is not None and writer(value, out)


def _write_object(value: dict[Any, Any], out: list[str]) -> bool:
    out.append("{")
    separator = ""
    for key, item in value.items():
        if type(key) is not str:
            return False
        out.append(separator + _q(key) + ":")
        separator = ","
        if not write_json(item, out):
            return False
    out.append("}")
    return True


def _write_items(value: list[Any], out: list[str], write: Write) -> bool:
    out.append("[")
    for index, item in enumerate(value):
        if index:
            out.append(",")
        if not write(item, out):
            return False
    out.append("]")
    return True


_JSON_WRITERS: dict[type, Write] = {
    str: write_str,
    bool: _write_bool,
    int: _write_int,
    type(None): _write_null,
    dict: _write_object,
    list: lambda value, out: _write_items(value, out, write_json),
}
"""The writer of each exact type a free JSON value may hold."""
_SCALARS: dict[Any, Write] = {str: write_str, int: _write_int, bool: _write_bool}


class _Kinds:
    """The writers of one annotation, by the exact type of the value they take."""

    def __init__(self) -> None:
        self.by_type: dict[type, Write] = {}
        self.nullable = False

    def write(self, value: Any, out: list[str]) -> bool:
        writer = self.by_type.get(type(value))
        return writer is not None and writer(value, out)


def _literal_writer(values: tuple[Any, ...]) -> dict[type, Write]:
    table = {v: _q(v.value if isinstance(v, Enum) else v) for v in values}
    kinds = {type(v) for v in values}
    if any(kind is not str and not issubclass(kind, Enum) for kind in kinds):
        return {}

    def write(value: Any, out: list[str]) -> bool:
        text = table.get(value)
        if text is None:
            return False
        out.append(text)
        return True

    return dict.fromkeys(kinds, write)


def _add_member(kinds: _Kinds, member: Any) -> None:
    origin = typing.get_origin(member)
    if origin is typing.Annotated:
        _add_member(kinds, typing.get_args(member)[0])
    elif origin is Union or origin is types.UnionType:
        for arg in typing.get_args(member):
            _add_member(kinds, arg)
    elif member is type(None):
        kinds.nullable = True
    elif origin is Literal:
        kinds.by_type.update(_literal_writer(typing.get_args(member)))
    elif member in _SCALARS:
        kinds.by_type[member] = _SCALARS[member]
    elif member is Any:
        kinds.nullable = True
        kinds.by_type.update({k: w for k, w in _JSON_WRITERS.items() if k is not type(None)})
    elif origin is dict and typing.get_args(member)[:1] == (str,):
        if typing.get_args(member)[1] is Any:
            kinds.by_type[dict] = _write_object
    elif origin is list:
        inner = _kinds_of(typing.get_args(member)[0])
        kinds.by_type[list] = lambda value, out: _write_items(value, out, inner.write)
    elif isinstance(member, type) and issubclass(member, BaseModel):
        kinds.by_type[member] = _write_model


def _kinds_of(annotation: Any) -> _Kinds:
    kinds = _Kinds()
    _add_member(kinds, annotation)
    return kinds


_Field = tuple[str, str, bool, _Kinds]
"""Attribute name, ``"key":`` as written, left out when None, the value's writers."""
_PLANS: dict[type, tuple[_Field, ...] | None] = {}


def _plan(cls: type[BaseModel]) -> tuple[_Field, ...] | None:
    """The fields of ``cls`` as pydantic writes them, or None when its writing has code of its
    own beyond ``ag_ui``'s omission of ``None`` (``plain_model``)."""
    if cls in _PLANS:
        return _PLANS[cls]
    if not plain_model(cls):
        _PLANS[cls] = None
        return None
    fields: list[_Field] = []
    for name, info in cls.model_fields.items():
        key = _q(wire_key(name, info)) + ":"
        fields.append((name, key, omittable(info), _kinds_of(info.annotation)))
    plan = _PLANS[cls] = tuple(fields)
    return plan


def _write_model(model: BaseModel, out: list[str]) -> bool:
    plan = _PLANS.get(type(model)) or _plan(type(model))
    if plan is None or model.__pydantic_extra__:
        return False
    values = model.__dict__
    out.append("{")
    separator = ""
    for name, key, omittable, kinds in plan:
        if name not in values:
            return False
        value = values[name]
        if value is None:
            if omittable:
                continue
            if not kinds.nullable:
                return False
            out.append(separator + key + "null")
        else:
            out.append(separator + key)
            if not kinds.write(value, out):
                return False
        separator = ","
    out.append("}")
    return True


def model_writer(cls: type[BaseModel]) -> Write | None:
    """The writer of models of exactly ``cls``, or None when pydantic's writing of it has code
    of its own."""
    if _plan(cls) is None:
        return None
    return _write_model
