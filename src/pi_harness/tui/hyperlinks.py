"""OSC 8 hyperlinks: text the terminal makes clickable, without changing its width.

The escapes are zero-width for ``ansi.visible_width``; they are only emitted when the terminal
is known to understand them (``capabilities.hyperlinks``), since a terminal that swallows them
would show the text without its URL.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["OSC8_CLOSE", "file_url", "hyperlink", "link_path"]

OSC8_CLOSE = "\x1b]8;;\x1b\\"


def hyperlink(text: str, url: str) -> str:
    """``text`` linked to ``url`` (control characters in the URL would end the escape early)."""
    safe = "".join(ch for ch in url if ch >= " " and ch != "\x7f")
    return f"\x1b]8;;{safe}\x1b\\{text}{OSC8_CLOSE}"


def file_url(path: str, cwd: str | None = None) -> str:
    """The ``file://`` URL of ``path`` (relative paths are taken from ``cwd``)."""
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded):
        expanded = os.path.join(cwd or os.getcwd(), expanded)
    return Path(os.path.normpath(expanded)).as_uri()


def link_path(text: str, path: str, cwd: str | None, enabled: bool) -> str:
    """``text`` (a shown path) linked to the file it names, when hyperlinks are on."""
    if not enabled or not path:
        return text
    try:
        return hyperlink(text, file_url(path, cwd))
    except ValueError:  # a path Path.as_uri refuses
        return text
