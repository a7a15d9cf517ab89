"""Glob patterns of the find tool.

Like ``fd --glob``: a pattern without ``/`` is matched against each entry's name at any depth
(``*.ts``); a pattern with ``/`` is matched against the path relative to the search directory
(``src/**/*.spec.ts``). ``*`` and ``?`` stay within one path component, ``**`` spans components,
``[...]`` and ``{a,b}`` work as in shells. Matching is smart-case: case-insensitive unless the
pattern contains an upper-case letter.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def _translate(pattern: str) -> str:
    out: list[str] = []
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if char == "*":
            if pattern.startswith("**", index):
                index += 2
                if index < length and pattern[index] == "/":
                    out.append("(?:.*/)?")
                    index += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2 if pattern[index + 1 : index + 2] in ("!", "^") else index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                escaped = body.replace("\\", "\\\\").replace("[", "\\[")
                out.append(f"[{'^/' if negate else ''}{escaped}]")
                index = end
        elif char == "{":
            end = _matching_brace(pattern, index)
            if end == -1:
                out.append(re.escape(char))
            else:
                options = _split_top_level(pattern[index + 1 : end])
                out.append("(?:" + "|".join(_translate(option) for option in options) + ")")
                index = end
        elif char == "\\" and index + 1 < length:
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _matching_brace(pattern: str, start: int) -> int:
    depth = 0
    for index in range(start, len(pattern)):
        if pattern[index] == "{":
            depth += 1
        elif pattern[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in body:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += char == "{"
        depth -= char == "}"
        current += char
    parts.append(current)
    return parts


def compile_find_pattern(pattern: str) -> Callable[[str], bool]:
    """A predicate over ``/``-separated relative paths (without a trailing slash)."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    flags = 0 if any(char.isupper() for char in pattern) else re.IGNORECASE
    if "/" in pattern.rstrip("/"):
        regex = re.compile(_translate(pattern.lstrip("/").rstrip("/")), flags)
        return lambda path: regex.fullmatch(path) is not None
    regex = re.compile(_translate(pattern.rstrip("/")), flags)
    return lambda path: regex.fullmatch(path.rpartition("/")[2]) is not None
