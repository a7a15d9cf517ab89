"""kitty images in fullscreen mode: placed over the painted frame, moved when the transcript does.

prompt_toolkit's grid cannot hold an image, so the rows an image covers are blank there and the
image is drawn after each frame that needs it, as Pi's fullscreen renderer does: the first time
with its data (``a=T``, which uploads and shows it), later by id alone (``a=p``). When the image
moved (scrolling, new output, a resize), the text over it changed, or the screen was repainted
from scratch, every placement is deleted (``a=d,d=a``, the data stays) and the visible images
are placed again; an image cut by the top or bottom of the transcript shows only its visible
rows (a source rectangle ``y``/``h`` and ``r`` rows). Uploaded images that scrolled out of view
are kept for scrolling back, up to Pi's limits (16 images, 32 MB sent, 64 MB decoded), the
oldest freed first (``a=d,d=I``). Leaving the screen frees them all (``a=d,d=A``); entering it
again (after an external editor, say) sends them again.
"""

from __future__ import annotations

import functools
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from pi_harness.tui.ansi import visible_width
from pi_harness.tui.terminal_image import image_size

__all__ = ["DELETE_ALL", "DELETE_PLACEMENTS", "KittyImage", "KittyLayer", "Placement", "kitty_image", "placements"]

DELETE_PLACEMENTS = "\x1b_Ga=d,d=a,q=2\x1b\\"
DELETE_ALL = "\x1b_Ga=d,d=A,q=2\x1b\\"
SAVE_CURSOR, RESTORE_CURSOR = "\x1b7", "\x1b8"
SYNC_BEGIN, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"
MAX_OFFSCREEN_IMAGES = 16
MAX_OFFSCREEN_SENT = 32 * 1024 * 1024
MAX_OFFSCREEN_DECODED = 64 * 1024 * 1024
_COMMAND = re.compile(r"\x1b_G([^;\x1b]*);")
# What a placement-only command repeats from the transmission (the keys kitty's ``a=p`` takes).
_PLACEMENT_KEYS = frozenset("ipxywhXYcrCUzPQHV")
_CROP_KEYS = frozenset("yhr")
LOOKBACK = 512  # lines above the view searched for an image reaching into it


def _control(controls: Sequence[str], key: str) -> int | None:
    for control in controls:
        name, _, value = control.partition("=")
        if name == key and value.isdigit():
            return int(value)
    return None


@dataclass(frozen=True)
class KittyImage:
    """The kitty transmission found in one line: what is needed to show it again, or part of it."""

    image_id: int
    columns: int
    rows: int
    width_px: int
    height_px: int
    controls: tuple[str, ...]  # of the first command
    payload: str  # from the first command's ';' to the end of the last chunk
    column: int  # cells before it in its line

    @property
    def sent_bytes(self) -> int:
        return len(self.payload)

    @property
    def decoded_bytes(self) -> int:
        return self.width_px * self.height_px * 4

    def _crop(self, hidden: int, visible: int) -> list[str]:
        if hidden <= 0 and visible >= self.rows:
            return []
        top = self.height_px * hidden // self.rows
        bottom = math.ceil(self.height_px * (hidden + visible) / self.rows)
        return [f"y={top}", f"h={max(1, min(self.height_px, bottom) - top)}", f"r={visible}"]

    def command(self, hidden: int, visible: int, *, transmit: bool) -> str:
        """Show rows ``hidden`` to ``hidden + visible`` at the cursor: with the data, or by id."""
        crop = self._crop(hidden, visible)
        keep = [c for c in self.controls if not (crop and c.partition("=")[0] in _CROP_KEYS)]
        if transmit:
            return f"\x1b_G{','.join([*keep, *crop])}{self.payload}"
        placed = [c for c in keep if c.partition("=")[0] in _PLACEMENT_KEYS]
        return f"\x1b_Ga=p,q=2,{','.join([*placed, *crop])}\x1b\\"


def kitty_image(line: str) -> KittyImage | None:
    """The image a line transmits (``terminal_image.encode_kitty``), or None."""
    return _parse(line) if "\x1b_G" in line else None


@functools.lru_cache(maxsize=256)
def _parse(line: str) -> KittyImage | None:
    match = _COMMAND.search(line)
    if match is None:
        return None
    controls = tuple(match.group(1).split(","))
    image_id, columns, rows = _control(controls, "i"), _control(controls, "c"), _control(controls, "r")
    if not image_id or not columns or not rows:
        return None
    # The chunks follow each other while they say more comes (m=1).
    start, more = match.start(), "m=1" in controls
    end = line.find("\x1b\\", match.end())
    while end >= 0 and more:
        following = _COMMAND.match(line, end + 2)
        if following is None:
            return None
        more = "m=1" in following.group(1).split(",")
        end = line.find("\x1b\\", following.end())
    if end < 0:
        return None
    size = image_size(line[match.end() : line.find("\x1b", match.end())], "image/png")
    if size is None:
        return None
    return KittyImage(
        image_id, columns, rows, size.width, size.height, controls,
        line[match.end() - 1 : end + 2], visible_width(line[:start]),
    )  # fmt: skip


@dataclass(frozen=True)
class Placement:
    """An image on screen: its top-left cell, and which of its rows are visible."""

    image: KittyImage
    row: int
    column: int
    hidden: int  # rows cut off above
    visible: int

    def key(self) -> tuple[int, int, int, int, int, int]:
        return (self.image.image_id, self.row, self.column, self.hidden, self.visible, self.image.columns)


def placements(lines: Sequence[str], top: int, height: int) -> list[Placement]:
    """The images of ``lines[top : top + height]`` (rows relative to ``top``), with one begun above."""
    found: list[Placement] = []
    for index in range(top - 1, max(-1, top - 1 - LOOKBACK), -1):
        image = kitty_image(lines[index]) if index < len(lines) else None
        if image is not None:
            hidden = top - index
            if hidden < image.rows:
                found.append(Placement(image, 0, image.column, hidden, min(height, image.rows - hidden)))
            break
    for index in range(top, min(len(lines), top + height)):
        image = kitty_image(lines[index])
        if image is not None:
            row = index - top
            found.append(Placement(image, row, image.column, 0, min(image.rows, height - row)))
    return found


class KittyLayer:
    """Which images the terminal holds and shows; the escapes that bring it to the next frame."""

    def __init__(self) -> None:
        self._uploaded: OrderedDict[int, KittyImage] = OrderedDict()  # least recently shown first
        self._shown: tuple[object, ...] | None = None

    def frame(self, placements: Sequence[Placement], *, redraw: bool, covered: object = None) -> str:
        """The escapes showing ``placements`` ("" when the screen already does).

        ``redraw``: the frame was painted from scratch; ``covered``: what the text under the
        images was (a change means they are placed again).
        """
        shown = (tuple(placement.key() for placement in placements), covered)
        if not redraw and shown == self._shown:
            return ""
        had_images = self._shown is not None and bool(self._shown[0])
        self._shown = shown
        if not placements and not had_images:
            return ""
        out = [SYNC_BEGIN, SAVE_CURSOR, DELETE_PLACEMENTS]
        for placement in placements:
            image = placement.image
            known = self._uploaded.pop(image.image_id, None) is not None
            self._uploaded[image.image_id] = image
            out.append(f"\x1b[{placement.row + 1};{placement.column + 1}H")
            out.append(image.command(placement.hidden, placement.visible, transmit=not known))
        out.append(self._evict({placement.image.image_id for placement in placements}))
        out.extend([RESTORE_CURSOR, SYNC_END])
        return "".join(out)

    def _evict(self, visible: set[int]) -> str:
        offscreen = [image for image_id, image in self._uploaded.items() if image_id not in visible]
        count = len(offscreen)
        sent = sum(image.sent_bytes for image in offscreen)
        decoded = sum(image.decoded_bytes for image in offscreen)
        out = []
        for image in offscreen:  # the least recently shown first
            if count <= MAX_OFFSCREEN_IMAGES and sent <= MAX_OFFSCREEN_SENT and decoded <= MAX_OFFSCREEN_DECODED:
                break
            out.append(f"\x1b_Ga=d,d=I,i={image.image_id},q=2\x1b\\")
            del self._uploaded[image.image_id]
            count, sent, decoded = count - 1, sent - image.sent_bytes, decoded - image.decoded_bytes
        return "".join(out)

    def forget(self) -> None:
        """The terminal dropped every image (a new alternate screen starts empty): send them again."""
        self._uploaded.clear()
        self._shown = None

    def clear(self) -> str:
        """Free every image (before the screen is left); "" when none was sent."""
        had = bool(self._uploaded) or (self._shown is not None and bool(self._shown[0]))
        self._uploaded.clear()
        self._shown = None
        return DELETE_ALL if had else ""
