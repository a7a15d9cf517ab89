"""How an MCP tool reaches the model (Pi's ``exposure`` and ``toolExposure``).

``direct``: declared to the model like a built-in tool. ``codemode`` (the default) and
``deferred``: registered with that exposure, so the session does not activate them; the
``codemode`` tool's scripts (``builtin:codemode``) call them, and the ``tool_search`` tool
(``builtin:tool-search``) loads the ones it finds. ``hidden``: never registered.

``toolExposure`` maps exact tool names or ``*`` patterns to an exposure: an exact name wins over
patterns, and among patterns the first in the file that matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, TypeGuard

Exposure = Literal["codemode", "deferred", "direct", "hidden"]
EXPOSURES: tuple[Exposure, ...] = ("codemode", "deferred", "direct", "hidden")
_ALIASES = {"codemode-deferred": "codemode"}


def resolve_alias(value: object) -> object:
    return _ALIASES.get(value, value) if isinstance(value, str) else value


def is_exposure(value: object) -> TypeGuard[Exposure]:
    return value in EXPOSURES


def pattern_regex(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$")


def tool_exposure(default: Exposure, overrides: Sequence[tuple[str, Exposure]], tool: str) -> Exposure:
    for name, value in overrides:
        if name == tool:
            return value
    for name, value in overrides:
        if "*" in name and pattern_regex(name).match(tool):
            return value
    return default


def widest(exposures: set[Exposure]) -> Exposure:
    """The exposure of tools that serve several servers (the resource tools)."""
    order: tuple[Exposure, ...] = ("direct", "codemode", "deferred")
    return next((candidate for candidate in order if candidate in exposures), "hidden")
