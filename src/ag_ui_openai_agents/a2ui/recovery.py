"""Internal: the validate-and-retry loop of one ``generate_a2ui`` call, and the envelope of the
surface it ends with.

The toolkit's ``run_a2ui_generation_with_recovery`` is synchronous: it calls the model through a
blocking callback. :func:`generate_with_recovery` is the same loop as a coroutine over the
toolkit's pure pieces (``augment_prompt_with_validation_errors``, ``validate_a2ui_components``),
so each attempt is awaited on the run's own event loop and cancelling the call cancels the
attempt in flight. Its attempt records and its failure envelope are the toolkit's, byte for byte
(``tests/a2ui/test_a2ui_recovery.py`` runs both loops on the same answers), with one difference:
the errors of an attempt are bounded (:func:`bounded_errors`). The toolkit's validator reports
each child-reference cycle with its whole chain, so its error text can grow with the square of
the render output; here at most :data:`MAX_ERRORS` errors of an attempt, each cut to
:data:`MAX_ERROR_TEXT` characters, reach the retry's prompt, the failure envelope and the log,
and a failed attempt costs at most a few kilobytes whatever the model wrote.

The envelope of a valid surface (:func:`surface_envelope`) is built from the toolkit's
``assemble_ops``, with the catalog the surface is created in chosen by :func:`chosen_catalog`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ag_ui_a2ui_toolkit import (
    DEFAULT_SURFACE_ID,
    assemble_ops,
    augment_prompt_with_validation_errors,
    validate_a2ui_components,
    wrap_as_operations_envelope,
)

from ag_ui_openai_agents.log_lines import clipped

__all__ = [
    "MAX_ERRORS",
    "MAX_ERROR_TEXT",
    "NO_RENDER_CALL",
    "Attempt",
    "Outcome",
    "bounded_errors",
    "chosen_catalog",
    "exhausted_envelope",
    "failure_summary",
    "generate_with_recovery",
    "surface_envelope",
]

Attempt = Callable[[str, int], Awaitable[Mapping[str, Any] | None]]
"""One generation: ``(prompt, attempt number from 1)`` to the ``render_a2ui`` arguments, or None
when the model did not call it."""

NO_RENDER_CALL: dict[str, str] = {
    "code": "empty_components",
    "path": "components",
    "message": "Sub-agent did not call render_a2ui",
}
"""The error an attempt without a ``render_a2ui`` call counts as (the toolkit's)."""

MAX_ERRORS = 20
"""The errors of one attempt that are kept; the rest are counted in one ``too_many_errors``
error. Twenty name a model's typical mistakes (a few wrong components, a missing root) in full,
and bound a retry's prompt to about 10 kB of errors."""

MAX_ERROR_TEXT = 300
"""The characters kept of an error's message (and of its path): a cycle's chain or a long id is
cut there, with the number of characters left out."""

_PLACEHOLDER_CATALOG = "basic"
"""A catalog id models write when told of "the basic catalog": the middleware ignores it too."""


@dataclass(frozen=True)
class Outcome:
    """How one ``generate_a2ui`` call ended."""

    envelope: str
    """The operations envelope of the valid surface, or the ``a2ui_recovery_exhausted`` one."""
    attempts: list[dict[str, Any]]
    """One record per attempt: ``{"attempt": n, "ok": bool, "errors": [...]}``."""
    ok: bool
    """Whether an attempt was valid."""
    error_counts: tuple[int, ...] = ()
    """How many errors each attempt had, before :func:`bounded_errors` kept the first ones."""


async def generate_with_recovery(
    base_prompt: str,
    attempt: Attempt,
    build_envelope: Callable[[Mapping[str, Any]], str],
    *,
    catalog: Mapping[str, Any] | None,
    max_attempts: int,
) -> Outcome:
    """Generate until a surface validates, at most ``max_attempts`` times; each retry's prompt
    lists the previous attempt's errors. A valid attempt is never retried."""
    records: list[dict[str, Any]] = []
    counts: list[int] = []
    errors: list[dict[str, str]] = []
    for number in range(1, max_attempts + 1):
        prompt = cast(str, augment_prompt_with_validation_errors(base_prompt, errors))
        args = await attempt(prompt, number)
        valid, found = _validated(args, catalog)
        errors = bounded_errors(found)
        counts.append(len(found))
        records.append({"attempt": number, "ok": valid, "errors": errors})
        if valid and args:
            return Outcome(build_envelope(args), records, True, tuple(counts))
    return Outcome(exhausted_envelope(max_attempts, records), records, False, tuple(counts))


def bounded_errors(errors: list[dict[str, str]]) -> list[dict[str, str]]:
    """The first :data:`MAX_ERRORS` of ``errors``, each of their texts cut to
    :data:`MAX_ERROR_TEXT` characters, then one ``too_many_errors`` error counting the rest
    (when there are more). Errors within the bounds come back equal."""
    kept = [
        {key: clipped(str(value), MAX_ERROR_TEXT) for key, value in error.items()}
        for error in errors[:MAX_ERRORS]
    ]
    left_out = len(errors) - len(kept)
    if left_out > 0:
        kept.append(
            {
                "code": "too_many_errors",
                "path": "components",
                "message": f"{left_out} more error(s) not shown; fix the ones above first",
            }
        )
    return kept


def failure_summary(outcome: Outcome) -> str:
    """One bounded line on a failed generation: each attempt's error count and first error."""
    parts = []
    for record, count in zip(outcome.attempts, outcome.error_counts, strict=True):
        first = record["errors"][0] if record["errors"] else {}
        parts.append(
            f"attempt {record['attempt']}: {count} error(s), first "
            f"[{first.get('code')}] {first.get('path')}: {first.get('message')}"
        )
    return clipped("; ".join(parts))


def _validated(
    args: Mapping[str, Any] | None, catalog: Mapping[str, Any] | None
) -> tuple[bool, list[dict[str, str]]]:
    if not args:
        return False, [dict(NO_RENDER_CALL)]
    result = validate_a2ui_components(
        components=_components(args),
        data=_data(args),
        catalog=dict(catalog) if catalog is not None else None,
    )
    return bool(result["valid"]), list(result["errors"])


def exhausted_envelope(max_attempts: int, attempts: list[dict[str, Any]]) -> str:
    """The failure envelope after the last invalid attempt (the toolkit's shape)."""
    return json.dumps(
        {
            "error": f"Failed to generate valid A2UI after {max_attempts} attempt(s)",
            "code": "a2ui_recovery_exhausted",
            "attempts": attempts,
        }
    )


def chosen_catalog(args: Mapping[str, Any], *fallbacks: str | None) -> str | None:
    """The catalog a new surface is created in: the ``catalogId`` the model's ``render_a2ui``
    arguments name, else the first of ``fallbacks`` that is set (the application's, then the
    request's), else None (the surface names none, and the client's default applies)."""
    named = args.get("catalogId")
    if isinstance(named, str) and named.strip() and named.strip() != _PLACEHOLDER_CATALOG:
        return named.strip()
    return next((catalog for catalog in fallbacks if catalog), None)


def surface_envelope(
    args: Mapping[str, Any],
    *,
    update_of: str | None,
    default_surface_id: str,
    catalog_id: str | None,
) -> str:
    """The operations envelope of a valid surface: ``createSurface`` (in ``catalog_id``, or
    naming no catalog when it is None), ``updateComponents`` and ``updateDataModel`` when there
    is data; for an update of the surface ``update_of``, its components and data only."""
    named = args.get("surfaceId")
    surface_id = update_of or (named if isinstance(named, str) and named else "")
    operations: list[dict[str, Any]] = assemble_ops(
        intent="update" if update_of else "create",
        surface_id=surface_id or default_surface_id or DEFAULT_SURFACE_ID,
        catalog_id=catalog_id or "",
        components=_components(args),
        data=_data(args),
    )
    if catalog_id is None:
        for operation in operations:
            operation.get("createSurface", {}).pop("catalogId", None)
    return cast(str, wrap_as_operations_envelope(operations))


def _components(args: Mapping[str, Any]) -> list[Any]:
    components = args.get("components")
    return components if isinstance(components, list) else []


def _data(args: Mapping[str, Any]) -> dict[str, Any]:
    data = args.get("data")
    return data if isinstance(data, dict) else {}
