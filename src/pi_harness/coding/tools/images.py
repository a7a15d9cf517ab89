"""Image files for the read tool: detection by content and fitting into the model's limits.

Only JPEG, PNG, GIF and WebP count as images, recognised by their leading bytes whatever the file
is called. ``fit_image`` keeps an image within 2000×2000 pixels and 4.5 MiB.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.coding.tools.truncate import to_fixed

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

SNIFF_BYTES = 4100
MAX_DIMENSION = 2000
MAX_IMAGE_BYTES = 4_718_592  # 4.5 MiB
_FIRST_QUALITY = 80
_RETRY_QUALITIES = (85, 70, 55, 40)
_SCALE_STEPS = (1.0, 0.75, 0.5, 0.35, 0.25)
_MIN_SIDE = 100
IMAGE_BLOCKED_TEXT = "Image reading is disabled."


def detect_image_mime_type(head: bytes) -> str | None:
    """The MIME type of a supported image format from a file's first bytes, else ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class FittedImage:
    data: bytes
    mime_type: str
    original_width: int
    original_height: int
    width: int
    height: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)

    def dimension_note(self) -> str:
        factor = to_fixed(self.original_width / self.width, 2) if self.width else "1.00"
        return (
            f"[Image: original {self.original_width}x{self.original_height}, displayed at "
            f"{self.width}x{self.height}. Multiply coordinates by {factor} to map to original image.]"
        )


def _encode(image: PILImage, fmt: str, quality: int = 0) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        _flatten(image).save(buffer, format="JPEG", quality=quality)
    else:
        image.save(buffer, format="PNG")
    return buffer.getvalue()


def _flatten(image: PILImage) -> PILImage:
    """JPEG has no alpha: composite transparent images onto white."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB") if image.mode != "RGB" else image


def _fit_size(width: int, height: int, max_width: int, max_height: int) -> tuple[int, int]:
    scale = min(max_width / width, max_height / height, 1.0)
    return max(1, round(width * scale)), max(1, round(height * scale))


def fit_image(
    data: bytes,
    mime_type: str,
    *,
    max_width: int = MAX_DIMENSION,
    max_height: int = MAX_DIMENSION,
    max_bytes: int = MAX_IMAGE_BYTES,
    jpeg_quality: int = _FIRST_QUALITY,
) -> FittedImage | None:
    """A version of the image within the limits; ``None`` if it cannot be decoded.

    Images already within the limits come back unchanged (same bytes and type). Otherwise: scale
    to fit (aspect kept), encode as PNG and as JPEG and keep the smaller; while too big, lower the
    JPEG quality, then the scale; at worst return the smallest encoding produced.
    """
    from PIL import Image, ImageOps

    try:
        image: PILImage = Image.open(io.BytesIO(data))
        image.seek(0)
        image = ImageOps.exif_transpose(image) or image
        image.load()
    except Exception:
        return None
    original_width, original_height = image.size
    if original_width <= max_width and original_height <= max_height and len(data) <= max_bytes:
        return FittedImage(data, mime_type, original_width, original_height, original_width, original_height)
    width, height = _fit_size(original_width, original_height, max_width, max_height)
    produced: list[FittedImage] = []
    scaled_cache: dict[tuple[int, int], PILImage] = {}

    def attempt(size: tuple[int, int], quality: int) -> FittedImage | None:
        scaled = scaled_cache.get(size)
        if scaled is None:
            scaled = image.resize(size, Image.Resampling.LANCZOS) if size != image.size else image
            scaled_cache[size] = scaled
            produced.append(FittedImage(_encode(scaled, "PNG"), "image/png", original_width, original_height, *size))
        produced.append(
            FittedImage(_encode(scaled, "JPEG", quality), "image/jpeg", original_width, original_height, *size)
        )
        best = min((item for item in produced if (item.width, item.height) == size), key=lambda item: len(item.data))
        return best if len(best.data) <= max_bytes else None

    for quality in (jpeg_quality, *_RETRY_QUALITIES):
        fitted = attempt((width, height), quality)
        if fitted is not None:
            return fitted
    for scale in _SCALE_STEPS:
        size = (round(width * scale), round(height * scale))
        if min(size) < _MIN_SIDE:
            break
        for quality in _RETRY_QUALITIES:
            fitted = attempt(size, quality)
            if fitted is not None:
                return fitted
    return min(produced, key=lambda item: len(item.data))
