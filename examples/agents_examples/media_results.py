"""Pictures in tool results, and a hosted tool at work.

``draw_chart`` returns a caption and a bar chart (``ToolOutputText`` + ``ToolOutputImage``, a
PNG drawn in pure Python): an AG-UI 1.0 client gets them as a ``TextPart`` and an ``ImagePart``.
The hosted ``image_generation`` tool makes pictures: a 1.0 client follows it as an
``image_generation`` activity (partial images as they arrive) and gets the image as the call's
result. A client older than 1.0 gets text and no activity. Offline, the demo model calls the
chart tool for "chart" and "generates" a picture for "image" or "picture".
"""

from __future__ import annotations

import base64
from typing import Any

from ag_ui_openai_agents import OpenAIAgentsAgent, add_openai_agents_fastapi_endpoint
from agents import Agent, ImageGenerationTool, ToolOutputImage, ToolOutputText, function_tool
from fastapi import FastAPI

from pictures import bar_chart_png

from .settings import ExampleSettings, browser_thread_key

KEEPS_THREADS = True
"""Served by OpenAIAgentsAgent, which keeps the thread when the settings name a store."""

DESCRIPTION = "Images in tool results (draw_chart) and a generated image, with live activities."

MONTHLY: dict[str, list[float]] = {
    "sales": [12, 15, 11, 18, 21, 25],
    "visitors": [340, 410, 380, 520, 610, 590],
    "signups": [21, 19, 27, 33, 31, 40],
}
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]


@function_tool
def draw_chart(metric: str) -> list[ToolOutputText | ToolOutputImage]:
    """Draw a bar chart of a monthly metric (sales, visitors or signups) for January to June.

    Args:
        metric: The metric to chart: sales, visitors or signups.
    """
    words = metric.lower()
    name = next((known for known in MONTHLY if known in words), "sales")
    values = MONTHLY[name]
    picture = base64.b64encode(bar_chart_png(values)).decode()
    caption = f"Monthly {name}, {MONTHS[0]} to {MONTHS[-1]}: " + ", ".join(
        f"{month} {value:g}" for month, value in zip(MONTHS, values, strict=True)
    )
    image = ToolOutputImage(image_url=f"data:image/png;base64,{picture}", detail="low")
    return [ToolOutputText(text=caption), image]


def build_agent(settings: ExampleSettings) -> Agent[Any]:
    """An analyst that charts metrics and makes pictures."""
    picture_tool = ImageGenerationTool(
        tool_config={"type": "image_generation", "partial_images": 2, "size": "1024x1024"}
    )
    return Agent(
        name="Analyst",
        instructions=(
            "Use draw_chart when the user asks for a chart of sales, visitors or signups. "
            "Use the image generation tool when the user asks for an image or a picture. "
            "Then say in one sentence what you made."
        ),
        tools=[draw_chart, picture_tool],
        model=settings.model,
    )


def mount(app: FastAPI, path: str, settings: ExampleSettings) -> None:
    """Add ``POST path``, ``GET path/health`` and (with a thread store) ``GET path/media/{id}``."""
    wrapped = OpenAIAgentsAgent(
        build_agent(settings),
        name="media_results",
        description=DESCRIPTION,
        run_config=settings.run_config,
        threads=settings.threads,  # kept on the server when the settings name a store
        thread_key=browser_thread_key,
    )
    add_openai_agents_fastapi_endpoint(app, wrapped, path)
