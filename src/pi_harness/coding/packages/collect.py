"""The resources one installed package offers, narrowed by its settings entry's filters.

Without a filter object: the manifest's entries (paths or globs, then its own ``!``/``+``/``-``
overrides), else the conventional directories. With one, each resource type is:

- omitted: everything the package offers;
- ``[]``: nothing;
- patterns: applied to what the package offers (``patterns.apply_patterns``), so a filter only
  narrows. ``autoload: false`` makes the entry a delta: only files its patterns name change.

Every offered file is returned with ``enabled`` so that callers (``pi config``) can show what
is switched off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.packages.discovery import (
    RESOURCE_TYPES,
    ResourceType,
    files_from_paths,
    read_manifest,
    resource_files,
)
from pi_harness.coding.packages.patterns import apply_delta, apply_patterns, expand_glob, has_glob, is_override


@dataclass(frozen=True)
class Found:
    path: Path
    enabled: bool


Collected = dict[ResourceType, list[Found]]


def _manifest_files(entries: list[str], root: Path, kind: ResourceType) -> list[Path]:
    paths: list[Path] = []
    for entry in entries:
        if is_override(entry):
            continue
        paths += expand_glob(entry, root) if has_glob(entry) else [(root / entry).resolve()]
    return files_from_paths(paths, kind)


def offered(root: Path, kind: ResourceType, *, strict: bool) -> list[Path] | None:
    """What the package offers of ``kind``; ``None`` when it declares and holds nothing.

    ``strict`` (no filter object, as in Pi): a manifest replaces the conventional directories
    even for types it does not list. With a filter, a type the manifest leaves out falls back to
    its conventional directory."""
    manifest = read_manifest(root)
    entries = manifest.get(kind) if manifest else None
    if entries:
        files = _manifest_files(entries, root, kind)
        overrides = [e for e in entries if is_override(e)]
        return apply_patterns(files, overrides, root) if overrides else files
    if manifest is not None and strict:
        return []
    directory = root / kind
    return resource_files(directory, kind) if directory.is_dir() else None


def collect_package(root: Path, entry_filter: Mapping[str, object] | None) -> tuple[Collected, bool]:
    """The package's resources by type, and whether it is a package at all (it has a manifest,
    a conventional directory or a filter)."""
    collected: Collected = {kind: [] for kind in RESOURCE_TYPES}
    has_manifest = read_manifest(root) is not None
    any_found = entry_filter is not None or has_manifest
    for kind in RESOURCE_TYPES:
        files = offered(root, kind, strict=entry_filter is None)
        if files is None:
            continue
        any_found = True
        patterns = entry_filter.get(kind) if entry_filter is not None else None
        if entry_filter is not None and entry_filter.get("autoload") is False:
            delta = apply_delta(files, _strings(patterns), root)
            collected[kind] = [Found(p, on) for p, on in delta.items()]
        elif patterns is None:
            collected[kind] = [Found(p, True) for p in files]
        else:
            kept = set(apply_patterns(files, _strings(patterns), root)) if _strings(patterns) else set()
            collected[kind] = [Found(p, p in kept) for p in files]
    return collected, any_found


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


__all__ = ["Collected", "Found", "collect_package", "offered"]
