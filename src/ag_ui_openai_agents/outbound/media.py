"""Internal: tool outputs and hosted results with media, as AG-UI 1.0 content parts.

A function tool may return ``ToolOutputText`` / ``ToolOutputImage`` / ``ToolOutputFileContent``
(or their dict forms, or a list of them); the SDK gives the model the Responses form of each
(``input_text`` / ``input_image`` / ``input_file``). :func:`tool_output_parts` turns that form
into ``TextPart`` / ``ImagePart`` / ``DocumentPart`` so a 1.0 client can show it; an output
without media stays text. Hosted results (a generated image, code-interpreter logs and images)
go through :func:`hosted_result_parts`.

Each part this module makes says where it came from in its ``metadata``::

    {"filename": "chart.png", "detail": "high", "openai": {"v": 1}}

``filename`` and ``detail`` are there when the tool set them; ``"openai": {"v": 1}`` marks the
part as the exact image of a Responses content item, so the inbound side sends it back as it was
(no default ``detail``, no invented file name). ``"raw": true`` in it says ``file_data`` was
plain base64 rather than a data URL.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from ag_ui.core import (
    ContentPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
)

from ag_ui_openai_agents.inbound.content import data_url, parse_data_url
from ag_ui_openai_agents.inbound.tool_output import structured_entries
from ag_ui_openai_agents.protocol import METADATA_KEY, REPLAY_VERSION
from ag_ui_openai_agents.protocol import item_field as _field

__all__ = ["ResultPart", "hosted_result_parts", "tool_output_parts"]

ResultPart: TypeAlias = ContentPart
"""A content part of a tool result (this module makes text, image and document parts)."""

_DETAILS = frozenset({"low", "high", "auto", "original"})
_OCTET_STREAM = "application/octet-stream"
_OPENAI = "openai"


def _marker(raw: bool = False) -> dict[str, Any]:
    marker: dict[str, Any] = {"v": REPLAY_VERSION}
    if raw:
        marker["raw"] = True
    return marker


def _metadata(entry: Mapping[str, Any], **marker: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if "filename" in entry:
        metadata["filename"] = entry["filename"]
    if entry.get("detail") in _DETAILS:
        metadata["detail"] = entry["detail"]
    metadata[METADATA_KEY] = {**_marker(), **marker}
    return metadata


def _url_source(url: str) -> DataSource | UrlSource:
    """A data URL as a data source (when writing it back gives the same URL), else the URL."""
    parsed = parse_data_url(url)
    if parsed is None:
        return UrlSource(value=url)
    mime_type, payload = parsed
    if mime_type and data_url(mime_type, payload) == url:
        return DataSource(value=payload, mime_type=mime_type)
    return UrlSource(value=url, mime_type=mime_type)


def _image(entry: Mapping[str, Any]) -> ImagePart:
    url, file_id = entry.get("image_url"), entry.get("file_id")
    if url is not None:
        extra = {"file_id": file_id} if file_id is not None else {}
        return ImagePart(source=_url_source(url), metadata=_metadata(entry, **extra))
    source = FileSource(value=str(file_id), provider=_OPENAI)
    return ImagePart(source=source, metadata=_metadata(entry))


def _guess_type(filename: Any) -> str:
    if isinstance(filename, str):
        guessed, _ = mimetypes.guess_type(filename)
        if guessed:
            return guessed
    return _OCTET_STREAM


def _document(entry: Mapping[str, Any]) -> DocumentPart:
    data, url, file_id = entry.get("file_data"), entry.get("file_url"), entry.get("file_id")
    source: DataSource | UrlSource | FileSource
    raw = False
    if data is not None:
        if data.strip().lower().startswith("data:"):
            source = _url_source(data)
        else:
            source, raw = DataSource(value=data, mime_type=_guess_type(entry.get("filename"))), True
    elif url is not None:
        source = UrlSource(value=url)
    else:
        source = FileSource(value=str(file_id), provider=_OPENAI)
    extra: dict[str, Any] = {"raw": True} if raw else {}
    if file_id is not None and (data is not None or url is not None):
        extra["file_id"] = file_id
    if url is not None and data is not None:
        extra["file_url"] = url
    return DocumentPart(source=source, metadata=_metadata(entry, **extra))


def entry_part(entry: Mapping[str, Any]) -> ResultPart:
    """One Responses content item (as :func:`structured_entries` gives it) as a content part."""
    kind = entry["type"]
    if kind == "input_text":
        return TextPart(text=entry["text"])
    return _image(entry) if kind == "input_image" else _document(entry)


def tool_output_parts(output: Any) -> list[ResultPart] | None:
    """A tool output with media as content parts; None when it has no image or file (the
    output then travels as text, as it does to a client older than 1.0)."""
    entries = structured_entries(output)
    if entries is None or all(entry["type"] == "input_text" for entry in entries):
        return None
    return [entry_part(entry) for entry in entries]


# Hosted results ----------------------------------------------------------------------------------


def _generated_image(item: Any) -> list[ResultPart]:
    result = _field(item, "result")
    if not isinstance(result, str) or not result:
        return []
    fmt = _field(item, "output_format") or "png"
    mime_type = "image/svg+xml" if fmt == "svg" else f"image/{fmt}"
    metadata: dict[str, Any] = {}
    for key, name in (("revised_prompt", "revisedPrompt"), ("size", "size")):
        value = _field(item, key)
        if isinstance(value, str) and value:
            metadata[name] = value
    source = DataSource(value=result, mime_type=mime_type)
    return [ImagePart(source=source, metadata=metadata or None)]


def _interpreter_outputs(item: Any) -> list[ResultPart]:
    parts: list[ResultPart] = []
    for output in _field(item, "outputs") or []:
        kind = _field(output, "type")
        if kind == "logs" and _field(output, "logs"):
            parts.append(TextPart(text=str(_field(output, "logs"))))
        elif kind == "image" and _field(output, "url"):
            parts.append(ImagePart(source=UrlSource(value=str(_field(output, "url")))))
        elif kind == "files":
            for file in _field(output, "files") or []:
                parts.append(_container_file(file))
    return parts


def _container_file(file: Any) -> ResultPart:
    mime_type = _field(file, "mime_type")
    source = FileSource(value=str(_field(file, "file_id")), provider=_OPENAI, mime_type=mime_type)
    if isinstance(mime_type, str) and mime_type.startswith("image/"):
        return ImagePart(source=source)
    return DocumentPart(source=source)


def hosted_result_parts(item: Any, status_text: str) -> list[ResultPart] | None:
    """A provider-run call's result with what it produced: the status text first, then the
    generated image, or the code interpreter's logs (text), images and files. None when the
    call produced nothing to show beyond its status."""
    kind = _field(item, "type")
    if kind == "image_generation_call":
        produced = _generated_image(item)
    elif kind == "code_interpreter_call":
        produced = _interpreter_outputs(item)
    else:
        return None
    return [TextPart(text=status_text), *produced] if produced else None


def parts_text(content: str | Sequence[ResultPart]) -> str:
    """A result's content as text (parts as their JSON), for hooks that take text."""
    if isinstance(content, str):
        return content
    return json.dumps([part.model_dump(mode="json", by_alias=True) for part in content])
