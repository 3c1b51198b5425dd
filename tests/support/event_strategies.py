"""Hypothesis strategies for every AG-UI event class, read from the models' field definitions.

:func:`events_of` builds validated events of one class: each field from its annotation
(strings of every Unicode plane with control characters, ``\\u2028`` and lone surrogates,
empty and huge strings; integers at the edges of their bounds; any JSON value; nested models
built the same way), each optional field present or left out. :func:`constructed_of` builds
unvalidated events (``model_construct``) with values of the wrong kind as well: floats, ``str``
subclasses, enums in string fields, extra fields, missing required fields.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Literal, Union

import annotated_types
from hypothesis import strategies as st
from pydantic import BaseModel

__all__ = ["constructed_of", "events_of", "json_values", "texts"]

_SPECIAL = ["\u2028", "\u2029", "\x00", "\x1f", "\x7f", "\ufeff", "\ud800", "\udfff", '"', "\\"]
_characters = st.one_of(
    st.characters(codec=None, exclude_categories=()),  # every plane, surrogates included
    st.sampled_from(_SPECIAL),
    st.characters(max_codepoint=0x7F),
)
texts = st.one_of(
    st.text(_characters, max_size=40),
    st.sampled_from(["", "x" * 100_000, "é" * 20_000 + "\U0001f600", "\ud83d\ude00 pair"]),
)
"""Strings a delta or an id may hold, including ones pydantic will not encode."""

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
"""Any JSON value."""


class _Text(str):
    """A ``str`` subclass: pydantic may write it as a string, the fast path must not guess."""


class _Colour(str, enum.Enum):
    RED = "red"


_odd = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(_Text, texts),
    st.just(_Colour.RED),
    st.just(True),
    st.integers(),
    st.dictionaries(texts, st.integers(), max_size=2),
)


def _bounds(metadata: list[Any]) -> tuple[int | None, int | None]:
    low = high = None
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            low = int(item.ge)  # type: ignore[call-overload]
        elif isinstance(item, annotated_types.Le):
            high = int(item.le)  # type: ignore[call-overload]
    return low, high


def _for(annotation: Any, metadata: list[Any], depth: int) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any or annotation is object:
        return json_values
    if annotation is type(None):
        return st.none()
    if origin is typing.Annotated:
        return _for(args[0], [*metadata, *args[1:]], depth)
    if origin is Union or origin is types.UnionType:
        return st.one_of(*(_for(arg, metadata, depth) for arg in args))
    if origin is Literal:
        return st.sampled_from(args)
    if origin is list:
        return st.lists(_for(args[0], [], depth + 1), max_size=0 if depth > 2 else 3)
    if origin is dict:
        return st.dictionaries(texts, _for(args[1], [], depth + 1), max_size=3)
    if annotation is str:
        return texts
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        low, high = _bounds(metadata)
        edges = [value for value in (low, high) if value is not None]
        return st.one_of(st.integers(low, high), st.sampled_from([0, *edges]))
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return st.sampled_from(list(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(annotation, depth + 1)
    raise TypeError(f"no strategy for {annotation!r}")


def _field_values(cls: type[BaseModel], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in cls.model_fields.items():
        strategy = _for(info.annotation, list(info.metadata), depth)
        if info.is_required():
            required[name] = strategy
        else:
            optional[name] = strategy
    return st.fixed_dictionaries(required, optional=optional)


def _model(cls: type[BaseModel], depth: int) -> st.SearchStrategy[Any]:
    def build(values: dict[str, Any]) -> Any:
        try:
            return cls(**values)
        except ValueError:  # a constraint across fields; hypothesis tries another value
            return None

    return _field_values(cls, depth).map(build).filter(lambda model: model is not None)


def events_of(cls: type[BaseModel]) -> st.SearchStrategy[Any]:
    """Validated instances of ``cls``, each optional field present or absent."""
    return _model(cls, 0)


def constructed_of(cls: type[BaseModel]) -> st.SearchStrategy[Any]:
    """``model_construct`` instances of ``cls``: odd values, extra fields, fields left unset."""
    names = list(cls.model_fields)

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        values = draw(_field_values(cls, 0))
        for name in draw(st.lists(st.sampled_from(names), max_size=2, unique=True)):
            values[name] = draw(_odd)
        if draw(st.booleans()):
            values[draw(st.sampled_from(["extraField", "x"]))] = draw(texts)
        for name in draw(st.lists(st.sampled_from(names), max_size=1)):
            values.pop(name, None)
        return cls.model_construct(**values)

    return build()
