"""Internal: multimodal content: AG-UI content parts turned into OpenAI input content parts.

Every builder here returns the part the model should see, or ``None`` when the part cannot be
sent. A part is never allowed to fail a request: malformed base64, an unknown or unsupported
MIME type and a source the model cannot read are logged and skipped. Media that OpenAI's agent
input has no slot for (audio by URL, video) are skipped with a debug log.

The shapes follow ``openai.types.responses``: ``input_text``, ``input_image``, ``input_file``
and ``input_audio`` (the last one is read by the SDK's Chat Completions converter; the
Responses API itself takes no audio input).
"""

from __future__ import annotations

import base64
import binascii
import logging
import mimetypes
import re
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from ag_ui.core import BinaryInputContent, DataSource, FileSource, UrlSource
from openai.types.responses import (
    ResponseInputAudioParam,
    ResponseInputFileParam,
    ResponseInputImageParam,
    ResponseInputTextParam,
)

from ag_ui_openai_agents.log_lines import summarise_repeats

logger = summarise_repeats(logging.getLogger(__name__))

InputContent: TypeAlias = (
    ResponseInputTextParam
    | ResponseInputImageParam
    | ResponseInputFileParam
    | ResponseInputAudioParam
)
"""One content part of an OpenAI input message, as this package builds it."""

PartSource: TypeAlias = DataSource | UrlSource | FileSource
"""Where an AG-UI media part's bytes come from."""

AudioFormat: TypeAlias = Literal["wav", "mp3"]

IMAGE_MIME_TYPES: frozenset[str] = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types OpenAI models accept as inline data."""

AUDIO_FORMATS: Mapping[str, AudioFormat] = {
    "audio/wav": "wav",
    "audio/wave": "wav",
    "audio/x-wav": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/mpeg3": "mp3",
    "audio/x-mpeg-3": "mp3",
}
"""Audio MIME types that map onto an ``input_audio`` format; any other audio is skipped."""

_OPENAI_PROVIDER = "openai"
_MIME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$")
_DATA_URL_PATTERN = re.compile(r"^data:([^,;]*)((?:;[^,;]*)*),(.*)$", re.DOTALL | re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
_DOCUMENT_EXTENSIONS: Mapping[str, str] = {
    "application/pdf": ".pdf",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/csv": ".csv",
    "text/html": ".html",
    "application/json": ".json",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}
_DEFAULT_FILE_STEM = "document"


# --- low-level helpers -------------------------------------------------------------------------


def normalize_mime_type(mime_type: str | None) -> str | None:
    """Lower-case a MIME type and drop its parameters; ``None`` when it is not ``type/subtype``."""
    if not isinstance(mime_type, str):
        return None
    essence = mime_type.split(";", 1)[0].strip().lower()
    return essence if _MIME_PATTERN.match(essence) else None


def normalize_base64(value: str) -> str | None:
    """Return ``value`` as canonical padded base64, or ``None`` when it is not valid base64.

    Whitespace (line-wrapped payloads) is removed and missing padding restored.
    """
    if not isinstance(value, str):
        return None
    compact = _WHITESPACE.sub("", value)
    if not compact:
        return None
    compact += "=" * (-len(compact) % 4)
    try:
        base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None
    return compact


def data_url(mime_type: str, payload: str) -> str:
    """Build a ``data:<mime>;base64,<payload>`` URL."""
    return f"data:{mime_type};base64,{payload}"


def parse_data_url(url: str) -> tuple[str | None, str] | None:
    """Split a base64 data URL into its MIME type (if any) and payload.

    Returns ``None`` when ``url`` is not a data URL or is not base64-encoded.
    """
    match = _DATA_URL_PATTERN.match(url.strip()) if isinstance(url, str) else None
    if match is None:
        return None
    params = [param.strip().lower() for param in match.group(2).split(";") if param.strip()]
    if "base64" not in params:
        return None
    return normalize_mime_type(match.group(1)) if match.group(1) else None, match.group(3)


def derive_filename(mime_type: str | None, preferred: str | None = None) -> str:
    """Name a file sent inline: ``preferred`` when usable, else ``document`` plus an extension."""
    if isinstance(preferred, str):
        base = preferred.replace("\\", "/").rsplit("/", 1)[-1].strip()
        if base:
            return base
    essence = normalize_mime_type(mime_type)
    extension = ""
    if essence is not None:
        extension = _DOCUMENT_EXTENSIONS.get(essence) or mimetypes.guess_extension(essence) or ""
    return f"{_DEFAULT_FILE_STEM}{extension}"


def filename_hint(metadata: Any) -> str | None:
    """Read a file name a client put in a part's metadata (``filename`` or ``name``)."""
    if not isinstance(metadata, Mapping):
        return None
    for key in ("filename", "fileName", "name"):
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


# --- inline data -------------------------------------------------------------------------------


def _inline_data(source: PartSource, kind: str) -> tuple[str, str] | None:
    """Resolve a data source (or a data URL) into ``(mime_type, base64_payload)``.

    Logs a warning and returns ``None`` for malformed base64 or a missing MIME type.
    """
    if isinstance(source, DataSource):
        raw_mime, raw_payload = source.mime_type, source.value
    else:
        parsed = parse_data_url(source.value)
        if parsed is None:
            logger.warning("Skipping %s part: its data URL is not base64-encoded.", kind)
            return None
        raw_mime = parsed[0] or source.mime_type or ""
        raw_payload = parsed[1]
    mime_type = normalize_mime_type(raw_mime)
    if mime_type is None:
        logger.warning("Skipping %s part: unknown MIME type %r.", kind, raw_mime)
        return None
    payload = normalize_base64(raw_payload)
    if payload is None:
        logger.warning("Skipping %s part: its data is not valid base64.", kind)
        return None
    return mime_type, payload


def _is_data_url(source: PartSource) -> bool:
    return isinstance(source, UrlSource) and source.value.strip().lower().startswith("data:")


def _usable_url(source: UrlSource, kind: str) -> str | None:
    url = source.value.strip()
    if not url:
        logger.warning("Skipping %s part: empty URL.", kind)
        return None
    return url


def _usable_file_id(source: FileSource, kind: str) -> str | None:
    """Return the provider file handle when OpenAI can resolve it."""
    provider = (source.provider or _OPENAI_PROVIDER).strip().lower()
    if provider != _OPENAI_PROVIDER:
        logger.warning(
            "Skipping %s part: its file handle belongs to provider %r, not OpenAI.",
            kind,
            source.provider,
        )
        return None
    if not source.value.strip():
        logger.warning("Skipping %s part: empty file handle.", kind)
        return None
    return source.value.strip()


# --- part builders -----------------------------------------------------------------------------


def text_input(text: str) -> ResponseInputTextParam | None:
    """An ``input_text`` part; ``None`` for empty text."""
    if not isinstance(text, str) or not text:
        return None
    return {"type": "input_text", "text": text}


def image_input(source: PartSource) -> ResponseInputImageParam | None:
    """An ``input_image`` part from inline data (as a data URL), a URL or an OpenAI file id."""
    if isinstance(source, DataSource) or _is_data_url(source):
        inline = _inline_data(source, "image")
        if inline is None:
            return None
        mime_type, payload = inline
        if mime_type not in IMAGE_MIME_TYPES:
            logger.warning("Skipping image part: unsupported image type %r.", mime_type)
            return None
        return {"type": "input_image", "image_url": data_url(mime_type, payload), "detail": "auto"}
    if isinstance(source, UrlSource):
        url = _usable_url(source, "image")
        return None if url is None else {"type": "input_image", "image_url": url, "detail": "auto"}
    file_id = _usable_file_id(source, "image")
    if file_id is None:
        return None
    return {"type": "input_image", "file_id": file_id, "detail": "auto"}


def document_input(
    source: PartSource, filename: str | None = None
) -> ResponseInputFileParam | None:
    """An ``input_file`` part: ``file_data`` (a data URL plus a file name), ``file_url`` or
    ``file_id``, depending on the source."""
    if isinstance(source, DataSource) or _is_data_url(source):
        inline = _inline_data(source, "document")
        if inline is None:
            return None
        mime_type, payload = inline
        return {
            "type": "input_file",
            "file_data": data_url(mime_type, payload),
            "filename": derive_filename(mime_type, filename),
        }
    if isinstance(source, UrlSource):
        url = _usable_url(source, "document")
        return None if url is None else {"type": "input_file", "file_url": url}
    file_id = _usable_file_id(source, "document")
    return None if file_id is None else {"type": "input_file", "file_id": file_id}


def audio_input(source: PartSource) -> ResponseInputAudioParam | None:
    """An ``input_audio`` part from inline WAV or MP3 data; audio by URL or file is skipped."""
    if not (isinstance(source, DataSource) or _is_data_url(source)):
        logger.debug("Skipping audio part: only inline audio data can be sent to the model.")
        return None
    inline = _inline_data(source, "audio")
    if inline is None:
        return None
    mime_type, payload = inline
    audio_format = AUDIO_FORMATS.get(mime_type)
    if audio_format is None:
        logger.warning("Skipping audio part: unsupported type %r (WAV or MP3 only).", mime_type)
        return None
    return {"type": "input_audio", "input_audio": {"data": payload, "format": audio_format}}


def _binary_source(part: BinaryInputContent) -> PartSource | None:
    """The modern source equivalent to a legacy binary part's ``data``, ``url`` or ``id``."""
    if part.data:
        return DataSource(value=part.data, mime_type=part.mime_type)
    if part.url:
        return UrlSource(value=part.url, mime_type=part.mime_type)
    if part.id:
        return FileSource(value=part.id, mime_type=part.mime_type)
    return None


def binary_input(part: BinaryInputContent) -> InputContent | None:
    """Map a legacy binary part by its MIME type: image, audio, or any other file."""
    mime_type = normalize_mime_type(part.mime_type)
    if mime_type is None:
        logger.warning("Skipping binary part: unknown MIME type %r.", part.mime_type)
        return None
    source = _binary_source(part)
    if source is None:
        logger.warning("Skipping binary part: it has no data, URL or id.")
        return None
    top_level = mime_type.split("/", 1)[0]
    if top_level == "image":
        return image_input(source)
    if top_level == "audio":
        return audio_input(source)
    if top_level == "video":
        logger.debug("Skipping binary video part: model input has no video content.")
        return None
    return document_input(source, part.filename)
