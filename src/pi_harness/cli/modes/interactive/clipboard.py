"""The system clipboard: ``/copy`` and ``app.message.copy`` (Ctrl+X) write text,
``app.clipboard.pasteImage`` (Ctrl+V) reads an image.

Copying uses the terminal's OSC 52 sequence (works over SSH and in tmux with ``set-clipboard``)
and, when one is installed, a clipboard program (``pbcopy``, ``wl-copy``, ``xclip``, ``xsel``).
Pasting an image asks ``wl-paste``, ``xclip`` or ``pngpaste`` for PNG data, saves it to a
temporary file and pastes that path, which the editor turns into an image attachment.
"""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

_COPY_PROGRAMS = (("pbcopy",), ("wl-copy",), ("xclip", "-selection", "clipboard"), ("xsel", "--clipboard", "--input"))
_PASTE_PROGRAMS = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-t", "image/png", "-o"),
    ("pngpaste", "-"),
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TIMEOUT_SECONDS = 5
NOTHING_TO_COPY = "No agent messages to copy yet."
COPIED_MESSAGE = "Copied last agent message to clipboard"


def osc52(text: str) -> str:
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\x07"


def copy_with_program(text: str) -> str | None:
    """Copy with the first clipboard program found; its name, or None."""
    for program in _COPY_PROGRAMS:
        if shutil.which(program[0]) is None:
            continue
        try:
            result = subprocess.run(program, input=text.encode("utf-8"), timeout=TIMEOUT_SECONDS, check=False,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0:
            return program[0]
    return None


async def copy_text(mode: ModeContext, text: str) -> None:
    output = mode.shell.view.app.output
    output.write_raw(osc52(text))
    output.flush()
    await asyncio.to_thread(copy_with_program, text)


async def copy_message(mode: ModeContext) -> None:
    """``app.message.copy`` (Ctrl+X): fullscreen's selection when selecting does not copy by itself,
    otherwise the last assistant message."""
    shell = mode.shell
    view = shell.view
    area = getattr(view, "area", None)
    options = getattr(view, "options", None)
    if area is not None and options is not None and not options.copy_on_select:
        selected = area.selected_text()
        if selected:
            await copy_text(mode, selected)
            shell.toast("Copied!")
            return
    text = mode.session.get_last_assistant_text()
    if not text:
        shell.notice("error", NOTHING_TO_COPY)
        return
    await copy_text(mode, text)
    shell.toast("Copied!" if area is not None else COPIED_MESSAGE)


async def copy_tree_entry(mode: ModeContext, text: str | None) -> None:
    """``app.message.copy`` in ``/tree``: the selected entry's text."""
    if not text:
        mode.shell.notice("error", "Selected entry has no text to copy")
        return
    await copy_text(mode, text)
    mode.shell.toast("Copied selected message to clipboard")


def read_clipboard_png() -> bytes | None:
    for program in _PASTE_PROGRAMS:
        if shutil.which(program[0]) is None:
            continue
        try:
            result = subprocess.run(program, capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0 and result.stdout.startswith(PNG_MAGIC):
            return result.stdout
    return None


async def paste_clipboard_image(mode: ModeContext) -> None:
    shell = mode.shell
    data = await asyncio.to_thread(read_clipboard_png)
    if data is None:
        shell.toast("No image in the clipboard", "warning")
        return
    with tempfile.NamedTemporaryFile(prefix="pi-clipboard-", suffix=".png", delete=False) as handle:
        handle.write(data)
    shell.editor.paste(handle.name)
    shell.refresh()
