"""``PackageManager``: install, remove, update and list configured packages, and resolve the
resources they offer for a session (docs/packages.md).

Settings hold the declarations (``packages`` in the global and project settings.json, strings
or ``{"source": ..., <filters>}`` objects); the install directories hold the files. Project
packages (and their storage under ``<cwd>/.pi``) are reachable only once the project is trusted:
the manager reads project settings through ``SettingsManager``, which hides them otherwise, and
refuses project-scope operations outright.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_harness.coding.config.paths import project_dir
from pi_harness.coding.config.settings import Scope, SettingsManager
from pi_harness.coding.packages import git, pip
from pi_harness.coding.packages.npm import Npm
from pi_harness.coding.packages.process import PackageError, offline
from pi_harness.coding.packages.sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PipSource,
    Source,
    SourceError,
    identity,
    parse_source,
    resolve_local,
)

PackageScope = Literal["user", "project"]
Entry = str | Mapping[str, object]


@dataclass(frozen=True)
class ConfiguredPackage:
    source: str
    scope: PackageScope
    filtered: bool
    installed_path: str | None


_SCOPES: tuple[PackageScope, ...] = ("user", "project")


def entry_source(entry: Entry) -> str:
    if isinstance(entry, str):
        return entry
    value = entry.get("source")
    return value if isinstance(value, str) else ""


def _settings_scope(scope: PackageScope) -> Scope:
    return "project" if scope == "project" else "global"


class PackageManager:
    def __init__(
        self,
        cwd: str | Path,
        agent_directory: Path,
        settings: SettingsManager,
        *,
        on_progress: Callable[[str], None] | None = None,
    ) -> None:
        self.cwd = Path(cwd).resolve()
        self.agent_dir = agent_directory
        self.settings = settings
        self.on_progress = on_progress or (lambda _message: None)

    # -- places -------------------------------------------------------------------------------

    def _check_scope(self, scope: PackageScope) -> None:
        if scope == "project" and not self.settings.project_trusted:
            raise PackageError("Project is not trusted; refusing to access project package storage")

    def base_dir(self, scope: PackageScope) -> Path:
        """What relative local sources in this scope's settings resolve against."""
        if scope == "project":
            return project_dir(self.cwd)
        path = self.settings.global_path
        return path.parent if path is not None else self.agent_dir

    def _root(self, scope: PackageScope, kind: str) -> Path:
        self._check_scope(scope)
        return (project_dir(self.cwd) if scope == "project" else self.agent_dir) / kind

    def _npm(self) -> Npm:
        values = self.settings.values
        return Npm(values.npm_command, allow_scripts=values.allow_package_scripts)

    def installed_path(self, source: Source, scope: PackageScope) -> Path:
        if isinstance(source, NpmSource):
            return self._root(scope, "npm") / "node_modules" / source.name
        if isinstance(source, GitSource):
            return git.install_path(source, self._root(scope, "git"))
        if isinstance(source, PipSource):
            return pip.install_path(source, self._root(scope, "pip"))
        return resolve_local(source.path, self.base_dir(scope))

    def _temporary_dir(self, prefix: str, suffix: str = "", ref: str | None = None) -> Path:
        """Pi's cache of ``-e`` packages: ``<agentDir>/tmp/extensions/<prefix>/<hash>/<suffix>``."""
        import hashlib

        root = self.agent_dir / "tmp" / "extensions"
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        digest = hashlib.sha256(f"{prefix}-{suffix}{'@' + ref if ref else ''}".encode()).hexdigest()[:8]
        return root / prefix / digest / suffix if suffix else root / prefix / digest

    def temporary_path(self, source: Source) -> Path:
        if isinstance(source, NpmSource):
            return self._temporary_dir("npm") / "node_modules" / source.name
        if isinstance(source, GitSource):
            return self._temporary_dir(f"git-{source.host}", source.path, source.ref)
        if isinstance(source, PipSource):
            return self._temporary_dir("pip") / source.name
        return resolve_local(source.path, self.cwd)

    def install_temporary(self, source: Source) -> None:
        values = self.settings.values
        if isinstance(source, NpmSource):
            self._npm().install([source.spec], self._temporary_dir("npm"))
        elif isinstance(source, GitSource):
            git.install_at(source, self.temporary_path(source), self._npm())
        elif isinstance(source, PipSource):
            pip.install(source, self._temporary_dir("pip"), allow_scripts=values.allow_package_scripts)

    # -- settings -------------------------------------------------------------------------------

    def configured(self, scope: PackageScope) -> list[Entry]:
        value = self.settings.scope_value(_settings_scope(scope), "packages")
        if scope == "user" and self.settings.global_path is None:
            value = self.settings.get("packages")
        return [e for e in value if isinstance(e, str | Mapping)] if isinstance(value, list) else []

    def _input_key(self, source: str) -> str:
        return identity(parse_source(source), self.cwd)

    def entry_key(self, entry: Entry, scope: PackageScope) -> str | None:
        try:
            return identity(parse_source(entry_source(entry)), self.base_dir(scope))
        except SourceError:
            return None

    def _settings_form(self, source: str, parsed: Source, scope: PackageScope) -> str:
        """Local paths are stored relative to the scope's settings directory, as Pi does."""
        if not isinstance(parsed, LocalSource):
            return source
        resolved = resolve_local(parsed.path, self.cwd)
        return os.path.relpath(resolved, self.base_dir(scope)) or "."

    def _write(self, scope: PackageScope, entries: list[Entry]) -> None:
        plain = [e if isinstance(e, str) else dict(e) for e in entries]
        self.settings.set("packages", plain, _settings_scope(scope))

    def add_to_settings(self, source: str, scope: PackageScope) -> bool:
        parsed = parse_source(source)
        stored = self._settings_form(source, parsed, scope)
        current = self.configured(scope)
        key = self._input_key(source)
        for index, existing in enumerate(current):
            if self.entry_key(existing, scope) == key:
                if entry_source(existing) == stored:
                    return False
                current[index] = stored if isinstance(existing, str) else {**existing, "source": stored}
                self._write(scope, current)
                return True
        self._write(scope, [*current, stored])
        return True

    def remove_from_settings(self, source: str, scope: PackageScope) -> bool:
        key = self._input_key(source)
        current = self.configured(scope)
        kept = [e for e in current if self.entry_key(e, scope) != key]
        if len(kept) == len(current):
            return False
        self._write(scope, kept)
        return True

    # -- operations -----------------------------------------------------------------------------

    def install_source(self, parsed: Source, scope: PackageScope, *, upgrade: bool = False) -> None:
        npm_values = self.settings.values
        if isinstance(parsed, NpmSource):
            self._npm().install([parsed.spec], self._root(scope, "npm"))
        elif isinstance(parsed, GitSource):
            git.install(parsed, self._root(scope, "git"), self._npm())
        elif isinstance(parsed, PipSource):
            root = self._root(scope, "pip")
            pip.install(parsed, root, allow_scripts=npm_values.allow_package_scripts, upgrade=upgrade)
        else:
            path = resolve_local(parsed.path, self.cwd)
            if not path.exists():
                raise PackageError(f"Path does not exist: {path}")

    def install(self, source: str, *, local: bool = False) -> None:
        """Install ``source`` and record it in the global (or, with ``local``, project) settings."""
        scope: PackageScope = "project" if local else "user"
        self._check_scope(scope)
        parsed = parse_source(source)
        self.on_progress(f"Installing {source}...")
        self.install_source(parsed, scope)
        self.add_to_settings(source, scope)

    def remove(self, source: str, *, local: bool = False) -> bool:
        """Remove the installed copy and the settings entry; ``False`` when no entry matched."""
        scope: PackageScope = "project" if local else "user"
        self._check_scope(scope)
        parsed = parse_source(source)
        self.on_progress(f"Removing {source}...")
        if isinstance(parsed, NpmSource):
            self._npm().uninstall(parsed.name, self._root(scope, "npm"))
        elif isinstance(parsed, GitSource):
            git.remove(parsed, self._root(scope, "git"))
        elif isinstance(parsed, PipSource):
            pip.remove(parsed, self._root(scope, "pip"))
        return self.remove_from_settings(source, scope)

    def update(self, source: str | None = None) -> None:
        """Bring unpinned packages to their newest version; pinned npm and pip versions stay,
        pinned git refs are reconciled to the configured ref (never moved)."""
        wanted = self._input_key(source) if source else None
        targets: list[tuple[Entry, PackageScope]] = []
        for scope in _SCOPES:
            for entry in self.configured(scope):
                if wanted is None or self.entry_key(entry, scope) == wanted:
                    targets.append((entry, scope))
        if source and not targets:
            raise PackageError(self._no_match(source))
        if offline():
            return
        for entry, scope in targets:
            text = entry_source(entry)
            parsed = parse_source(text)
            if isinstance(parsed, LocalSource) or (parsed.pinned and not isinstance(parsed, GitSource)):
                continue
            if isinstance(parsed, NpmSource):
                if not self._npm().newer_available(parsed, self.installed_path(parsed, scope), self.cwd):
                    continue
                spec = parsed.spec if parsed.version else f"{parsed.name}@latest"
                self.on_progress(f"Updating {text}...")
                self._npm().install([spec], self._root(scope, "npm"))
            elif isinstance(parsed, GitSource):
                self.on_progress(f"Updating {text}...")
                git.update(parsed, self._root(scope, "git"), self._npm())
            else:
                self.on_progress(f"Updating {text}...")
                self.install_source(parsed, scope, upgrade=True)

    def _no_match(self, source: str) -> str:
        text = source.strip()
        for scope in _SCOPES:
            for entry in self.configured(scope):
                configured = entry_source(entry)
                try:
                    parsed = parse_source(configured)
                except SourceError:
                    continue
                if isinstance(parsed, NpmSource) and text in (parsed.name, parsed.spec):
                    return f"No matching package found for {source}. Did you mean {configured}?"
                if isinstance(parsed, GitSource) and text in (
                    f"{parsed.host}/{parsed.path}",
                    f"{parsed.host}/{parsed.path}@{parsed.ref}",
                ):
                    return f"No matching package found for {source}. Did you mean {configured}?"
        return f"No matching package found for {source}"

    def list_configured(self) -> list[ConfiguredPackage]:
        out: list[ConfiguredPackage] = []
        for scope in _SCOPES:
            for entry in self.configured(scope):
                text = entry_source(entry)
                try:
                    path = self.installed_path(parse_source(text), scope)
                except (SourceError, PackageError):
                    path = None
                out.append(
                    ConfiguredPackage(
                        text, scope, not isinstance(entry, str), str(path) if path and path.exists() else None
                    )
                )
        return out
