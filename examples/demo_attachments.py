"""What the offline demo model can tell about the files attached to a user message.

It cannot see an image or read a PDF, but it can say what it was given: the kind of file, its
type and size, an image's dimensions (PNG, GIF and JPEG headers), a document's name, and the
first words of a plain-text document. Parts come as the package sends them to the model:
``input_image`` with a data URL, ``input_file`` with ``file_data`` (a data URL) and a name,
``input_audio`` with base64 data.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Attachment", "attachment_of", "describe"]

_DATA_URL = re.compile(r"^data:([^;,]*)(?:;[^,]*)?,(.*)$", re.DOTALL)
_TEXT_TYPES = ("text/", "application/json")
_PREVIEW_WORDS = 12


@dataclass(frozen=True)
class Attachment:
    """One attached file, as far as the demo model can tell."""

    kind: str
    """``image``, ``document`` or ``audio``."""
    mime_type: str
    size: int
    """Bytes, 0 when only a URL or a file id was sent."""
    name: str | None = None
    dimensions: tuple[int, int] | None = None
    preview: str | None = None
    """The first words of a plain-text document."""


def _decode(url: str) -> tuple[str, bytes] | None:
    match = _DATA_URL.match(url.strip())
    if match is None:
        return None
    try:
        return match.group(1) or "application/octet-stream", base64.b64decode(match.group(2))
    except (binascii.Error, ValueError):
        return None


def _dimensions(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG, GIF or baseline JPEG header."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    index = 2
    while data.startswith(b"\xff\xd8") and index + 9 <= len(data):
        if data[index] != 0xFF:
            return None
        marker, length = data[index + 1], int.from_bytes(data[index + 2 : index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return int(width), int(height)
        index += 2 + length
    return None


def _preview(mime_type: str, data: bytes) -> str | None:
    if not mime_type.startswith(_TEXT_TYPES):
        return None
    words = data.decode("utf-8", errors="replace").split()
    if not words:
        return None
    head = " ".join(words[:_PREVIEW_WORDS])
    return head + ("…" if len(words) > _PREVIEW_WORDS else "")


def attachment_of(part: Mapping[str, Any]) -> Attachment | None:
    """The attachment an input content part carries, or None for text and unknown parts."""
    kind = part.get("type")
    if kind == "input_image":
        decoded = _decode(str(part.get("image_url") or ""))
        if decoded is None:
            return Attachment("image", "image", 0)
        mime_type, data = decoded
        return Attachment("image", mime_type, len(data), dimensions=_dimensions(data))
    if kind == "input_file":
        name = part.get("filename")
        decoded = _decode(str(part.get("file_data") or ""))
        if decoded is None:
            return Attachment("document", "file", 0, name=name if isinstance(name, str) else None)
        mime_type, data = decoded
        preview = _preview(mime_type, data)
        named = name if isinstance(name, str) else None
        return Attachment("document", mime_type, len(data), name=named, preview=preview)
    if kind == "input_audio":
        audio = part.get("input_audio")
        raw = audio.get("data") if isinstance(audio, Mapping) else None
        size = len(raw) * 3 // 4 if isinstance(raw, str) else 0
        fmt = audio.get("format") if isinstance(audio, Mapping) else None
        return Attachment("audio", f"audio/{fmt or 'unknown'}", size)
    return None


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size} bytes"


def describe(attachment: Attachment) -> str:
    """One phrase: "an image (image/png, 1.2 KB, 64 x 48 pixels)", "a document “notes.txt” …"."""
    details = [attachment.mime_type]
    if attachment.size:
        details.append(_size(attachment.size))
    if attachment.dimensions:
        details.append(f"{attachment.dimensions[0]} x {attachment.dimensions[1]} pixels")
    article = "an" if attachment.kind[0] in "aeiou" else "a"
    name = f" “{attachment.name}”" if attachment.name else ""
    text = f"{article} {attachment.kind}{name} ({', '.join(details)})"
    if attachment.preview:
        text += f" that begins “{attachment.preview}”"
    return text
