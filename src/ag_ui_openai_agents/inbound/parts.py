"""Internal: the content-part half of the inbound translator, one ``translate_*_part`` hook per
AG-UI content part kind, found through a table keyed by the part's ``type``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

from ag_ui.core import (
    AudioPart,
    BinaryInputContent,
    ContentPart,
    DocumentPart,
    ImagePart,
    TextPart,
    VideoPart,
)
from pydantic import TypeAdapter

from ag_ui_openai_agents.inbound.content import (
    InputContent,
    audio_input,
    binary_input,
    document_input,
    filename_hint,
    image_input,
    text_input,
)
from ag_ui_openai_agents.log_lines import summarise_repeats, summarised_warnings

logger = summarise_repeats(logging.getLogger(__name__))

_PART_ADAPTER: TypeAdapter[ContentPart] = TypeAdapter(ContentPart)

PartHandler: TypeAlias = Callable[[Any], InputContent | None]


def discriminator(value: Any, key: str) -> Any:
    """Read a ``role`` / ``type`` discriminator from a model or a plain mapping."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _coerce_part(part: Any) -> Any:
    """Validate a content part given as a plain mapping; models pass through."""
    if not isinstance(part, Mapping):
        return part
    if part.get("type") == "binary":
        return BinaryInputContent.model_validate(part)
    return _PART_ADAPTER.validate_python(part)


class ContentTranslation:
    """Content parts in, OpenAI input content out; a subclass overrides one hook to change one
    mapping."""

    _part_handlers: Mapping[str, PartHandler]

    def part_handlers(self) -> Mapping[str, PartHandler]:
        """The table from a part's ``type`` to its hook, bound to this translator."""
        return MappingProxyType(
            {
                "text": self.translate_text_part,
                "image": self.translate_image_part,
                "document": self.translate_document_part,
                "audio": self.translate_audio_part,
                "video": self.translate_video_part,
                "binary": self.translate_binary_part,
            }
        )

    @summarised_warnings()
    def translate_content(self, parts: Iterable[Any]) -> list[InputContent]:
        """Translate content parts in order, leaving out those that cannot be sent.

        A part that fails to translate is logged and skipped; it never fails the request. The
        same warning repeated is logged once, with the number of its repeats.
        """
        translated: list[InputContent] = []
        for part in parts:
            result = self._translate_part(part)
            if result is not None:
                translated.append(result)
        return translated

    def _translate_part(self, part: Any) -> InputContent | None:
        kind = discriminator(part, "type")
        handler = self._part_handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            logger.warning("Skipping a content part of unknown type %r.", kind)
            return None
        try:
            return handler(_coerce_part(part))
        except Exception:
            logger.warning(
                "Skipping a %r content part that could not be read.", kind, exc_info=True
            )
            return None

    def translate_text_part(self, part: TextPart) -> InputContent | None:
        """Text → ``input_text`` (empty text is left out)."""
        return text_input(part.text)

    def translate_image_part(self, part: ImagePart) -> InputContent | None:
        """Image → ``input_image``: a URL, inline data as a data URL, or an OpenAI file id."""
        return image_input(part.source)

    def translate_document_part(self, part: DocumentPart) -> InputContent | None:
        """Document → ``input_file``: ``file_url``, ``file_data`` with a file name, or
        ``file_id``."""
        return document_input(part.source, filename_hint(part.metadata))

    def translate_audio_part(self, part: AudioPart) -> InputContent | None:
        """Audio → ``input_audio`` for inline WAV / MP3 data; audio by URL is dropped."""
        return audio_input(part.source)

    def translate_video_part(self, part: VideoPart) -> InputContent | None:
        """Video has no OpenAI input part: dropped."""
        logger.debug("Dropping a video part: model input has no video content.")
        return None

    def translate_binary_part(self, part: BinaryInputContent) -> InputContent | None:
        """Legacy binary part → image, audio or file by its MIME type."""
        return binary_input(part)
