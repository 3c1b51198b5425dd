"""Multimodal input: one test per row of the content table, round-tripped through a real run.

Each user message is translated, fed to ``Runner.run_streamed`` with a scripted model, and the
model must receive exactly the expected content parts. Bad parts are skipped, never raised.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

import pytest
from ag_ui.core import (
    AudioPart,
    BinaryInputContent,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
    UserMessage,
    VideoPart,
)
from agents import Agent, set_tracing_disabled

from ag_ui_openai_agents.inbound.content import (
    data_url,
    derive_filename,
    normalize_base64,
    normalize_mime_type,
    parse_data_url,
)
from ag_ui_openai_agents.inbound.messages import AGUIToOpenAITranslator
from support.scripted import Text, Turn, collect, run_streamed

set_tracing_disabled(True)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()
PDF = base64.b64encode(b"%PDF-1.7 fake document").decode()
WAV = base64.b64encode(b"RIFF\x00\x00\x00\x00WAVEfmt fake").decode()
MP3 = base64.b64encode(b"ID3\x03\x00fake-mp3").decode()
CONTENT_LOGGER = "ag_ui_openai_agents.inbound.content"
QUESTION = {"type": "input_text", "text": "Look:"}


def user(*parts: Any) -> UserMessage:
    return UserMessage(id="user-1", content=[TextPart(text="Look:"), *parts])


def legacy_user(*parts: Any) -> UserMessage:
    """A user message carrying legacy binary parts, which 1.0 validation no longer admits."""
    return UserMessage.model_construct(id="user-1", role="user", content=[*parts])


async def received_by_model(message: UserMessage) -> list[dict[str, Any]]:
    """Translate one user message, run it, and return what the model received."""
    items = AGUIToOpenAITranslator().translate_messages([message])
    result, model = run_streamed(Agent(name="vision"), items, turns=[Turn([Text("ok")])])
    await collect(result.stream_events())
    assert model.calls[0].input == items
    return model.calls[0].input


async def assert_parts(message: UserMessage, expected_parts: list[dict[str, Any]]) -> None:
    assert await received_by_model(message) == [{"role": "user", "content": expected_parts}]


# --- one test per table row ------------------------------------------------------------------


async def test_text_part_becomes_input_text() -> None:
    await assert_parts(
        UserMessage(id="u", content=[TextPart(text="Hello"), TextPart(text="world")]),
        [{"type": "input_text", "text": "Hello"}, {"type": "input_text", "text": "world"}],
    )


async def test_image_url_becomes_input_image() -> None:
    await assert_parts(
        user(
            ImagePart(source=UrlSource(value="https://example.com/a.jpg", mime_type="image/jpeg"))
        ),
        [
            QUESTION,
            {"type": "input_image", "image_url": "https://example.com/a.jpg", "detail": "auto"},
        ],
    )


async def test_image_data_becomes_base64_data_url() -> None:
    await assert_parts(
        user(ImagePart(source=DataSource(value=PNG, mime_type="image/png"))),
        [
            QUESTION,
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
        ],
    )


async def test_image_openai_file_becomes_file_id() -> None:
    await assert_parts(
        user(ImagePart(source=FileSource(value="file-abc", provider="openai"))),
        [QUESTION, {"type": "input_image", "file_id": "file-abc", "detail": "auto"}],
    )


async def test_document_url_becomes_input_file_url() -> None:
    await assert_parts(
        user(DocumentPart(source=UrlSource(value="https://example.com/r.pdf"))),
        [QUESTION, {"type": "input_file", "file_url": "https://example.com/r.pdf"}],
    )


async def test_document_data_becomes_file_data_with_derived_filename() -> None:
    await assert_parts(
        user(DocumentPart(source=DataSource(value=PDF, mime_type="application/pdf"))),
        [
            QUESTION,
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF}",
                "filename": "document.pdf",
            },
        ],
    )


async def test_document_data_keeps_client_filename() -> None:
    await assert_parts(
        user(
            DocumentPart(
                source=DataSource(value=PDF, mime_type="application/pdf"),
                metadata={"filename": "q3-report.pdf"},
            )
        ),
        [
            QUESTION,
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF}",
                "filename": "q3-report.pdf",
            },
        ],
    )


async def test_document_file_becomes_file_id() -> None:
    await assert_parts(
        user(DocumentPart(source=FileSource(value="file-xyz"))),
        [QUESTION, {"type": "input_file", "file_id": "file-xyz"}],
    )


@pytest.mark.parametrize(
    ("mime_type", "payload", "audio_format"),
    [("audio/wav", WAV, "wav"), ("audio/x-wav", WAV, "wav"), ("audio/mpeg", MP3, "mp3")],
)
async def test_audio_data_becomes_input_audio(
    mime_type: str, payload: str, audio_format: str
) -> None:
    await assert_parts(
        user(AudioPart(source=DataSource(value=payload, mime_type=mime_type))),
        [
            QUESTION,
            {"type": "input_audio", "input_audio": {"data": payload, "format": audio_format}},
        ],
    )


async def test_audio_url_is_dropped() -> None:
    await assert_parts(
        user(AudioPart(source=UrlSource(value="https://example.com/a.wav"))), [QUESTION]
    )


async def test_video_is_dropped() -> None:
    await assert_parts(
        user(
            VideoPart(source=UrlSource(value="https://example.com/v.mp4")),
            VideoPart(source=DataSource(value=PNG, mime_type="video/mp4")),
        ),
        [QUESTION],
    )


async def test_legacy_binary_image_becomes_input_image() -> None:
    await assert_parts(
        legacy_user(BinaryInputContent(mime_type="image/png", data=PNG)),
        [{"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"}],
    )


async def test_legacy_binary_audio_becomes_input_audio() -> None:
    await assert_parts(
        legacy_user(BinaryInputContent(mime_type="audio/wav", data=WAV)),
        [{"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}}],
    )


async def test_legacy_binary_file_becomes_input_file() -> None:
    await assert_parts(
        legacy_user(
            BinaryInputContent(mime_type="application/pdf", data=PDF, filename="a.pdf"),
            BinaryInputContent(mime_type="text/plain", url="https://example.com/n.txt"),
            BinaryInputContent(mime_type="application/pdf", id="file-1"),
        ),
        [
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF}",
                "filename": "a.pdf",
            },
            {"type": "input_file", "file_url": "https://example.com/n.txt"},
            {"type": "input_file", "file_id": "file-1"},
        ],
    )


async def test_legacy_binary_as_plain_mapping_is_read() -> None:
    message = legacy_user({"type": "binary", "mimeType": "image/jpeg", "url": "https://x/y.jpg"})
    await assert_parts(
        message, [{"type": "input_image", "image_url": "https://x/y.jpg", "detail": "auto"}]
    )


async def test_mixed_parts_keep_order_and_drop_unsupported() -> None:
    await assert_parts(
        user(
            VideoPart(source=UrlSource(value="https://example.com/v.mp4")),
            ImagePart(source=UrlSource(value="https://example.com/i.png")),
            AudioPart(source=UrlSource(value="https://example.com/a.mp3")),
            TextPart(text="Thanks"),
        ),
        [
            QUESTION,
            {"type": "input_image", "image_url": "https://example.com/i.png", "detail": "auto"},
            {"type": "input_text", "text": "Thanks"},
        ],
    )


async def test_message_with_no_supported_part_is_skipped_whole() -> None:
    message = UserMessage(
        id="u-1",
        content=[
            VideoPart(source=UrlSource(value="https://example.com/v.mp4")),
            AudioPart(source=UrlSource(value="https://example.com/a.mp3")),
        ],
    )
    items = AGUIToOpenAITranslator().translate_messages(
        [UserMessage(id="u-0", content="Before"), message]
    )
    assert items == [{"role": "user", "content": "Before"}]
    result, model = run_streamed(Agent(name="vision"), items, turns=[Turn([Text("ok")])])
    await collect(result.stream_events())
    assert model.calls[0].input == [{"role": "user", "content": "Before"}]


# --- malformed input: skipped with a warning, never raised -----------------------------------

BAD_PARTS: list[tuple[str, Any]] = [
    ("image bad base64", ImagePart(source=DataSource(value="not base64!!", mime_type="image/png"))),
    ("image empty data", ImagePart(source=DataSource(value="", mime_type="image/png"))),
    ("image unknown mime", ImagePart(source=DataSource(value=PNG, mime_type="nonsense"))),
    ("image unsupported type", ImagePart(source=DataSource(value=PNG, mime_type="image/tiff"))),
    ("image bad data url", ImagePart(source=UrlSource(value="data:image/png,plain-not-b64"))),
    ("image data url bad b64", ImagePart(source=UrlSource(value="data:image/png;base64,@@@"))),
    ("image empty url", ImagePart(source=UrlSource(value="   "))),
    ("image foreign file", ImagePart(source=FileSource(value="f", provider="anthropic"))),
    (
        "document bad base64",
        DocumentPart(source=DataSource(value="%%%", mime_type="application/pdf")),
    ),
    ("document unknown mime", DocumentPart(source=DataSource(value=PDF, mime_type="pdf"))),
    ("document empty file id", DocumentPart(source=FileSource(value=" "))),
    ("audio bad base64", AudioPart(source=DataSource(value="a", mime_type="audio/wav"))),
    ("audio unsupported format", AudioPart(source=DataSource(value=WAV, mime_type="audio/ogg"))),
    ("audio unknown mime", AudioPart(source=DataSource(value=WAV, mime_type=""))),
    ("non-ascii base64", ImagePart(source=DataSource(value="ÿÿÿÿ", mime_type="image/png"))),
    ("binary bad mime", BinaryInputContent(mime_type="garbage", data=PNG)),
    ("binary bad base64", BinaryInputContent(mime_type="image/png", data="***")),
    ("binary video", BinaryInputContent(mime_type="video/mp4", data=PNG)),
    ("binary audio url", BinaryInputContent(mime_type="audio/wav", url="https://x/a.wav")),
    ("binary without source", BinaryInputContent.model_construct(mime_type="image/png")),
    ("binary mapping invalid", {"type": "binary", "mimeType": "image/png"}),
    ("unknown part type", {"type": "hologram", "value": 1}),
    ("part mapping invalid", {"type": "image", "source": {"type": "data"}}),
    ("part without type", {"text": "no discriminator"}),
    ("not a part", 42),
    ("none", None),
    ("text wrong type", TextPart.model_construct(type="text", text=None)),
    ("image source missing", ImagePart.model_construct(type="image")),
    ("source of wrong kind", ImagePart.model_construct(type="image", source="https://x")),
]


@pytest.mark.parametrize(("label", "part"), BAD_PARTS, ids=[label for label, _ in BAD_PARTS])
def test_malformed_parts_are_skipped_without_exception(label: str, part: Any) -> None:
    translator = AGUIToOpenAITranslator()
    message = legacy_user(TextPart(text="keep me"), part)
    items = translator.translate_messages([message])
    assert items == [{"role": "user", "content": [{"type": "input_text", "text": "keep me"}]}]


@pytest.mark.parametrize(
    "part",
    [
        ImagePart(source=DataSource(value="not base64!!", mime_type="image/png")),
        DocumentPart(source=DataSource(value=PDF, mime_type="???")),
        AudioPart(source=DataSource(value=WAV, mime_type="audio/flac")),
        BinaryInputContent(mime_type="garbage", data=PNG),
    ],
)
def test_malformed_parts_log_a_warning(caplog: pytest.LogCaptureFixture, part: Any) -> None:
    caplog.set_level(logging.WARNING)
    AGUIToOpenAITranslator().translate_content([part])
    assert any(record.levelno == logging.WARNING for record in caplog.records)


async def test_message_of_only_malformed_parts_is_skipped_and_run_still_works() -> None:
    bad = legacy_user(*(part for _, part in BAD_PARTS))
    items = AGUIToOpenAITranslator().translate_messages([bad, UserMessage(id="u", content="hi")])
    assert items == [{"role": "user", "content": "hi"}]
    result, model = run_streamed(Agent(name="vision"), items, turns=[Turn([Text("ok")])])
    await collect(result.stream_events())
    assert model.calls[0].input == items


# --- helpers -----------------------------------------------------------------------------------


def test_base64_is_normalised_or_rejected() -> None:
    assert normalize_base64(PNG) == PNG
    assert normalize_base64(f" {PNG[:10]}\n{PNG[10:]} ") == PNG
    assert normalize_base64(PNG.rstrip("=")) == PNG
    assert base64.b64decode(normalize_base64("YWJj") or "") == b"abc"
    for bad in ("", "   ", "abc$", "a", "ÿÿ"):
        assert normalize_base64(bad) is None


async def test_image_data_with_line_breaks_is_sent_canonical() -> None:
    wrapped = "\n".join(PNG[i : i + 8] for i in range(0, len(PNG), 8)).rstrip("=")
    await assert_parts(
        user(ImagePart(source=DataSource(value=wrapped, mime_type="IMAGE/PNG; q=1"))),
        [
            QUESTION,
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
        ],
    )


async def test_data_url_given_as_url_is_treated_as_inline_data() -> None:
    await assert_parts(
        user(
            DocumentPart(source=UrlSource(value=f"data:application/pdf;base64,{PDF}")),
            AudioPart(source=UrlSource(value=f"data:audio/mpeg;base64,{MP3}")),
        ),
        [
            QUESTION,
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF}",
                "filename": "document.pdf",
            },
            {"type": "input_audio", "input_audio": {"data": MP3, "format": "mp3"}},
        ],
    )


def test_mime_types_are_normalised() -> None:
    assert normalize_mime_type("Image/PNG") == "image/png"
    assert normalize_mime_type("text/plain; charset=utf-8") == "text/plain"
    for bad in (None, "", "png", "image/", "/png", "a b/c"):
        assert normalize_mime_type(bad) is None


def test_data_urls_are_built_and_parsed() -> None:
    url = data_url("image/png", PNG)
    assert url == f"data:image/png;base64,{PNG}"
    assert parse_data_url(url) == ("image/png", PNG)
    assert parse_data_url("data:;base64,QQ==") == (None, "QQ==")
    assert parse_data_url("data:text/plain,hello") is None
    assert parse_data_url("https://example.com") is None


def test_filenames_are_derived() -> None:
    assert derive_filename("application/pdf") == "document.pdf"
    assert derive_filename("text/markdown") == "document.md"
    assert derive_filename("application/x-unknown-kind") == "document"
    assert derive_filename("application/pdf", "reports/q3.pdf") == "q3.pdf"
    assert derive_filename(None, "  ") == "document"
