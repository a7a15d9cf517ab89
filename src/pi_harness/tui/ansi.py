"""ANSI-aware text measuring, wrapping, truncating and padding.

Every component renders to lines that carry SGR escape sequences; these helpers measure the
*visible* cells of such lines (wide CJK characters and emoji count two, combining marks zero,
as rich's grapheme-aware ``cell_len`` measures them) and cut or wrap them without breaking an
escape sequence or leaking a style into the next line.
"""

from __future__ import annotations

import functools
import re

from rich.cells import cell_len, split_graphemes

RESET = "\x1b[0m"

# CSI sequences (SGR, cursor moves …), OSC sequences (titles, hyperlinks, iTerm2 images), APC
# sequences (kitty images) and two-byte escapes.
_ESCAPE = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x1b]*\x1b\\|\x1b[@-Z\\-_]"
_ESCAPE_RE = re.compile(_ESCAPE)
_SPLIT_RE = re.compile(f"({_ESCAPE})")
_WORDS_RE = re.compile(r"( +)")
# C0/C1 controls other than newline and tab (and ESC, handled separately) would move the cursor.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
TAB = "    "


def strip_ansi(text: str) -> str:
    return _ESCAPE_RE.sub("", text) if "\x1b" in text else text


def visible_width(text: str) -> int:
    """Terminal cells the text occupies (escape sequences excluded)."""
    if "\x1b" in text:
        text = _ESCAPE_RE.sub("", text)
    if text.isascii():
        return len(text)
    return cell_len(text)


def sanitize(text: str) -> str:
    """Untrusted output (tools, commands, models) made safe to print: no escapes or controls.

    ``\\r\\n`` becomes ``\\n``, a lone ``\\r`` is dropped, tabs become spaces.
    """
    if "\x1b" in text:
        text = _ESCAPE_RE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "")
    if "\t" in text:
        text = text.replace("\t", TAB)
    return _CONTROL_RE.sub("", text)


def _is_sgr(escape: str) -> bool:
    return escape.startswith("\x1b[") and escape.endswith("m")


_ATTRIBUTES = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "inverse", 8: "hidden", 9: "strike"}
_ATTRIBUTE_OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 25: ("blink",), 27: ("inverse",),
                  28: ("hidden",), 29: ("strike",), 39: ("fg",), 49: ("bg",)}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _sgr_effects(escape: str) -> tuple[tuple[str, str | None], ...]:
    """What an escape does to the active styles, in order: ``(attribute, parameters)`` sets one,
    ``(attribute, None)`` ends one, ``("", None)`` resets all; nothing unless it is SGR. A
    transcript repeats a few dozen sequences thousands of times, so each is read once."""
    if not _is_sgr(escape):
        return ()
    effects: list[tuple[str, str | None]] = []
    params = escape[2:-1].split(";")
    index = 0
    while index < len(params):
        raw = params[index]
        code = int(raw) if raw.isdigit() else 0
        index += 1
        if code == 0:
            effects.append(("", None))
        elif code in _ATTRIBUTES:
            effects.append((_ATTRIBUTES[code], str(code)))
        elif code in _ATTRIBUTE_OFF:
            effects.extend((name, None) for name in _ATTRIBUTE_OFF[code])
        elif 30 <= code <= 37 or 90 <= code <= 97:
            effects.append(("fg", raw))
        elif 40 <= code <= 47 or 100 <= code <= 107:
            effects.append(("bg", raw))
        elif code in (38, 48):
            mode = params[index] if index < len(params) else ""
            count = 2 if mode == "5" else 4 if mode == "2" else 1
            effects.append(("fg" if code == 38 else "bg", ";".join(params[index - 1 : index + count])))
            index += count
    return tuple(effects)


class _StyleState:
    """The styles active at a point of a line, to re-open them on a continuation row.

    Kept per attribute (colour, bold, …) so that a long paragraph with many inline styles does
    not accumulate an ever longer prefix.
    """

    __slots__ = ("active",)

    def __init__(self) -> None:
        self.active: dict[str, str] = {}

    def feed(self, escape: str) -> None:
        active = self.active
        for name, value in _sgr_effects(escape):
            if value is not None:
                active[name] = value
            elif name:
                active.pop(name, None)
            else:
                active.clear()

    @property
    def prefix(self) -> str:
        return f"\x1b[{';'.join(self.active.values())}m" if self.active else ""


def _graphemes(text: str) -> list[tuple[str, int]]:
    if text.isascii():
        return [(ch, 1) for ch in text]
    spans, _ = split_graphemes(text)
    return [(text[start:end], width) for start, end, width in spans]


class _LineBuilder:
    """Collects one logical line's pieces and breaks them into rows of at most ``width`` cells."""

    def __init__(self, width: int, state: _StyleState) -> None:
        self.width = width
        self.state = state
        self.rows: list[str] = []
        self.parts: list[str] = [state.prefix]
        self.used = 0
        self.pending_space = ""
        self.row_has_text = False

    def _break(self) -> None:
        row = "".join(self.parts)
        if self.state.active:
            row += RESET
        self.rows.append(row)
        self.parts = [self.state.prefix]
        self.used = 0
        self.pending_space = ""
        self.row_has_text = False

    def escape(self, escape: str) -> None:
        self.state.feed(escape)
        self.parts.append(escape)

    def space(self, spaces: str) -> None:
        if not self.row_has_text and self.rows:
            return  # spaces at the start of a wrapped row are dropped
        if not self.row_has_text:
            self._place_spaces(spaces)  # indentation of the first row is kept
            return
        self.pending_space += spaces

    def _place_spaces(self, spaces: str) -> None:
        room = self.width - self.used
        if len(spaces) > room:
            spaces = spaces[:room]
        self.parts.append(spaces)
        self.used += len(spaces)

    def word(self, word: str) -> None:
        width = visible_width(word)
        needed = width + len(self.pending_space)
        if self.used + needed <= self.width:
            if self.pending_space:
                self.parts.append(self.pending_space)
            self.parts.append(word)
            self.used += needed
            self.pending_space = ""
            self.row_has_text = True
            return
        if width <= self.width and self.row_has_text:
            self._break()
            self.parts.append(word)
            self.used = width
            self.row_has_text = True
            return
        # A word longer than a row: split by cells, starting on a row of its own as Pi's
        # wrapTextWithAnsi does (a row that only holds indentation keeps it, and the word).
        if self.row_has_text:
            self._break()
            self.pending_space = ""
        if self.pending_space and self.used + len(self.pending_space) < self.width:
            self.parts.append(self.pending_space)
            self.used += len(self.pending_space)
        self.pending_space = ""
        for grapheme, cells in _graphemes(word):
            shown, shown_cells = (grapheme, cells) if cells <= self.width else ("?", 1)  # too wide for any row
            if self.used + shown_cells > self.width and (self.row_has_text or self.used):
                self._break()
            self.parts.append(shown)
            self.used += shown_cells
            self.row_has_text = True

    def finish(self) -> list[str]:
        self._break()
        return self.rows


def wrap(text: str, width: int) -> list[str]:
    """Word-wrap ``text`` (which may hold SGR styles and ``\\n``) into rows of ``width`` cells.

    Styles active at a break are closed at the row's end and re-opened on the next row, so each
    row can be printed on its own. Spaces at a break are dropped; words longer than a row start a
    row of their own and are split between graphemes (as Pi).
    """
    width = max(1, width)
    state = _StyleState()
    rows: list[str] = []
    for logical in text.split("\n"):
        if visible_width(logical) <= width:  # the common case: nothing to break
            row = state.prefix + logical
            if "\x1b" in logical:
                for escape in _ESCAPE_RE.findall(logical):
                    state.feed(escape)
            rows.append(row + RESET if state.active else row)
            continue
        builder = _LineBuilder(width, state)
        for index, piece in enumerate(_SPLIT_RE.split(logical)):
            if not piece:
                continue
            if index % 2:
                builder.escape(piece)
                continue
            for chunk in _WORDS_RE.split(piece):
                if not chunk:
                    continue
                if chunk[0] == " ":
                    builder.space(chunk)
                else:
                    builder.word(chunk)
        rows.extend(builder.finish())
    return rows


def truncate(text: str, width: int, ellipsis: str = "…") -> str:
    """Cut ``text`` to at most ``width`` cells, ending with ``ellipsis`` when something was cut."""
    if visible_width(text) <= width:
        return text
    if width <= 0:
        return ""
    ellipsis_width = visible_width(ellipsis)
    if ellipsis_width > width:
        ellipsis, ellipsis_width = "", 0
    budget = width - ellipsis_width
    out: list[str] = []
    used = 0
    styled = False
    for index, piece in enumerate(_SPLIT_RE.split(text)):
        if not piece:
            continue
        if index % 2:
            out.append(piece)
            styled = styled or _is_sgr(piece)
            continue
        if used >= budget:
            continue
        if piece.isascii() and used + len(piece) <= budget:
            out.append(piece)
            used += len(piece)
            continue
        for grapheme, cells in _graphemes(piece):
            if used + cells > budget:
                used = budget
                break
            out.append(grapheme)
            used += cells
    out.append(ellipsis)
    if styled:
        out.append(RESET)
    return "".join(out)


def truncate_start(text: str, width: int, ellipsis: str = "…") -> str:
    """Cut plain ``text`` (no escapes) to at most ``width`` cells by dropping its *start*, so the
    end survives: the last directories of a long path say more than its first ones."""
    if visible_width(text) <= width:
        return text
    budget = width - visible_width(ellipsis)
    if budget <= 0:
        return truncate(text, width, ellipsis)
    kept: list[str] = []
    used = 0
    for grapheme, cells in reversed(_graphemes(text)):
        if used + cells > budget:
            break
        kept.append(grapheme)
        used += cells
    return ellipsis + "".join(reversed(kept))


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` cells (unchanged when already that wide)."""
    missing = width - visible_width(text)
    return text + " " * missing if missing > 0 else text


def fit(text: str, width: int) -> str:
    """Exactly ``width`` cells: truncated or padded."""
    return pad(truncate(text, width), width)


def with_background(line: str, width: int, bg: str) -> str:
    """``line`` padded to ``width`` on background ``bg`` (an SGR sequence), kept across inner resets."""
    if not bg:
        return pad(line, width)
    body = pad(truncate(line, width), width)
    if "\x1b[" in body:
        body = body.replace("\x1b[0m", "\x1b[0m" + bg).replace("\x1b[m", "\x1b[m" + bg)
        body = body.replace("\x1b[49m", bg)
    return bg + body + RESET


def align_right(left: str, right: str, width: int, min_gap: int = 1) -> str:
    """``left`` and ``right`` on one row of ``width`` cells; ``left`` is shortened first."""
    right_width = visible_width(right)
    if right_width + min_gap >= width:
        return truncate(left, width)
    left = truncate(left, width - right_width - min_gap)
    gap = width - visible_width(left) - right_width
    return left + " " * gap + right


def indent(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line for line in lines]
