"""What the AG-UI Dojo's pages for the newer examples send: their frontend tools, their initial
states and the attachments CopilotKit's chat builds, in the shapes the pages use."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

from ag_ui.core import DataSource, DocumentPart, ImagePart, TextInputContent, Tool, UserMessage

CHANGE_BACKGROUND = Tool(
    name="change_background",
    description=(
        "Change the background color of the chat. Can be anything that the CSS background "
        "attribute accepts. Regular colors, linear or radial gradients etc."
    ),
    parameters={
        "type": "object",
        "properties": {
            "background": {"type": "string", "description": "The background. Prefer gradients."}
        },
        "required": ["background"],
    },
)
"""The frontend tool the reasoning and multimodal pages declare."""

RECIPE_STATE: dict[str, Any] = {
    "recipe": {
        "title": "Make Your Recipe",
        "skill_level": "Intermediate",
        "cooking_time": "45 min",
        "special_preferences": [],
        "ingredients": [
            {"icon": "🥕", "name": "Carrots", "amount": "3 large, grated"},
            {"icon": "🌾", "name": "All-Purpose Flour", "amount": "2 cups"},
        ],
        "instructions": ["Preheat oven to 350°F (175°C)"],
    }
}
"""The recipe page's state before the first message."""

TRAVEL_STATE: dict[str, Any] = {
    "itinerary": {},
    "experiences": [],
    "flights": [],
    "hotels": [],
    "planning_step": "start",
    "active_agent": "supervisor",
}
"""The subgraphs page's state before the first message."""


def png(width: int, height: int) -> bytes:
    """A valid grey PNG image of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


NOTES = "Shopping list: eggs, flour, milk, butter and a little sugar for the pancakes."


def attachment_message(message_id: str, text: str, *, image: bytes | None = None) -> UserMessage:
    """A user message as CopilotKit's chat sends it with an image and a text document attached:
    the text first, then one part per file, its data inline and its file name in metadata."""
    picture = image if image is not None else png(4, 3)
    return UserMessage(
        id=message_id,
        role="user",
        content=[
            TextInputContent(type="text", text=text),
            ImagePart(
                type="image",
                source=DataSource(type="data", value=b64(picture), mime_type="image/png"),
                metadata={"filename": "photo.png"},
            ),
            DocumentPart(
                type="document",
                source=DataSource(type="data", value=b64(NOTES.encode()), mime_type="text/plain"),
                metadata={"filename": "notes.txt"},
            ),
        ],
    )


def attachment_parts_json(text: str) -> list[dict[str, Any]]:
    """The same content as plain JSON, for the real clients' scenarios."""
    content = attachment_message("m", text).content
    assert isinstance(content, list)
    return [part.model_dump(mode="json", by_alias=True, exclude_none=True) for part in content]
