"""Internal: tool results with media, as content parts and back to the model exactly as it
first saw them.

The SDK gives the model a structured tool output as Responses content items (``input_text``,
``input_image``, ``input_file``). :func:`tool_output_parts` makes content parts of them,
marked with ``metadata.openai`` (for the outbound side and a resumed approval's output alike):
a 1.0 client is shown those, an older client the JSON text of the items. Both come back here:
:func:`exact_output` turns marked parts into the same items, :func:`structured_text` reads the
JSON text back into them. Parts a client wrote itself
carry no mark and go through the ordinary content translation instead.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, cast

from ag_ui.core import (
    ContentPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
)
from openai.types.responses.response_function_call_output_item_list_param import (
    ResponseFunctionCallOutputItemParam,
)

from ag_ui_openai_agents.inbound.content import data_url, parse_data_url
from ag_ui_openai_agents.protocol import METADATA_KEY, REPLAY_VERSION

__all__ = [
    "OutputItem",
    "ResultPart",
    "entry_part",
    "exact_output",
    "is_exact_part",
    "structured_entries",
    "structured_text",
    "tool_output_parts",
]

_OPENAI = "openai"

ResultPart: TypeAlias = ContentPart
"""A content part of a tool result (text, image and document parts are made here)."""

OutputItem: TypeAlias = ResponseFunctionCallOutputItemParam
"""One content item of a ``function_call_output``."""

_SDK_FORMS: Mapping[str, str] = {"text": "input_text", "image": "input_image", "file": "input_file"}
_FIELDS: Mapping[str, tuple[str, ...]] = {
    "input_text": ("text",),
    "input_image": ("image_url", "file_id", "detail"),
    "input_file": ("file_data", "file_url", "file_id", "filename", "detail"),
}
_SOURCES: Mapping[str, tuple[str, ...]] = {
    "input_text": ("text",),
    "input_image": ("image_url", "file_id"),
    "input_file": ("file_data", "file_url", "file_id"),
}


def _entry(value: Any) -> dict[str, Any] | None:
    """One structured output in its Responses form (``input_*``), or None when it is not one.
    The SDK's own forms (``ToolOutputImage``, ``{"type": "image", ...}``) are read too."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json", exclude_none=True)
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    kind = _SDK_FORMS.get(kind, kind) if isinstance(kind, str) else None
    fields = _FIELDS.get(kind) if kind is not None else None
    if kind is None or fields is None:
        return None
    entry: dict[str, Any] = {"type": kind}
    for name in fields:
        field_value = value.get(name)
        if field_value is not None:
            if not isinstance(field_value, str):
                return None
            entry[name] = field_value
    return entry if any(name in entry for name in _SOURCES[kind]) else None


def structured_entries(output: Any) -> list[dict[str, Any]] | None:
    """A tool output as the Responses content items the model saw, or None when it is not a
    structured output (a string, a plain value, a list with anything else in it)."""
    if isinstance(output, str) or output is None:
        return None
    values = list(output) if isinstance(output, list | tuple) else [output]
    entries = [_entry(value) for value in values]
    if not entries or any(entry is None for entry in entries):
        return None
    return [entry for entry in entries if entry is not None]


# Items to parts (what a 1.0 client is shown) --------------------------------------------------

_DETAILS = frozenset({"low", "high", "auto", "original"})
_OCTET_STREAM = "application/octet-stream"


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


def _image_part(entry: Mapping[str, Any]) -> ImagePart:
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


def _document_part(entry: Mapping[str, Any]) -> DocumentPart:
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
    return _image_part(entry) if kind == "input_image" else _document_part(entry)


def tool_output_parts(output: Any) -> list[ResultPart] | None:
    """A tool output with media as content parts; None when it has no image or file (the
    output then travels as text, as it does to a client older than 1.0)."""
    entries = structured_entries(output)
    if entries is None or all(entry["type"] == "input_text" for entry in entries):
        return None
    return [entry_part(entry) for entry in entries]


# Parts and text back to items ----------------------------------------------------------------


def structured_text(text: str) -> list[OutputItem] | None:
    """The items a result's text spells as JSON (what a client older than 1.0 was shown for a
    structured output), or None when the text is anything else."""
    if not text.startswith("[") or '"type"' not in text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    if not isinstance(parsed, list) or not all(
        isinstance(item, Mapping) and str(item.get("type", "")).startswith("input_")
        for item in parsed
    ):
        return None
    return cast("list[OutputItem] | None", structured_entries(parsed))


def _mark(part: Any) -> Mapping[str, Any] | None:
    metadata = getattr(part, "metadata", None)
    mark = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
    if isinstance(mark, Mapping) and mark.get("v") == REPLAY_VERSION:
        return mark
    return None


def is_exact_part(part: Any) -> bool:
    """Whether ``part`` is the image of a Responses content item (made by the outbound side)."""
    return isinstance(part, ImagePart | DocumentPart) and _mark(part) is not None


def _source_value(source: Any) -> tuple[str, str]:
    """``(field, value)``: where a source's bytes go in a Responses image or file item."""
    if isinstance(source, DataSource):
        return "data", data_url(source.mime_type, source.value)
    if isinstance(source, UrlSource):
        is_data = source.value.strip().lower().startswith("data:")
        return ("data" if is_data else "url"), source.value
    return "file_id", cast(FileSource, source).value


def _image(part: ImagePart, mark: Mapping[str, Any]) -> OutputItem:
    where, value = _source_value(part.source)
    item: dict[str, Any] = {"type": "input_image"}
    item["file_id" if where == "file_id" else "image_url"] = value
    if isinstance(mark.get("file_id"), str):
        item["file_id"] = mark["file_id"]
    detail = part.metadata.get("detail") if isinstance(part.metadata, Mapping) else None
    if isinstance(detail, str):
        item["detail"] = detail
    return cast(OutputItem, item)


def _document(part: DocumentPart, mark: Mapping[str, Any]) -> OutputItem:
    where, value = _source_value(part.source)
    item: dict[str, Any] = {"type": "input_file"}
    if where == "data":
        raw = mark.get("raw") is True and isinstance(part.source, DataSource)
        item["file_data"] = part.source.value if raw else value
    else:
        item["file_url" if where == "url" else "file_id"] = value
    for key in ("file_url", "file_id"):
        if isinstance(mark.get(key), str):
            item[key] = mark[key]
    metadata = part.metadata if isinstance(part.metadata, Mapping) else {}
    for key in ("filename", "detail"):
        if isinstance(metadata.get(key), str):
            item[key] = metadata[key]
    return cast(OutputItem, item)


def exact_output(parts: Sequence[Any]) -> list[OutputItem] | None:
    """The Responses items of a result whose media parts are all marked (text parts come
    back as they are), or None when any part is not one the outbound side made."""
    if not any(is_exact_part(part) for part in parts):
        return None
    items: list[OutputItem] = []
    for part in parts:
        mark = _mark(part)
        if isinstance(part, TextPart):
            items.append({"type": "input_text", "text": part.text})
        elif isinstance(part, ImagePart) and mark is not None:
            items.append(_image(part, mark))
        elif isinstance(part, DocumentPart) and mark is not None:
            items.append(_document(part, mark))
        else:
            return None
    return items
