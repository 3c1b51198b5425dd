"""Tool results with media: content parts for a 1.0 client, today's text for an older one,
and the next request sends the model exactly what it saw, on both request kinds.

Every run goes through the real ``Runner.run_streamed`` on the scripted model, whose every
request passes the Responses input checker (``support.responses_input``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import (
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    Message,
    TextPart,
    ToolCallResultEvent,
    ToolMessage,
    UrlSource,
)
from agents import (
    Agent,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
    set_tracing_disabled,
)

from support.runs import AguiRun, request, run_agui, user
from support.scripted import Call, Hosted, Text, Turn

set_tracing_disabled(True)

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"
    "hQGAhKmMIQAAAABJRU5ErkJggg=="
)
PNG_URL = f"data:image/png;base64,{PNG}"
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCg=="
KINDS = ["1.0", None]

# What a tool returns -> what the model is given (the SDK's Responses form of it).
OUTPUTS: dict[str, tuple[Any, list[dict[str, Any]]]] = {
    "image data": (
        ToolOutputImage(image_url=PNG_URL),
        [{"type": "input_image", "image_url": PNG_URL}],
    ),
    "image url with detail": (
        ToolOutputImage(image_url="https://example.org/c.png", detail="high"),
        [{"type": "input_image", "image_url": "https://example.org/c.png", "detail": "high"}],
    ),
    "image file id": (
        ToolOutputImage(file_id="file-img"),
        [{"type": "input_image", "file_id": "file-img"}],
    ),
    "image dict": (
        {"type": "image", "image_url": PNG_URL, "detail": "low"},
        [{"type": "input_image", "image_url": PNG_URL, "detail": "low"}],
    ),
    "file data": (
        ToolOutputFileContent(file_data=f"data:application/pdf;base64,{PDF}", filename="r.pdf"),
        [
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF}",
                "filename": "r.pdf",
            }
        ],
    ),
    "file raw base64": (
        ToolOutputFileContent(file_data=PDF),
        [{"type": "input_file", "file_data": PDF}],
    ),
    "file url": (
        ToolOutputFileContent(file_url="https://example.org/r.pdf"),
        [{"type": "input_file", "file_url": "https://example.org/r.pdf"}],
    ),
    "file dict by id": (
        {"type": "file", "file_id": "file-doc", "filename": "notes.txt"},
        [{"type": "input_file", "file_id": "file-doc", "filename": "notes.txt"}],
    ),
    "text and image list": (
        [ToolOutputText(text="The chart:"), ToolOutputImage(image_url=PNG_URL, detail="auto")],
        [
            {"type": "input_text", "text": "The chart:"},
            {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
        ],
    ),
    "dict list": (
        [{"type": "text", "text": "Both:"}, {"type": "file", "file_url": "https://e.org/a"}],
        [
            {"type": "input_text", "text": "Both:"},
            {"type": "input_file", "file_url": "https://e.org/a"},
        ],
    ),
}


def _agent(output: Any) -> Agent[Any]:
    @function_tool
    def draw(topic: str) -> Any:
        """Draw something."""
        return output

    return Agent(name="artist", tools=[draw])


def _turns() -> list[Turn]:
    return [Turn([Call("draw", {"topic": "sales"}, call_id="call_1")]), Turn([Text("Here.")])]


def _result(run: AguiRun) -> ToolCallResultEvent:
    (result,) = run.of(ToolCallResultEvent)
    return result


def _tool_message(messages: list[Message]) -> ToolMessage:
    (message,) = [m for m in messages if isinstance(m, ToolMessage)]
    return message


def _function_output(items: list[dict[str, Any]]) -> Any:
    (output,) = [item["output"] for item in items if item.get("type") == "function_call_output"]
    return output


@pytest.mark.parametrize("name", sorted(OUTPUTS))
async def test_a_tool_output_with_media_is_parts_for_1_0_and_text_before(name: str) -> None:
    given, seen = OUTPUTS[name]
    new = await run_agui(_agent(given), request(protocol_version="1.0"), _turns())
    old = await run_agui(_agent(given), request(protocol_version=None), _turns())
    assert new.model is not None and old.model is not None
    assert _function_output(new.model.calls[1].input) == seen  # what the model saw
    parts = _result(new).content
    assert isinstance(parts, list) and len(parts) == len(seen)
    assert [p.type for p in parts] == [
        {"input_text": "text", "input_image": "image", "input_file": "document"}[s["type"]]
        for s in seen
    ]
    assert _tool_message(new.snapshot).content == parts
    assert _result(old).content == json.dumps(seen)  # unchanged for clients before 1.0
    assert _tool_message(old.snapshot).content == json.dumps(seen)


async def test_image_parts_carry_their_source_and_metadata() -> None:
    given = [
        ToolOutputImage(image_url=PNG_URL, detail="high"),
        ToolOutputImage(image_url="https://example.org/c.png"),
        ToolOutputImage(file_id="file-img"),
        ToolOutputFileContent(file_data=f"data:application/pdf;base64,{PDF}", filename="r.pdf"),
        ToolOutputFileContent(file_data=PDF, filename="raw.pdf"),
    ]
    run = await run_agui(_agent(given), request(), _turns())
    data, url, file, doc, raw = _result(run).content  # type: ignore[misc]
    assert isinstance(data, ImagePart) and data.source == DataSource(
        value=PNG, mime_type="image/png"
    )
    assert data.metadata == {"detail": "high", "openai": {"v": 1}}
    assert isinstance(url, ImagePart) and url.source == UrlSource(value="https://example.org/c.png")
    assert isinstance(file, ImagePart)
    assert file.source == FileSource(value="file-img", provider="openai")
    assert isinstance(doc, DocumentPart)
    assert doc.source == DataSource(value=PDF, mime_type="application/pdf")
    assert doc.metadata == {"filename": "r.pdf", "openai": {"v": 1}}
    assert isinstance(raw, DocumentPart)
    assert raw.source == DataSource(value=PDF, mime_type="application/pdf")
    assert raw.metadata == {"filename": "raw.pdf", "openai": {"v": 1, "raw": True}}


@pytest.mark.parametrize("kind", KINDS)
async def test_text_only_structured_output_stays_text(kind: str | None) -> None:
    given = [ToolOutputText(text="one"), ToolOutputText(text="two")]
    run = await run_agui(_agent(given), request(protocol_version=kind), _turns())
    seen = [{"type": "input_text", "text": "one"}, {"type": "input_text", "text": "two"}]
    assert _result(run).content == json.dumps(seen)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(OUTPUTS))
async def test_the_next_turn_sends_the_model_exactly_what_it_saw(
    name: str, kind: str | None
) -> None:
    given, seen = OUTPUTS[name]
    first = await run_agui(_agent(given), request(protocol_version=kind), _turns())
    history = [*first.snapshot, user("And now?", id="user-2")]
    second = await run_agui(
        _agent(given),
        request(*history, protocol_version=kind),
        [Turn([Text("Fine.", id="msg_next")])],
    )
    assert second.model is not None
    assert _function_output(second.model.calls[0].input) == seen


@pytest.mark.parametrize("kind", KINDS)
async def test_client_written_parts_keep_the_ordinary_translation(kind: str | None) -> None:
    """Parts without the package's mark (a frontend tool's result) are translated as user
    content is: a default detail, a derived file name."""
    first = await run_agui(_agent(OUTPUTS["image data"][0]), request(), _turns())
    history = list(first.snapshot)
    message = _tool_message(history)
    written = ToolMessage(
        id=message.id,
        tool_call_id=message.tool_call_id,
        content=[
            ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
            DocumentPart(source=DataSource(value=PDF, mime_type="application/pdf")),
        ],
    )
    history[history.index(message)] = written
    second = await run_agui(
        _agent(None),
        request(*history, user("More?", id="user-2"), protocol_version=kind),
        [Turn([Text("Fine.", id="msg_next")])],
    )
    assert second.model is not None
    assert _function_output(second.model.calls[0].input) == [
        {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF}",
            "filename": "document.pdf",
        },
    ]


# --- hosted results ---------------------------------------------------------------------------


def _hosted_turns(*items: Any) -> list[Turn]:
    return [Turn([*items, Text("Done.")])]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_generated_image_is_an_image_part(kind: str | None) -> None:
    hosted = Hosted(
        "image_generation_call", id="ig_1", result=PNG, output_format="png", revised_prompt="A cat"
    )
    run = await run_agui(Agent(name="a"), request(protocol_version=kind), _hosted_turns(hosted))
    status = json.dumps({"status": "completed"})
    content = _result(run).content
    if kind is None:
        assert content == status
    else:
        assert content == [
            TextPart(text=status),
            ImagePart(
                source=DataSource(value=PNG, mime_type="image/png"),
                metadata={"revisedPrompt": "A cat"},
            ),
        ]
    assert _tool_message(run.snapshot).content == content


@pytest.mark.parametrize("kind", KINDS)
async def test_code_interpreter_logs_are_text_and_its_images_parts(kind: str | None) -> None:
    outputs = [{"type": "logs", "logs": "42\n"}, {"type": "image", "url": "https://e.org/p.png"}]
    hosted = Hosted("code_interpreter_call", id="ci_1", code="print(42)", outputs=outputs)
    run = await run_agui(Agent(name="a"), request(protocol_version=kind), _hosted_turns(hosted))
    status = json.dumps({"status": "completed"})
    content = _result(run).content
    if kind is None:
        assert content == status
    else:
        assert content == [
            TextPart(text=status),
            TextPart(text="42\n"),
            ImagePart(source=UrlSource(value="https://e.org/p.png")),
        ]


@pytest.mark.parametrize("kind", KINDS)
async def test_hosted_results_never_become_function_call_output(kind: str | None) -> None:
    outputs = [{"type": "logs", "logs": "42\n"}]
    turns = _hosted_turns(
        Hosted("image_generation_call", id="ig_1", result=PNG, output_format="png"),
        Hosted("code_interpreter_call", id="ci_1", code="print(42)", outputs=outputs),
    )
    first = await run_agui(Agent(name="a"), request(protocol_version=kind), turns)
    history = [*first.snapshot, user("Again", id="user-2")]
    second = await run_agui(
        Agent(name="a"),
        request(*history, protocol_version=kind),
        [Turn([Text("Ok.", id="msg_next")])],
    )
    assert second.model is not None
    sent = second.model.calls[0].input
    assert [item.get("type") for item in sent if item.get("type") not in (None, "message")] == [
        "image_generation_call",
        "code_interpreter_call",
    ]
    assert next(i for i in sent if i.get("type") == "image_generation_call")["result"] == PNG
