"""How a path argument from the model becomes a file system path.

Paths are not confined to the working directory: absolute paths, ``..`` and ``~`` all work.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

# Unicode spaces models (and macOS file names) use where an ASCII space is meant, each mapped to
# one (a translation table: compiling the equivalent character class took most of a millisecond
# at the first tool call of a run).
_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
_AM_PM = re.compile(r" (AM|PM)\.")
_NARROW_NBSP = "\u202f"
_RIGHT_QUOTE = "\u2019"


def expand_path(path: str) -> str:
    """Strip one leading ``@``, turn Unicode spaces into ASCII spaces and expand ``~``."""
    if path.startswith("@"):
        path = path[1:]
    path = path.translate(_UNICODE_SPACES)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), path[2:])
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """The absolute, normalised form of ``path``; relative paths resolve against ``cwd``."""
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(cwd, expanded))


def read_path_variants(resolved: str) -> list[str]:
    """Spellings worth trying when a path to read does not exist, in order.

    macOS screenshots put a narrow no-break space before AM/PM, macOS stores names in NFD and
    typographic apostrophes are common in names that models retype with ``'``.
    """
    import unicodedata  # here: only a path that does not exist as given needs it

    variants = [
        _AM_PM.sub(lambda m: f"{_NARROW_NBSP}{m.group(1)}.", resolved),
        unicodedata.normalize("NFD", resolved),
        resolved.replace("'", _RIGHT_QUOTE),
        unicodedata.normalize("NFD", resolved).replace("'", _RIGHT_QUOTE),
    ]
    unique: list[str] = []
    for variant in variants:
        if variant != resolved and variant not in unique:
            unique.append(variant)
    return unique


def resolve_read_path(path: str, cwd: str, exists: Callable[[str], bool] = os.path.exists) -> str:
    """``resolve_to_cwd`` plus the fallbacks of ``read_path_variants``; the first existing wins."""
    resolved = resolve_to_cwd(path, cwd)
    if exists(resolved):
        return resolved
    for variant in read_path_variants(resolved):
        if exists(variant):
            return variant
    return resolved


def to_posix(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path
