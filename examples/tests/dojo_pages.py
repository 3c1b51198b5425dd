"""What the AG-UI Dojo's pages for the newer examples send: their frontend tools, their initial
states and the attachments CopilotKit's chat builds, in the shapes the pages use."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

from ag_ui.core import (
    Context,
    DataSource,
    DocumentPart,
    ImagePart,
    TextInputContent,
    Tool,
    UserMessage,
)

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


# --- predictive_state_updates --------------------------------------------------------------------

WRITE_DOCUMENT = Tool(
    name="write_document",
    description="Present the proposed changes to the user for review",
    parameters={
        "type": "object",
        "properties": {
            "document": {
                "type": "string",
                "description": "The full updated document in markdown format",
            }
        },
        "required": ["document"],
    },
)
CONFIRM_CHANGES = Tool(
    name="confirm_changes", description="", parameters={"type": "object", "properties": {}}
)
"""The document editor's two frontend tools, both rendered as Confirm / Reject; the second,
registered without a description or parameters, is the one the agent calls after writing."""

DOCUMENT_STATE: dict[str, Any] = {"document": ""}
"""The document editor's state before anything is written."""


# --- A2UI ----------------------------------------------------------------------------------------

DYNAMIC_CATALOG_ID = "https://a2ui.org/demos/dojo/dynamic_catalog.json"
A2UI_MARK: dict[str, Any] = {"injectA2UITool": True}
"""``forwardedProps`` of a request ``@ag-ui/a2ui-middleware`` marked (``injectA2UITool``)."""
RENDER_A2UI = Tool(
    name="render_a2ui",
    description=(
        "Render a dynamic A2UI v0.9 surface with structured parameters. Follow the A2UI render "
        "tool usage guide provided in context."
    ),
    parameters={
        "type": "object",
        "properties": {
            "surfaceId": {"type": "string", "description": "Unique surface identifier."},
            "components": {"type": "array", "items": {"type": "object"}},
            "data": {"type": "object"},
        },
        "required": ["surfaceId", "components"],
    },
)
"""The client tool the middleware adds to a request it marks."""
_CARD = {"type": "object", "properties": {"name": {}, "action": {}}}
A2UI_CONTEXT = [
    Context(
        description="A2UI render tool usage guide — how to call render_a2ui with valid arguments.",
        value='## How to call render_a2ui\n1. The root component must have id "root".',
    ),
    Context(
        description=(
            "A2UI Component Schema — available components for generating UI surfaces. "
            "Use these component names and properties when creating A2UI operations."
        ),
        value=json.dumps(
            {
                "catalogId": DYNAMIC_CATALOG_ID,
                "components": {
                    "Row": {"type": "object", "properties": {"children": {}, "gap": {}}},
                    "HotelCard": _CARD,
                    "ProductCard": _CARD,
                    "TeamMemberCard": _CARD,
                },
            }
        ),
    ),
]
"""The context entries the middleware adds: how to call its tool, and the page's catalog."""
