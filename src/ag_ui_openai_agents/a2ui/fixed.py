"""Internal: fixed A2UI surfaces (public from :mod:`ag_ui_openai_agents.a2ui`): a layout written
in advance, whose data a backend tool fills per call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ag_ui_a2ui_toolkit import (
    BASIC_CATALOG_ID,
    assemble_ops,
    validate_a2ui_components,
    wrap_as_operations_envelope,
)

__all__ = ["FixedSurface"]


@dataclass(frozen=True)
class FixedSurface:
    """A surface whose layout is written in advance: a backend tool returns
    ``surface.envelope(data)``, the operations envelope the A2UI middleware paints.

    ``components`` is the flat A2UI v0.9 component list (root ``id`` ``"root"``); it is
    checked when the surface is made (structure, and the catalog's components and required
    properties when ``catalog`` is given). Data bindings are checked per call.
    """

    surface_id: str
    components: Sequence[Mapping[str, Any]]
    catalog_id: str = BASIC_CATALOG_ID
    catalog: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        errors = self._errors(None, bindings=False)
        if errors:
            raise ValueError(f"invalid A2UI layout for {self.surface_id!r}: {errors}")

    def envelope(self, data: Mapping[str, Any] | None = None) -> str:
        """The envelope that creates the surface, sets its components and its data model.

        Raises:
            ValueError: an absolute data binding of the layout does not resolve in ``data``.
        """
        errors = self._errors(data, bindings=True)
        if errors:
            raise ValueError(f"A2UI data for {self.surface_id!r} does not fit: {errors}")
        operations = assemble_ops(
            intent="create",
            surface_id=self.surface_id,
            catalog_id=self.catalog_id,
            components=[dict(c) for c in self.components],
            data=dict(data or {}),
        )
        return cast(str, wrap_as_operations_envelope(operations))

    def _errors(self, data: Mapping[str, Any] | None, *, bindings: bool) -> list[Any]:
        result = validate_a2ui_components(
            components=[dict(c) for c in self.components],
            data=dict(data or {}),
            catalog=dict(self.catalog) if self.catalog is not None else None,
            validate_bindings=bindings,
        )
        return list(result["errors"])
