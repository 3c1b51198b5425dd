"""Internal: cheap constructors for AG-UI models built from values the engine already trusts.

A validating constructor (``TextMessageContentEvent(message_id=..., delta=...)``) costs about a
third of encoding the event, and ``model_construct`` far more (it resolves every default again
on each call). The engine builds one event per streamed token, so it uses builders instead:
:func:`model_builder` returns a function, generated once per model and field list, that
copies a template of the model's defaults, puts the given values in, and fills pydantic's
instance slots directly. The instance is the one validation would give: the same values in
field order, the same ``model_fields_set``, empty extras, no private values.

Only values of the declared types may be passed: nothing is checked or converted.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from enum import Enum
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_IMMUTABLE_DEFAULTS = (type(None), str, int, float, bool, Enum, tuple, frozenset)
_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
_SlotSetter = Callable[[Any, Any], None]


def _validators(cls: type[BaseModel]) -> bool:
    """Whether validating ``cls`` runs code of the model's own (validators, validated defaults)."""
    decorators = cls.__pydantic_decorators__
    if any(
        (
            decorators.validators,
            decorators.field_validators,
            decorators.root_validators,
            decorators.model_validators,
        )
    ):
        return True
    if cls.model_config.get("validate_default"):
        return True
    return any(info.validate_default for info in cls.model_fields.values())


def _shareable(default: Any) -> bool:
    """A default every instance may hold at once, as validation would give it."""
    if isinstance(default, tuple | frozenset):
        return not default
    return isinstance(default, _IMMUTABLE_DEFAULTS)


def _template(cls: type[BaseModel], names: tuple[str, ...]) -> dict[str, Any]:
    """Every field of ``cls`` in field order: its default, or None for a field in ``names``.

    Raises ``TypeError`` when a copied template would not give what validation gives (a
    default that is mutable, non-empty, made by a factory or validated; a validator; a
    post-init hook; private attributes; a root model) or when ``names`` leaves out a required
    field, names an unknown one, or names one twice.
    """
    fields = cls.model_fields
    required = {name for name, info in fields.items() if info.is_required()}
    if len(set(names)) != len(names) or not required <= set(names) <= set(fields):
        raise TypeError(f"{cls.__name__}: builders must take {sorted(required)}, got {names}")
    if (
        cls.__pydantic_post_init__ is not None
        or cls.__pydantic_root_model__
        or cls.__private_attributes__
        or _validators(cls)
    ):
        raise TypeError(f"{cls.__name__} cannot be built from a template")
    template: dict[str, Any] = {}
    for name, info in fields.items():
        default = None if info.is_required() else info.get_default(call_default_factory=False)
        if info.default_factory is not None or not _shareable(default):
            raise TypeError(f"{cls.__name__}.{name} has a default a template cannot share")
        template[name] = default
    return template


def _slot_setter(cls: type[BaseModel], name: str) -> _SlotSetter:
    """The setter of one instance slot of ``cls``: its descriptor's ``__set__``, the fastest."""
    for klass in cls.__mro__:
        descriptor = vars(klass).get(name)
        if isinstance(descriptor, GetSetDescriptorType | MemberDescriptorType):
            setter: _SlotSetter = descriptor.__set__
            return setter
        if descriptor is not None:
            break
    return lambda instance, value: object.__setattr__(instance, name, value)


def model_builder(cls: type[M], *names: str) -> Callable[..., M]:
    """A builder of ``cls`` taking exactly ``names`` (positionally or by keyword).

    ``names`` must cover every required field. The builder's code is generated, like a
    dataclass ``__init__``, so a call costs no keyword dictionary and no loop. Values are
    stored as given: a list passed in is the instance's list, where validation would copy it.
    """
    template = _template(cls, names)
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
            raise TypeError(f"{cls.__name__}: {name!r} cannot be a builder parameter")
    scope: dict[str, Any] = {
        "__name__": __name__,
        "_new": cls.__new__,
        "_cls": cls,
        "_template": template,
        **{f"_set{index}": _slot_setter(cls, slot) for index, slot in enumerate(_SLOTS)},
    }
    # Parameters are field names without a leading underscore; the locals all have one.
    fields_set = "{" + ", ".join(repr(name) for name in names) + "}" if names else "set()"
    extra = "{}" if cls.model_config.get("extra") == "allow" else "None"
    lines = [
        f"def build({', '.join(names)}):",
        "    _instance = _new(_cls)",
        "    _data = _template.copy()",
        *(f"    _data[{name!r}] = {name}" for name in names),
        "    _set0(_instance, _data)",
        f"    _set1(_instance, {fields_set})",
        f"    _set2(_instance, {extra})",
        "    _set3(_instance, None)",
        "    return _instance",
    ]
    # Generated from field names checked above, as dataclasses generate their __init__.
    exec("\n".join(lines), scope)
    build: Callable[..., M] = scope["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"Build a {cls.__name__} from {', '.join(names)} (values trusted)."
    return build
