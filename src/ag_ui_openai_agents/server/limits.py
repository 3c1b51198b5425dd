"""Request limits for AG-UI routes: a body size cap (413) and 422s that echo little.

The FastAPI shortcut reads a run's body itself, after the route's dependencies (so a request
they refuse is never buffered), with :func:`read_run_input`. A route written by hand gets the
same limits from :class:`RequestLimitMiddleware`, an ASGI middleware around the app.

Either way, a body whose ``Content-Length`` is over the limit is refused without being read,
any other body is read only up to the limit (a chunked body is refused as soon as it passes
it), and a body that does not validate gets FastAPI's usual 422 shape, with each error's
``input`` cut to a short preview and at most :data:`MAX_LISTED_ERRORS` errors listed, so a
large bad request is not sent back.
"""

from __future__ import annotations

import gc
import json
import reprlib
from collections.abc import Collection, Sequence
from typing import Any

from ag_ui.core import RunAgentInput
from fastapi import Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "MAX_LISTED_ERRORS",
    "PREVIEW_CHARS",
    "RequestLimitMiddleware",
    "read_run_input",
]

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


def _declared_length(headers: Headers) -> int | None:
    value = headers.get("content-length")
    return int(value) if value is not None and value.isdigit() else None


def check_limit(max_request_bytes: int | None) -> None:
    """Refuse a negative limit."""
    if max_request_bytes is not None and max_request_bytes < 0:
        raise ValueError("max_request_bytes must be zero or more, or None for no limit")


async def _read_body(receive: Receive, limit: int | None) -> bytes | None:
    """The whole body, or None as soon as more than ``limit`` bytes came in.

    A client that goes away mid-body ends it early: the app sees what came.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if limit is not None and size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _read_request_body(request: Request, limit: int | None) -> bytes | None:
    """The body through ``request.stream()``, or None as soon as more than ``limit`` bytes
    came in. The stream gives the body a dependency already read (``await request.body()``,
    a signature check say) as it is; a client that goes away mid-body ends it early."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if limit is not None and size > limit:
                return None
            chunks.append(chunk)
    except ClientDisconnect:
        pass
    return b"".join(chunks)


async def read_run_input(
    request: Request, max_request_bytes: int | None
) -> RunAgentInput | Response:
    """The request's body as a ``RunAgentInput``, or the 413 or short 422 to answer with.

    Call it in the route, after its dependencies: nothing of the body is read before.
    """
    declared = _declared_length(request.headers)
    if max_request_bytes is not None and (declared or 0) > max_request_bytes:
        return too_large(max_request_bytes)
    body = await _read_request_body(request, max_request_bytes)
    if body is None:
        assert max_request_bytes is not None
        return too_large(max_request_bytes)
    try:
        return validate_run_input(body)
    except ValidationError as exc:
        errors = [
            {**error, "loc": ("body", *error["loc"])} for error in exc.errors(include_url=False)
        ]
        return JSONResponse({"detail": short_validation_errors(errors)}, status_code=422)
    except RecursionError:
        error = {"type": "json_invalid", "loc": ["body"], "msg": "JSON nested too deeply"}
        return JSONResponse({"detail": [error]}, status_code=422)


def validate_run_input(body: bytes) -> RunAgentInput:
    """``RunAgentInput.model_validate_json(body)`` with the cyclic garbage collector paused.

    Validation builds an object or more per JSON value without giving the event loop a turn;
    the collector, woken every few hundred of them, walks every object already built, so on a
    large body it makes the wait several times longer (about 5x on 6 MB of answered tool
    calls). The objects built hold no cycles; the collector resumes as soon as it is done.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return RunAgentInput.model_validate_json(body)
    finally:
        if enabled:
            gc.enable()


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


class RequestLimitMiddleware:
    """ASGI middleware: the run route's body cap and short 422s, for routes written by hand.

    ``app.add_middleware(RequestLimitMiddleware, max_request_bytes=...)`` (8 MiB by default;
    None: no cap). ``paths`` limits it to those routes (each with or without a trailing slash),
    for an app that also serves the FastAPI shortcut, whose routes apply their own
    ``max_request_bytes`` after their dependencies. The body of each request it applies to is
    read, up to the limit, before the app sees it: over the limit (declared, or counted as it
    arrives) the answer is HTTP 413 and the app is not called. Every 422 the app answers with
    FastAPI's ``{"detail": [...]}`` shape is shortened: each error's input, message and context
    become short previews, and at most :data:`MAX_LISTED_ERRORS` errors are listed.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_request_bytes: int | None = DEFAULT_MAX_REQUEST_BYTES,
        *,
        paths: Collection[str] | None = None,
    ) -> None:
        check_limit(max_request_bytes)
        self.app = app
        self.max_request_bytes = max_request_bytes
        self.paths = None if paths is None else frozenset(_route_path(p) for p in paths)
        """The request paths it applies to (either slash form); None: every request."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (
            self.paths is not None and _route_path(scope["path"]) not in self.paths
        ):
            await self.app(scope, receive, send)
            return
        limit = self.max_request_bytes
        declared = _declared_length(Headers(scope=scope))
        if limit is not None and (declared or 0) > limit:
            await too_large(limit)(scope, receive, send)
            return
        body = await _read_body(receive, limit)
        if body is None:
            assert limit is not None
            await too_large(limit)(scope, receive, send)
            return
        await self.app(scope, _replaying(body, receive), _ShortUnprocessable(send))


def _route_path(path: str) -> str:
    """``path`` without its trailing slash (``/`` stays ``/``)."""
    return path.rstrip("/") or "/"


class _ShortUnprocessable:
    """A ``send`` that shortens a 422 JSON answer with a ``detail`` list; the rest passes."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Message | None = None
        self.body: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 422:
            self.start = message
            return
        if self.start is None or message["type"] != "http.response.body":
            await self.send(message)
            return
        self.body.append(message.get("body", b""))
        if not message.get("more_body", False):
            await self._flush(b"".join(self.body))

    async def _flush(self, content: bytes) -> None:
        assert self.start is not None
        headers = list(self.start.get("headers", []))
        try:
            answer = json.loads(content)
            detail = answer["detail"]
            if not isinstance(detail, list):
                raise TypeError(detail)
        except (ValueError, TypeError, KeyError):
            await self.send(self.start)
            await self.send({"type": "http.response.body", "body": content})
            return
        short = JSONResponse({**answer, "detail": short_validation_errors(detail)}, 422)
        kept = [(k, v) for k, v in headers if k.lower() not in (b"content-length", b"content-type")]
        await self.send({**self.start, "headers": kept + short.raw_headers})
        await self.send({"type": "http.response.body", "body": short.body})
