"""Locating and applying ``edit`` replacements.

Each ``oldText`` is located in the *original* file: exactly first; if any edit has no exact
match, every edit is located in a normalised form of the file (NFKC, trailing whitespace removed,
typographic quotes, dashes and spaces made plain) and the replacement happens on that normalised
text. Occurrences are counted on the normalised texts, so an edit is unique only if its text is
unique even after normalisation. All edits apply at once or not at all.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

from pi_harness.coding.tools.results import ToolError

BOM = "\ufeff"
_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010-\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


@dataclass(frozen=True)
class EditSpec:
    old_text: str
    new_text: str


def strip_bom(text: str) -> tuple[str, str]:
    """``(bom, rest)``: the leading byte order mark (or ``""``) and the text after it."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def detect_line_ending(text: str) -> str:
    """``\\r\\n`` when the first line break is CRLF, else ``\\n``."""
    first_newline = text.find("\n")
    return "\r\n" if first_newline > 0 and text[first_newline - 1] == "\r" else "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", ending) if ending != "\n" else text


def normalize_for_fuzzy(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass(frozen=True)
class _Match:
    index: int
    start: int
    end: int
    new_text: str


def not_found_message(path: str) -> str:
    return (
        f"Could not find the exact text in {path}. The old text must match exactly including all whitespace "
        "and newlines."
    )


def apply_edits(
    content: str, edits: list[EditSpec], path: str, *, no_change_message: str | None = None
) -> tuple[str, str]:
    """``(base, new)``: the LF text the edits were applied to (normalised if needed) and the result.

    ``content`` must already be LF-normalised and BOM-free. Raises ``ToolError`` with Pi's texts.
    """
    if not edits:
        raise ToolError("edits must contain at least one replacement.")
    several = len(edits) > 1

    def prefix(index: int) -> str:
        return f"edits[{index}]: " if several else ""

    olds = [normalize_to_lf(edit.old_text) for edit in edits]
    news = [normalize_to_lf(edit.new_text) for edit in edits]
    for index, old in enumerate(olds):
        if not old:
            raise ToolError(f"{prefix(index)}oldText must not be empty.")
    fuzzy = any(old not in content for old in olds)
    normalized_content = normalize_for_fuzzy(content)
    base = normalized_content if fuzzy else content
    matches: list[_Match] = []
    for index, old in enumerate(olds):
        normalized_old = normalize_for_fuzzy(old)
        needle = normalized_old if fuzzy else old
        start = base.find(needle) if needle else -1
        if start < 0:
            raise ToolError(prefix(index) + not_found_message(path))
        occurrences = normalized_content.count(normalized_old) if normalized_old else 1
        if occurrences > 1:
            raise ToolError(
                f"{prefix(index)}Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                "Please provide more context to make it unique."
            )
        matches.append(_Match(index, start, start + len(needle), news[index]))
    ordered = sorted(matches, key=lambda match: (match.start, match.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            first, second = sorted((before.index, after.index))
            raise ToolError(f"edits[{second}] overlaps edits[{first}] in {path}. Merge them into one edit.")
    pieces: list[str] = []
    position = 0
    for match in ordered:
        pieces += [base[position : match.start], match.new_text]
        position = match.end
    pieces.append(base[position:])
    result = "".join(pieces)
    if result == base:
        raise ToolError(
            no_change_message
            or (
                f"No changes made to {path}. The replacement produced identical content. This might indicate an "
                "issue with special characters or the text not existing as expected."
            )
        )
    return base, result
