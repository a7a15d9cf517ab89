"""The resources of the configured packages, for a session's resource loader.

Project entries come first and win over a global entry of the same identity; a project entry
with ``autoload: false`` is instead a delta over the global one (both are applied, delta first,
and the first word on a file wins). A package that is configured but not installed is installed
now unless ``PI_OFFLINE`` is set (as Pi does); a failure becomes a problem line, not an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pi_harness.coding.packages import pip
from pi_harness.coding.packages.collect import Collected, collect_package
from pi_harness.coding.packages.discovery import RESOURCE_TYPES, ResourceType
from pi_harness.coding.packages.manager import (
    Entry,
    PackageManager,
    PackageScope,
    entry_source,
)
from pi_harness.coding.packages.npm import matches_configured
from pi_harness.coding.packages.process import PackageError, offline
from pi_harness.coding.packages.resolved import PackageResource, ResolvedPackages, ResourceScope
from pi_harness.coding.packages.sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PipSource,
    Source,
    SourceError,
    parse_source,
)


def _deduped(manager: PackageManager, with_project: bool) -> list[tuple[Entry, PackageScope, str | None]]:
    """(entry, scope, base source) with project entries first; ``base source`` is the global
    entry's source for an ``autoload: false`` delta."""
    ordered: list[tuple[Entry, PackageScope, str | None]] = []
    seen: dict[str, int] = {}
    project: PackageScope = "project"
    user: PackageScope = "user"
    candidates = [(e, project) for e in manager.configured(project)] if with_project else []
    candidates += [(e, user) for e in manager.configured(user)]
    for entry, scope in candidates:
        key = manager.entry_key(entry, scope)
        if key is None:
            continue
        index = seen.get(key)
        if index is None:
            seen[key] = len(ordered)
            ordered.append((entry, scope, None))
            continue
        first, first_scope, _ = ordered[index]
        if (
            first_scope == "project"
            and scope == "user"
            and isinstance(first, Mapping)
            and first.get("autoload") is False
        ):
            ordered[index] = (first, first_scope, entry_source(entry))
            ordered.append((entry, "user", None))
    return ordered


def resolve_packages(
    manager: PackageManager, *, install_missing: bool = True, with_project: bool = True
) -> ResolvedPackages:
    """``with_project=False`` leaves the project's entries alone even when the settings manager
    has read them (nothing of an untrusted project is installed or loaded)."""
    resolved = ResolvedPackages()
    seen: set[str] = set()
    for entry, scope, base_source in _deduped(manager, with_project):
        text = entry_source(entry)
        source_text = base_source or text
        source_scope: PackageScope = "user" if base_source else scope
        entry_filter = entry if isinstance(entry, Mapping) else None
        try:
            parsed = parse_source(source_text)
            roots, extra = _roots(manager, parsed, source_scope, install_missing)
        except (SourceError, PackageError) as exc:
            resolved.problems.append(f"Package {text}: {exc}")
            continue
        for root in roots:
            if root.is_file():
                _add(resolved, seen, "extensions", root, True, text, scope, root.parent)
                continue
            collected, is_package = collect_package(root, entry_filter)
            if not is_package and not extra and isinstance(parsed, LocalSource):
                _add(resolved, seen, "extensions", root, True, text, scope, root)
                continue
            _add_collected(resolved, seen, collected, text, scope, root)
        for path in extra:
            _add(resolved, seen, "extensions", path, True, text, scope, path.parent)
    return resolved


def resolve_temporary(manager: PackageManager, sources: list[str]) -> ResolvedPackages:
    """``pi -e <source>``: packages for this run only, cached under ``<agentDir>/tmp/extensions``
    and never written to settings. Missing ones are fetched unless offline; an unpinned git
    checkout is refreshed (a failed refresh keeps the cached copy)."""
    resolved = ResolvedPackages()
    seen: set[str] = set()
    for text in sources:
        try:
            parsed = parse_source(text)
            path = manager.temporary_path(parsed)
            if not path.exists() and not offline():
                manager.on_progress(f"Installing {entry_label(parsed)}...")
                manager.install_temporary(parsed)
            elif isinstance(parsed, GitSource) and not parsed.pinned and not offline():
                try:
                    manager.install_temporary(parsed)
                except PackageError:
                    pass
        except (SourceError, PackageError) as exc:
            resolved.problems.append(f"Package {text}: {exc}")
            continue
        if not path.exists():
            resolved.problems.append(f"Package {text}: not installed (offline)")
            continue
        if isinstance(parsed, PipSource):
            found = pip.entries(parsed, path)
            resolved.problems += [f"Package {text}: {p}" for p in found.problems]
            roots, extra = found.package_roots, found.extensions
        else:
            roots, extra = [path], []
        for root in roots:
            collected, _ = collect_package(root, None)
            _add_collected(resolved, seen, collected, text, "temporary", root)
        for file in extra:
            _add(resolved, seen, "extensions", file, True, text, "temporary", file.parent)
    return resolved


def _roots(
    manager: PackageManager, parsed: Source, scope: PackageScope, install_missing: bool
) -> tuple[list[Path], list[Path]]:
    """Package roots to collect from and extension files named directly (pip entry points)."""
    path = manager.installed_path(parsed, scope)
    if isinstance(parsed, LocalSource):
        return ([path], []) if path.exists() else ([], [])
    stale = isinstance(parsed, NpmSource) and path.exists() and not matches_configured(parsed, path)
    if not path.exists() or stale:
        if not install_missing or offline():
            return [], []
        manager.on_progress(f"Installing {entry_label(parsed)}...")
        manager.install_source(parsed, scope)
    if isinstance(parsed, PipSource):
        found = pip.entries(parsed, path)
        if found.problems:
            raise PackageError("; ".join(found.problems))
        return found.package_roots, found.extensions
    return [path], []


def entry_label(parsed: Source) -> str:
    if isinstance(parsed, NpmSource):
        return f"npm:{parsed.spec}"
    if isinstance(parsed, PipSource):
        return f"pip:{parsed.requirement}"
    if isinstance(parsed, GitSource):
        return f"git:{parsed.repo}"
    return parsed.path


def _add_collected(
    resolved: ResolvedPackages, seen: set[str], collected: Collected, source: str, scope: ResourceScope, root: Path
) -> None:
    for kind in RESOURCE_TYPES:
        for found in collected[kind]:
            _add(resolved, seen, kind, found.path, found.enabled, source, scope, root)


def _add(
    resolved: ResolvedPackages,
    seen: set[str],
    kind: ResourceType,
    path: Path,
    enabled: bool,
    source: str,
    scope: ResourceScope,
    base: Path,
) -> None:
    key = f"{kind}\0{path}"
    if key in seen:
        return
    seen.add(key)
    resolved.resources.append(PackageResource(kind, str(path), enabled, source, scope, str(base)))


__all__ = ["resolve_packages", "resolve_temporary"]
