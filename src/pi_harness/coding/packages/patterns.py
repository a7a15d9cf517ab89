"""Glob matching and the ``!pattern`` / ``+path`` / ``-path`` filters of package entries.

Globs follow minimatch's basics, which Pi's manifests are written for: ``*`` and ``?`` stay
inside one path segment, ``**`` crosses segments, ``[...]`` is a character class, ``{a,b}``
gives alternatives. A pattern
matches a file by its path relative to the package root, its name or its absolute path; a
``SKILL.md`` also matches by its directory. Filters only ever narrow: ``+path`` re-adds one of
the package's own files that an exclusion removed, never a file the package did not offer.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path


def expand_braces(pattern: str) -> list[str]:
    """``"a/{b,c}*"`` → ``["a/b*", "a/c*"]`` (nested braces too); a brace without a comma at its
    own level, or without its closing brace, is literal."""
    depth, start = 0, -1
    commas: list[int] = []
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start, commas = index, []
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0 and commas:
                head, tail = pattern[:start], pattern[index + 1 :]
                cuts = [start, *commas, index]
                options = [pattern[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                return [expanded for option in options for expanded in expand_braces(head + option + tail)]
        elif char == "," and depth == 1:
            commas.append(index)
    return [pattern]


@functools.lru_cache(maxsize=256)
def _compile(pattern: str, nocase: bool = False) -> re.Pattern[str]:
    alternatives = expand_braces(pattern)
    if len(alternatives) > 1:
        joined = "|".join(f"(?:{_compile(option, nocase).pattern[:-2]})" for option in alternatives)
        return re.compile(f"(?:{joined})" + r"\Z", re.IGNORECASE if nocase else 0)
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z", re.IGNORECASE if nocase else 0)


def glob_match(text: str, pattern: str, *, nocase: bool = False) -> bool:
    return _compile(pattern, nocase).match(text) is not None


def is_override(entry: str) -> bool:
    return entry.startswith(("!", "+", "-"))


def has_glob(entry: str) -> bool:
    return "*" in entry or "?" in entry


def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


def _normalize(pattern: str) -> str:
    text = pattern[2:] if pattern.startswith(("./", ".\\")) else pattern
    return _posix(os.path.normpath(text)) if text else text


def _candidates(file: Path, root: Path, *, with_name: bool) -> list[str]:
    names = [_posix(os.path.relpath(file, root)), _posix(str(file))]
    if with_name:
        names.append(file.name)
    if file.name == "SKILL.md":
        parent = file.parent
        names += [_posix(os.path.relpath(parent, root)), _posix(str(parent))]
        if with_name:
            names.append(parent.name)
    return names


def matches_any(file: Path, patterns: Iterable[str], root: Path) -> bool:
    candidates = _candidates(file, root, with_name=True)
    return any(glob_match(c, _posix(os.path.normpath(p))) for p in patterns for c in candidates)


def matches_exact(file: Path, patterns: Iterable[str], root: Path) -> bool:
    candidates = set(_candidates(file, root, with_name=False))
    return any(_normalize(p) in candidates for p in patterns)


def apply_patterns(files: Sequence[Path], patterns: Sequence[str], root: Path) -> list[Path]:
    """The files that plain globs keep (all when there are none), minus ``!`` exclusions, plus
    ``+`` exact paths from ``files``, minus ``-`` exact paths."""
    includes = [p for p in patterns if not is_override(p)]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    kept = [f for f in files if matches_any(f, includes, root)] if includes else list(files)
    if excludes:
        kept = [f for f in kept if not matches_any(f, excludes, root)]
    for file in files:
        if force_in and file not in kept and matches_exact(file, force_in, root):
            kept.append(file)
    if force_out:
        kept = [f for f in kept if not matches_exact(f, force_out, root)]
    return kept


def is_enabled_by_overrides(file: Path, entries: Sequence[str], root: Path) -> bool:
    """Whether a discovered file (``~/.pi/agent/skills/x/SKILL.md``...) stays on under a
    settings array's override entries, relative to ``root``: ``!glob`` turns matches off, then
    ``+path`` turns an exact path back on, then ``-path`` turns it off (plain entries are paths to
    add, not filters of what was discovered)."""
    excludes = [e[1:] for e in entries if e.startswith("!")]
    force_in = [e[1:] for e in entries if e.startswith("+")]
    force_out = [e[1:] for e in entries if e.startswith("-")]
    enabled = not (excludes and matches_any(file, excludes, root))
    if force_in and matches_exact(file, force_in, root):
        enabled = True
    if force_out and matches_exact(file, force_out, root):
        enabled = False
    return enabled


def apply_delta(files: Sequence[Path], patterns: Sequence[str], root: Path) -> dict[Path, bool]:
    """``autoload: false`` entries: each pattern switches the files it names on or off, in order."""
    result: dict[Path, bool] = {}
    for pattern in patterns:
        target = pattern[1:] if is_override(pattern) else pattern
        enabled = not pattern.startswith(("-", "!"))
        exact = pattern.startswith(("+", "-"))
        for file in files:
            if matches_exact(file, [target], root) if exact else matches_any(file, [target], root):
                result[file] = enabled
    return result


def expand_glob(pattern: str, root: Path) -> list[Path]:
    """Files and directories under ``root`` whose relative path matches; dot segments are not
    traversed (list such roots explicitly), nor ``node_modules`` unless the pattern names it."""
    normalized = _posix(os.path.normpath(pattern))
    regex = _compile(normalized)
    segments = normalized.split("/")
    static = [s for s in itertools.takewhile(lambda s: not has_glob(s) and "[" not in s, segments[:-1])]
    start = root.joinpath(*static) if static else root
    skip_modules = "node_modules" not in normalized
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and not (skip_modules and d == "node_modules")
        )
        for name in [*dirnames, *filenames]:
            if name.startswith("."):
                continue
            full = Path(dirpath) / name
            if regex.match(_posix(os.path.relpath(full, root))):
                found.append(full.resolve())
    return sorted(found)


__all__ = [
    "apply_delta",
    "apply_patterns",
    "expand_glob",
    "glob_match",
    "has_glob",
    "is_enabled_by_overrides",
    "is_override",
    "matches_any",
    "matches_exact",
]
