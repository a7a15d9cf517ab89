"""Which files of a package directory are resources, by convention (no ``pi`` manifest entry).

- ``extensions/``: ``.ts``/``.js`` files (handed to the extension loader, which runs them in a
  Node sidecar when it can) and, for pi-harness, ``.py`` files; a sub-directory counts when it
  has a manifest with extensions, an ``index.ts``/``index.js`` or an ``__init__.py``;
- ``skills/``: a directory holding ``SKILL.md`` is one skill; ``*.md`` directly in the root are
  skills too; deeper, only ``SKILL.md`` directories count;
- ``prompts/``: ``*.md``, ``themes/``: ``*.json``, recursively.

Dot entries and ``node_modules`` are skipped; ``.gitignore``, ``.ignore`` and ``.fdignore`` rules
apply below the directory that holds them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal, Protocol

ResourceType = Literal["extensions", "skills", "prompts", "themes"]
RESOURCE_TYPES: tuple[ResourceType, ...] = ("extensions", "skills", "prompts", "themes")
SCRIPT_SUFFIXES = (".ts", ".js")
_SUFFIXES = {"prompts": (".md",), "themes": (".json",), "skills": (".md",)}
_IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")


def _manifest_table(root: Path) -> object:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8-sig"))
        if isinstance(data, dict) and isinstance(data.get("pi"), dict):
            return data["pi"]
    except (OSError, ValueError):
        pass
    try:
        import tomllib

        tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("tool", {})
        return tool.get("pi") if isinstance(tool, dict) else None
    except (OSError, ValueError):
        return None


def read_manifest(root: Path) -> dict[ResourceType, list[str]] | None:
    """A package root's manifest: the ``pi`` object of its package.json or, for Python
    packages, the ``[tool.pi]`` table of its pyproject.toml; ``None`` when it has neither."""
    pi = _manifest_table(root)
    if not isinstance(pi, dict):
        return None
    manifest: dict[ResourceType, list[str]] = {}
    for field in RESOURCE_TYPES:
        entries = pi.get(field)
        if isinstance(entries, list) and all(isinstance(e, str) for e in entries):
            manifest[field] = list(entries)
    return manifest


class _Rules(Protocol):
    def match_file(self, file: str) -> bool: ...


class _Ignores:
    """Ignore rules gathered while walking down from ``root``, each scoped to its directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: list[str] = []
        self._spec: _Rules | None = None

    def add_dir(self, directory: Path) -> None:
        rel = os.path.relpath(directory, self.root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        added = False
        for name in _IGNORE_FILES:
            try:
                text = (directory / name).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for line in text.splitlines():
                stripped = line.strip()
                if not stripped or (stripped.startswith("#") and not stripped.startswith("\\#")):
                    continue
                negated = line.startswith("!")
                body = line[1:] if negated else (line[1:] if line.startswith("\\!") else line)
                body = body.lstrip("/") if body.startswith("/") else body
                self._lines.append(("!" if negated else "") + prefix + body)
                added = True
        if added:
            import pathspec

            self._spec = pathspec.PathSpec.from_lines("gitignore", self._lines)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        if self._spec is None:
            return False
        rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        return self._spec.match_file(rel + "/" if is_dir else rel)


def _entries(directory: Path) -> list[tuple[Path, bool, bool]]:
    """(path, is_dir, is_file) of the visible entries, symlinks followed, sorted by name."""
    out: list[tuple[Path, bool, bool]] = []
    try:
        scanned = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return out
    for entry in scanned:
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        try:
            out.append((Path(entry.path), entry.is_dir(), entry.is_file()))
        except OSError:
            continue
    return out


def extension_entries(directory: Path) -> list[Path] | None:
    """The entry points a directory declares (manifest, index file, ``__init__.py``), or ``None``."""
    manifest = read_manifest(directory)
    if manifest and manifest.get("extensions"):
        listed = [(directory / e).resolve() for e in manifest["extensions"] if (directory / e).exists()]
        if listed:
            return listed
    for name in ("index.ts", "index.js"):
        if (directory / name).is_file():
            return [(directory / name).resolve()]
    if (directory / "__init__.py").is_file():
        return [directory.resolve()]
    return None


def _extensions(directory: Path) -> list[Path]:
    own = extension_entries(directory)
    if own is not None:
        return own
    ignores = _Ignores(directory)
    ignores.add_dir(directory)
    found: list[Path] = []
    for path, is_dir, is_file in _entries(directory):
        if ignores.ignored(path, is_dir):
            continue
        if is_file and (path.suffix in SCRIPT_SUFFIXES or (path.suffix == ".py" and not path.name.startswith("_"))):
            found.append(path.resolve())
        elif is_dir:
            found += extension_entries(path) or []
    return found


def _skills(directory: Path, ignores: _Ignores, at_root: bool) -> list[Path]:
    ignores.add_dir(directory)
    skill = directory / "SKILL.md"
    if skill.is_file() and not ignores.ignored(skill, False):
        return [skill.resolve()]
    found: list[Path] = []
    for path, is_dir, is_file in _entries(directory):
        if is_file and at_root and path.suffix == ".md" and not ignores.ignored(path, False):
            found.append(path.resolve())
        elif is_dir and not ignores.ignored(path, True):
            found += _skills(path, ignores, False)
    return found


def _files(directory: Path, suffixes: tuple[str, ...], ignores: _Ignores) -> list[Path]:
    ignores.add_dir(directory)
    found: list[Path] = []
    for path, is_dir, is_file in _entries(directory):
        if ignores.ignored(path, is_dir):
            continue
        if is_dir:
            found += _files(path, suffixes, ignores)
        elif is_file and path.suffix in suffixes:
            found.append(path.resolve())
    return found


def resource_files(directory: Path, kind: ResourceType) -> list[Path]:
    """The resources of ``kind`` found under ``directory`` by the conventions above."""
    if not directory.is_dir():
        return []
    if kind == "extensions":
        return _extensions(directory)
    if kind == "skills":
        return _skills(directory, _Ignores(directory), True)
    return _files(directory, _SUFFIXES[kind], _Ignores(directory))


def files_from_paths(paths: list[Path], kind: ResourceType) -> list[Path]:
    """Files stay as they are; directories are searched by convention."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path.resolve())
        elif path.is_dir():
            found += resource_files(path, kind)
    return found


__all__ = [
    "RESOURCE_TYPES",
    "SCRIPT_SUFFIXES",
    "ResourceType",
    "extension_entries",
    "files_from_paths",
    "read_manifest",
    "resource_files",
]
