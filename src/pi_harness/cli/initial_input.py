"""The first prompt of a run: piped stdin, ``@file`` arguments and messages.

* A text file becomes ``<file name="<abs path>">\\n<content>\\n</file>\\n``.
* An image (JPEG, PNG, GIF, WebP, recognised by content) is attached as base64 image content and
  referenced as ``<file name="<abs path>"></file>\\n``; with ``images.autoResize`` it is fitted into
  2000x2000 / 4.5 MiB first and the reference carries the dimension note.
* Empty files are skipped; a missing or unreadable file stops startup (``FileArgumentError``).
* Piped stdin is read to EOF and trimmed; empty input is ignored.

The first prompt is ``stdin + file text + first message``, concatenated without separator (the
later upstream order); the remaining messages are sent one by one afterwards.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, TextIO

if TYPE_CHECKING:
    from pi_harness.ai.types import ImageContent


class FileArgumentError(Exception):
    """An ``@file`` argument that cannot be used; the caller prints ``Error: <message>``, exit 1."""


@dataclass
class ProcessedFiles:
    text: str = ""
    images: list[ImageContent] = field(default_factory=list)


@dataclass
class InitialInput:
    message: str | None
    images: list[ImageContent]
    # messages to send after the first prompt, in order
    messages: list[str]

    def prompts(self) -> list[PromptInput]:
        """The prompts to send, in order: the combined first one (with the images), then each message."""
        first = [PromptInput(self.message, list(self.images))] if self.message else []
        return [*first, *(PromptInput(text) for text in self.messages)]


@dataclass
class PromptInput:
    """One prompt a mode sends on its own at the start (``pi "do x" "then y"``)."""

    text: str
    images: list[ImageContent] = field(default_factory=list)


def _file_reference(path: str, body: str) -> str:
    return f'<file name="{path}">{body}</file>\n'


def _image_attachment(path: str, data: bytes, mime_type: str, auto_resize: bool) -> tuple[ImageContent, str]:
    from pi_harness.coding.tools.images import fit_image

    note = ""
    if auto_resize:
        fitted = fit_image(data, mime_type)
        # An image that cannot be decoded is sent as it is, like the read tool does.
        if fitted is not None:
            data, mime_type = fitted.data, fitted.mime_type
            if fitted.resized:
                note = fitted.dimension_note()
    import base64  # only an @image argument needs it

    image: ImageContent = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}
    return image, _file_reference(path, note)


def process_file_arguments(paths: list[str], *, cwd: str | None = None, auto_resize: bool = True) -> ProcessedFiles:
    """Read the ``@file`` arguments (without their ``@``) in order."""
    from pi_harness.coding.tools.images import SNIFF_BYTES, detect_image_mime_type
    from pi_harness.coding.tools.paths import resolve_read_path

    base = cwd if cwd is not None else os.getcwd()
    result = ProcessedFiles()
    for raw in paths:
        path = os.path.abspath(resolve_read_path(raw, base))
        if not os.path.exists(path):
            raise FileArgumentError(f"File not found: {path}")
        try:
            if os.path.getsize(path) == 0:
                continue
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise FileArgumentError(f"Could not read file {path}: {exc.strerror or exc}") from exc
        mime_type = detect_image_mime_type(data[:SNIFF_BYTES])
        if mime_type is not None:
            image, reference = _image_attachment(path, data, mime_type, auto_resize)
            result.images.append(image)
            result.text += reference
        else:
            result.text += _file_reference(path, "\n" + data.decode("utf-8", errors="replace") + "\n")
    return result


def read_piped_stdin(stream: TextIO | None = None) -> str | None:
    """All of piped stdin, trimmed; ``None`` for a terminal, a closed stream or empty input.

    Blocks until EOF: a pipe that never closes holds startup, as in Pi.
    """
    source = sys.stdin if stream is None else stream
    if source is None:
        return None
    try:
        if source.isatty():
            return None
        buffer: BinaryIO | None = getattr(source, "buffer", None)
        raw = buffer.read() if buffer is not None else source.read().encode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    text = raw.decode("utf-8", errors="replace").strip()
    return text or None


def build_initial_input(
    messages: list[str], *, stdin_text: str | None = None, files: ProcessedFiles | None = None
) -> InitialInput:
    """Combine the pieces; ``message`` is ``None`` when there is nothing to send."""
    parts: list[str] = []
    if stdin_text:
        parts.append(stdin_text)
    if files is not None and files.text:
        parts.append(files.text)
    remaining = list(messages)
    if remaining:
        parts.append(remaining.pop(0))
    images = list(files.images) if files is not None else []
    return InitialInput("".join(parts) if parts else None, images, remaining)


def prepare_initial_input(
    messages: list[str],
    file_args: list[str],
    *,
    read_stdin: bool,
    auto_resize: bool = True,
    cwd: str | None = None,
    stdin: TextIO | None = None,
) -> InitialInput:
    """Everything at once: stdin (when ``read_stdin``, i.e. not RPC), files, then messages.

    Raises ``FileArgumentError`` for a bad ``@file``.
    """
    stdin_text = read_piped_stdin(stdin) if read_stdin else None
    files = process_file_arguments(file_args, cwd=cwd, auto_resize=auto_resize) if file_args else None
    return build_initial_input(messages, stdin_text=stdin_text, files=files)
