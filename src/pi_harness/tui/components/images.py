"""Image blocks of messages and tool results: drawn inline when the terminal can, else a placeholder.

Whether an image is drawn depends on the screen's capabilities (``RenderContext.capabilities``;
kitty only in fullscreen mode, which places those images itself after each frame) and on
``terminal.showImages``; its width on ``terminal.imageWidthCells``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.terminal_image import image_fallback, image_lines, image_size

__all__ = ["image_placeholder", "image_rows", "shows_images"]


def shows_images(context: RenderContext) -> bool:
    return context.show_images and context.capabilities.images is not None


def image_placeholder(block: Mapping[str, object], context: RenderContext) -> str:
    """``[Image: [image/png] 800x600]``: the text standing for an image not drawn."""
    mime = str(block.get("mimeType") or "image/unknown")
    data = block.get("data")
    size = image_size(data, mime) if isinstance(data, str) and data else None
    return image_fallback(mime, size, hyperlinks=context.capabilities.hyperlinks, home=context.home)


def image_rows(block: Mapping[str, object], context: RenderContext, width: int, token: str = "muted") -> list[str]:
    """The rows showing one image block: the picture when possible, otherwise the placeholder line."""
    data, mime = block.get("data"), str(block.get("mimeType") or "")
    if shows_images(context) and isinstance(data, str) and data:
        # A stable id per picture, so redrawing the same block replaces rather than adds an image.
        image_id = zlib.crc32(data.encode("ascii", "replace")) or 1
        lines = image_lines(
            data, mime, context.capabilities.images, width, max_columns=context.image_width_cells, image_id=image_id
        )
        if lines is not None:
            return lines
    return [truncate(context.theme.fg(token, image_placeholder(block, context)), width)]
