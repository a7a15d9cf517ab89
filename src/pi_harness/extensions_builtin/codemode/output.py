"""The result the model sees: ``Script completed``/``Script failed``, the wall time, the output
items in order (``==> text N/M <==`` headers when there are several texts), the console lines in
one ``<console_output>`` block, then ``Script error:`` for a failed script. Text longer than
``max_output_tokens`` (4 characters a token) keeps its start and end; the full text goes to a
temp file named in the result. Images are saved to temp files too, named before each image."""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pi_harness.ai.json_values import JsonObject

CHARS_PER_TOKEN = 4
_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def _temp_file(prefix: str, suffix: str, data: bytes) -> str | None:
    try:
        with tempfile.NamedTemporaryFile(prefix=prefix, suffix=suffix, delete=False) as handle:
            handle.write(data)
            return handle.name
    except OSError:
        return None


def arrange(items: Sequence[JsonObject], error: str | None) -> list[JsonObject]:
    texts = sum(1 for item in items if item.get("type") == "text" and not item.get("console"))
    out: list[JsonObject] = []
    console: list[str] = []
    index = 0
    for item in items:
        if item.get("type") == "image":
            out.append({"type": "image", "data": item.get("data"), "mimeType": item.get("mimeType")})
        elif item.get("console"):
            console.append(str(item.get("text", "")))
        else:
            index += 1
            text = str(item.get("text", ""))
            out.append({"type": "text", "text": f"==> text {index}/{texts} <==\n{text}" if texts > 1 else text})
    if console:
        out.append({"type": "text", "text": "<console_output>\n" + "\n".join(console) + "\n</console_output>"})
    if error is not None:
        out.append({"type": "text", "text": f"Script error:\n{error}"})
    return out


def _joined(items: Sequence[JsonObject]) -> str:
    parts: list[str] = []
    for item in items:
        text = str(item["text"])
        if parts and parts[-1] and not parts[-1].endswith("\n"):
            parts.append("\n")
        parts.append(text)
    return "".join(parts)


def finish(items: list[JsonObject], max_output_tokens: int) -> tuple[list[JsonObject], str | None]:
    """Join the text, cut it to the budget (writing the full text out), and save the images."""
    texts = [item for item in items if item["type"] == "text"]
    images = [item for item in items if item["type"] == "image"]
    text = _joined(texts)
    limit = max_output_tokens * CHARS_PER_TOKEN
    full_path: str | None = None
    if len(text) > limit:
        full_path = _temp_file("pi-codemode-", ".txt", text.encode("utf-8"))
        head, tail = text[: limit // 2], text[len(text) - limit // 2 :]
        omitted = len(text) - len(head) - len(tail)
        where = f" Full output: {full_path}" if full_path else ""
        text = f"{head}\n[… {omitted} characters omitted (max_output_tokens {max_output_tokens}).{where}]\n{tail}"
    out: list[JsonObject] = [{"type": "text", "text": text}] if text else []
    for image in images:
        mime = str(image.get("mimeType"))
        try:
            data = base64.b64decode(str(image.get("data")), validate=False)
        except ValueError:
            data = b""
        path = _temp_file("pi-codemode-image-", _SUFFIX.get(mime, ".img"), data)
        if path:
            out.append({"type": "text", "text": f"Image saved to {Path(path)}"})
        out.append(image)
    return out, full_path
