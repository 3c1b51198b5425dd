"""What the demo model tells about attached files, from the parts the package sends it."""

from __future__ import annotations

import struct

from demo_attachments import Attachment, attachment_of, describe
from demo_conversation import read_conversation
from dojo_pages import b64, png


def test_an_image_gives_its_type_size_and_dimensions() -> None:
    picture = png(64, 48)
    part = {"type": "input_image", "image_url": f"data:image/png;base64,{b64(picture)}"}
    found = attachment_of(part)
    assert found == Attachment("image", "image/png", len(picture), dimensions=(64, 48))
    assert describe(found) == f"an image (image/png, {len(picture)} bytes, 64 x 48 pixels)"


def test_gif_and_jpeg_headers_give_dimensions_too() -> None:
    gif = b"GIF89a" + struct.pack("<HH", 10, 20) + b"\x00" * 8
    jpeg = b"\xff\xd8\xff\xe0\x00\x04\x00\x00\xff\xc0\x00\x0b\x08" + struct.pack(">HH", 30, 40)
    for data, mime, size in ((gif, "image/gif", (10, 20)), (jpeg, "image/jpeg", (40, 30))):
        part = {"type": "input_image", "image_url": f"data:{mime};base64,{b64(data)}"}
        assert (attachment_of(part) or Attachment("", "", 0)).dimensions == size


def test_a_text_document_gives_its_name_and_first_words() -> None:
    text = "one two three four five six seven eight nine ten eleven twelve thirteen"
    part = {
        "type": "input_file",
        "file_data": f"data:text/plain;base64,{b64(text.encode())}",
        "filename": "notes.txt",
    }
    found = attachment_of(part)
    assert (
        found is not None
        and found.preview == "one two three four five six seven eight nine ten eleven twelve…"
    )
    assert describe(found).startswith(
        f"a document “notes.txt” (text/plain, {len(text)} bytes) that begins"
    )


def test_other_sources_and_parts() -> None:
    assert attachment_of({"type": "input_text", "text": "hi"}) is None
    assert attachment_of({"type": "input_image", "image_url": "https://x/y.png"}) == Attachment(
        "image", "image", 0
    )
    by_id = attachment_of({"type": "input_file", "file_id": "file-1"})
    assert by_id == Attachment("document", "file", 0)
    audio = attachment_of({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}})
    assert audio == Attachment("audio", "audio/wav", 3)
    assert describe(audio) == "an audio (audio/wav, 3 bytes)"


def test_only_the_last_user_message_attachments_count() -> None:
    image = {"type": "input_image", "image_url": f"data:image/png;base64,{b64(png(2, 2))}"}
    items: list[dict[str, object]] = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "a"}, image],
        },
        {"type": "message", "role": "assistant", "content": "ok"},
        {"type": "message", "role": "user", "content": "and now?"},
    ]
    assert read_conversation("", items).attachments == ()
    assert len(read_conversation("", items[:1]).attachments) == 1
