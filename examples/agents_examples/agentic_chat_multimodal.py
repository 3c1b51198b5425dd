"""Agentic chat with attachments: images and documents sent with the user's message.

CopilotKit's chat (``attachments={{ enabled: true }}``) sends each attachment as an AG-UI
content part after the text: ``{"type": "image" | "document" | ..., "source": {"type":
"data", "value": <base64>, "mimeType": ...}, "metadata": {"filename": ...}}``. The package turns
an image into an ``input_image`` (a data URL), a document into an ``input_file`` (with its file
name), and leaves out what OpenAI's input cannot hold (video, audio by URL), so the model sees
the attachment itself.

Every request carries the whole history, so each earlier attachment is sent again with every
turn. The route accepts bodies up to :data:`MAX_REQUEST_BYTES` (the package's default is 8 MiB);
a larger one gets HTTP 413 before anything runs.
"""

from __future__ import annotations

from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent
from fastapi import FastAPI

from .settings import ExampleSettings, browser_thread_key

DESCRIPTION = "Images and documents attached to a message, described by a vision model."
KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""
MAX_REQUEST_BYTES = 24 * 1024 * 1024
"""A few photos or PDFs, base64-encoded, with the conversation around them."""


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """An assistant that looks at what the user attaches (the default model reads images
    and PDF files)."""
    return Agent(
        name="Multimodal assistant",
        instructions=(
            "You are a helpful assistant that can look at images and read documents. When the "
            "user shares an image, describe what you see, specifically. When they share a "
            "document, summarise it. Say so when an attachment could not be read. When the user "
            "asks to change the background, call change_background with a CSS background."
        ),
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path`` (bodies up to :data:`MAX_REQUEST_BYTES`), ``GET path/health`` and
    ``GET path/capabilities``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="agentic_chat_multimodal",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path, max_request_bytes=MAX_REQUEST_BYTES)
