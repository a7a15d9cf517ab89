"""OSC 8 hyperlinks in the fullscreen grid: the link travels in each cell's style.

prompt_toolkit repaints single changed cells, so a link cannot be one escape before its text
and one after: a repaint of the third cell alone would draw it unlinked, and a closing escape
that is not repainted would leave the link open over whatever is drawn next. Instead every
cell of a link carries the link in its style (``[link=…]``, a bracketed class prompt_toolkit's
style parser ignores), the transcript container hands the opening escape to the renderer as a
zero-width escape of that cell, and ``LinkOutput`` closes the link before the next cell that
has none. A link whose target changes changes the style, so those cells are repainted too.
"""

from __future__ import annotations

import re

from prompt_toolkit.formatted_text import StyleAndTextTuples

from pi_harness.tui.pt_view import ansi_to_fragments

__all__ = ["LINK_OPEN", "link_escape", "link_fragments", "link_target"]

LINK_OPEN = "\x1b]8;"
_OSC8 = re.compile(r"\x1b\]8;([^;\x07\x1b]*);([^\x07\x1b]*)(?:\x07|\x1b\\)")
# A Unicode noncharacter stands in for each OSC 8 escape while the SGR codes are parsed; it
# never occurs in text (U+FDD0 is reserved for internal use).
_MARK = "\ufdd0"
_PREFIX = "[link="


def _encode(target: str) -> str:
    """``params;url`` as one style word: whitespace would split it, so it is percent-encoded."""
    if not any(ch.isspace() for ch in target):
        return target
    return "".join("".join(f"%{byte:02X}" for byte in ch.encode()) if ch.isspace() else ch for ch in target)


def link_fragments(line: str) -> StyleAndTextTuples:
    """Like ``ansi_to_fragments``, with the characters inside OSC 8 links styled ``[link=params;url]``."""
    if LINK_OPEN not in line:
        return ansi_to_fragments(line)
    targets: list[str] = []

    def mark(match: re.Match[str]) -> str:
        targets.append(f"{match.group(1)};{match.group(2)}" if match.group(2) else "")
        return _MARK

    fragments = ansi_to_fragments(_OSC8.sub(mark, line))
    out: StyleAndTextTuples = []
    seen = 0
    active = ""
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        for index, part in enumerate(text.split(_MARK)):
            if index:
                active = targets[seen] if seen < len(targets) else ""
                seen += 1
            if part:
                out.append((f"{style} {_PREFIX}{_encode(active)}]" if active else style, part))
    return out


def _word(style: str) -> str | None:
    """``params;url`` of a cell styled by ``link_fragments``, or None."""
    start = style.find(_PREFIX)
    if start < 0:
        return None
    end = style.find(" ", start)
    word = style[start + len(_PREFIX) : end if end >= 0 else len(style)]
    return word[:-1] if word.endswith("]") else None


def link_escape(style: str) -> str | None:
    """The OSC 8 escape opening the link of a cell styled by ``link_fragments``, or None."""
    word = _word(style)
    return None if word is None else f"{LINK_OPEN}{word}\x1b\\"


def link_target(style: str) -> str | None:
    """The URL a cell styled by ``link_fragments`` links to, or None."""
    word = _word(style)
    return None if word is None else word.partition(";")[2] or None
