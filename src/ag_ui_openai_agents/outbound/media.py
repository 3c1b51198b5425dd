"""Internal: tool outputs and hosted results with media, as AG-UI 1.0 content parts.

A function tool may return ``ToolOutputText`` / ``ToolOutputImage`` / ``ToolOutputFileContent``
(or their dict forms, or a list of them); the SDK gives the model the Responses form of each
(``input_text`` / ``input_image`` / ``input_file``). :func:`tool_output_parts` (in
``inbound/tool_output.py``, so that a resumed approval's output is converted alike) turns that
form into ``TextPart`` / ``ImagePart`` / ``DocumentPart`` so a 1.0 client can show it; an output
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
from collections.abc import Sequence
from typing import Any

from ag_ui.core import (
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
)

from ag_ui_openai_agents.inbound.tool_output import ResultPart, entry_part, tool_output_parts
from ag_ui_openai_agents.protocol import item_field as _field

__all__ = ["ResultPart", "entry_part", "hosted_result_parts", "tool_output_parts"]

_OPENAI = "openai"

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
