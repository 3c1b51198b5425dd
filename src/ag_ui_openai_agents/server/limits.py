"""Internal: request limits of the run route: a body size cap (413) and 422s that echo little.

:func:`run_route_class` makes the ``APIRoute`` class of the run route. Before FastAPI parses
anything, its handler refuses a body whose ``Content-Length`` is over the limit (without
reading it), reads any other body only up to the limit (a chunked body is refused as soon as
it passes it), and hands the bytes read to FastAPI. A body that does not validate gets
FastAPI's usual 422 shape, with each error's ``input`` cut to a short preview and at most
:data:`MAX_LISTED_ERRORS` errors listed, so a large bad request is not sent back.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.types import Message, Receive

DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024
"""The default cap on a run request's body: 8 MiB."""

PREVIEW_CHARS = 120
"""The most characters of a rejected value a 422 shows."""

MAX_LISTED_ERRORS = 20
"""The most validation errors a 422 lists."""

_preview = reprlib.Repr()
_preview.maxlevel = 2
_preview.maxdict = _preview.maxlist = _preview.maxtuple = 4
_preview.maxstring = _preview.maxother = 60


class _TooLarge(Exception):
    """The body is over the limit."""


def preview(value: Any) -> Any:
    """``value`` itself when small and plain; otherwise a short text preview of it."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str) and len(value) <= PREVIEW_CHARS:
        return value
    text = value if isinstance(value, str) else _preview.repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def short_validation_errors(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """FastAPI's validation errors with short inputs, messages and contexts, and few of them."""
    listed: list[dict[str, Any]] = []
    for error in errors[:MAX_LISTED_ERRORS]:
        entry = {key: value for key, value in dict(error).items() if key != "url"}
        entry["loc"] = list(entry.get("loc", ()))
        if "input" in entry:
            entry["input"] = preview(entry["input"])
        if "msg" in entry:
            entry["msg"] = preview(str(entry["msg"]))
        if isinstance(entry.get("ctx"), dict):
            entry["ctx"] = {key: preview(value) for key, value in entry["ctx"].items()}
        listed.append(entry)
    if len(errors) > MAX_LISTED_ERRORS:
        more = len(errors) - MAX_LISTED_ERRORS
        listed.append({"type": "too_many_errors", "loc": ["body"], "msg": f"{more} more errors"})
    return listed


def too_large(limit: int) -> JSONResponse:
    """The 413 answer, naming the limit."""
    detail = f"The request body is larger than the limit of {limit} bytes."
    return JSONResponse({"detail": detail}, status_code=413, headers={"connection": "close"})


def _declared_length(request: Request) -> int | None:
    value = request.headers.get("content-length")
    return int(value) if value is not None and value.isdigit() else None


async def _read_body(request: Request, limit: int | None) -> bytes:
    """The whole body, or :class:`_TooLarge` as soon as more than ``limit`` bytes came in."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if limit is not None and size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then the connection's own messages."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def run_route_class(max_request_bytes: int | None) -> type[APIRoute]:
    """An ``APIRoute`` class enforcing ``max_request_bytes`` (None: no cap) and short 422s."""

    class AGUIRunRoute(APIRoute):
        """The run route: body cap and short validation errors around FastAPI's handler."""

        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def limited(request: Request) -> Response:
                declared = _declared_length(request)
                if max_request_bytes is not None and (declared or 0) > max_request_bytes:
                    return too_large(max_request_bytes)
                try:
                    body = await _read_body(request, max_request_bytes)
                except _TooLarge:
                    assert max_request_bytes is not None
                    return too_large(max_request_bytes)
                replayed = Request(request.scope, _replaying(body, request.receive))
                try:
                    return await handler(replayed)
                except RequestValidationError as exc:
                    detail = short_validation_errors(exc.errors())
                    return JSONResponse({"detail": detail}, status_code=422)

            return limited

    return AGUIRunRoute
