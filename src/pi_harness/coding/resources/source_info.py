"""Where a resource (extension, skill, prompt template, theme) came from: its ``sourceInfo``.

RPC ``get_commands`` and ``pi.get_commands()`` describe each command's origin with Pi 1.4.0's
object ``{path, source, scope, origin, baseDir?}``:

- ``source``: how it was found - ``auto`` (discovered in the agent dir or the project's ``.pi``),
  ``local`` (a settings entry, or a file found by its location), ``cli`` (``-e``), ``builtin``
  (``builtin:<name>``), the prefix of a ``<prefix:...>`` path (``sdk``), or
  ``extension:<name>`` (contributed by that extension's ``resources_discover``);
- ``scope``: ``user``, ``project`` or ``temporary`` (this run only);
- ``origin``: ``top-level`` (``package`` is for package resources, which we do not install);
- ``baseDir``: the directory the resource's settings entry or discovery root belongs to.

The loader records metadata for what it resolves (``SourceIndex.add``); a path it has no record
for gets the default by location, as in Pi.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

Scope = Literal["user", "project", "temporary"]
Origin = Literal["top-level", "package"]

BUILTIN_PREFIX = "builtin:"


class SourceInfo(TypedDict):
    path: str
    source: str
    scope: Scope
    origin: Origin
    baseDir: NotRequired[str]


@dataclass(frozen=True)
class SourceMetadata:
    source: str
    scope: Scope
    origin: Origin = "top-level"
    base_dir: str | None = None

    def info(self, path: str) -> SourceInfo:
        info: SourceInfo = {"path": path, "source": self.source, "scope": self.scope, "origin": self.origin}
        if self.base_dir is not None:
            info["baseDir"] = self.base_dir
        return info


def synthetic_source(path: str) -> str | None:
    """``builtin`` for ``builtin:<name>``, ``x`` for ``<x:...>``; ``None`` for a file path."""
    if path.startswith(BUILTIN_PREFIX):
        return "builtin"
    if path.startswith("<") and path.endswith(">"):
        return path[1:-1].split(":", 1)[0] or "temporary"
    return None


def extension_source(extension_path: str) -> SourceMetadata:
    """Metadata of a resource an extension contributed through ``resources_discover``."""
    synthetic = synthetic_source(extension_path)
    if synthetic is not None:
        return SourceMetadata(f"extension:{extension_path.strip('<>')}", "temporary")
    name = Path(extension_path).name
    stem = name[: -len(".py")] if name.endswith(".py") else name
    return SourceMetadata(f"extension:{stem}", "temporary", base_dir=str(Path(extension_path).parent))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class SourceIndex:
    """Metadata by resource path or root directory; a lookup matches the path or a parent of it."""

    def __init__(self, agent_dir: Path, project_base: Path) -> None:
        self._agent_dir = agent_dir
        self._project_base = project_base  # the project's ``.pi`` directory
        self._entries: dict[str, SourceMetadata] = {}

    def clear(self) -> None:
        self._entries.clear()

    def add(self, path: str | Path, metadata: SourceMetadata) -> None:
        """Record ``metadata`` for ``path`` (and what lies under it) unless it has a record."""
        self._entries.setdefault(os.path.realpath(path), metadata)

    def lookup(self, path: str) -> SourceInfo:
        synthetic = synthetic_source(path)
        if synthetic is not None:
            return SourceMetadata(synthetic, "temporary").info(path)
        resolved = os.path.realpath(path)  # roots and resources alike, symlinks resolved
        exact = self._entries.get(resolved)
        if exact is not None:
            return exact.info(path)
        roots = [root for root in self._entries if _under(resolved, root)]
        if roots:
            return self._entries[max(roots, key=len)].info(path)  # the closest root
        return self._by_location(path, resolved)

    def _by_location(self, path: str, resolved: str) -> SourceInfo:
        places: tuple[tuple[Scope, Path], ...] = (("user", self._agent_dir), ("project", self._project_base))
        for scope, base in places:
            for kind in ("skills", "prompts", "themes", "extensions"):
                root = base / kind
                if _under(resolved, os.path.realpath(root)):
                    return SourceMetadata("local", scope, base_dir=str(root)).info(path)
        base_dir = resolved if os.path.isdir(resolved) else os.path.dirname(resolved)
        return SourceMetadata("local", "temporary", base_dir=base_dir).info(path)


__all__ = [
    "BUILTIN_PREFIX",
    "Origin",
    "Scope",
    "SourceIndex",
    "SourceInfo",
    "SourceMetadata",
    "extension_source",
    "synthetic_source",
]
