"""npm packages, in Pi's layout: one npm project per scope, ``<agentDir>/npm`` (global) and
``<cwd>/.pi/npm`` (project), each package at ``node_modules/<name>`` of it. A Pi user's installs
are therefore ours and ours are Pi's.

Beyond Pi, installs pass ``--ignore-scripts`` unless ``allowPackageScripts`` is true: a package's
lifecycle scripts would run with the user's permissions at install time, before anyone looked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from pi_harness.coding.packages.process import PackageError, capture, run
from pi_harness.coding.packages.sources import NpmSource

_GITIGNORE = "*\n!.gitignore\n"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?")


class Npm:
    def __init__(self, command: Sequence[str] | None, *, allow_scripts: bool) -> None:
        self.command = list(command) if command else ["npm"]
        if not self.command[0]:
            raise PackageError("Invalid npmCommand: first array entry must be a non-empty command")
        self.allow_scripts = allow_scripts

    def _scripts(self) -> list[str]:
        return [] if self.allow_scripts else ["--ignore-scripts"]

    def install(self, specs: Sequence[str], root: Path) -> None:
        ensure_project(root)
        run([*self.command, "install", *specs, "--prefix", str(root), "--legacy-peer-deps", *self._scripts()])

    def uninstall(self, name: str, root: Path) -> None:
        if root.is_dir():
            run([*self.command, "uninstall", name, "--prefix", str(root), "--legacy-peer-deps", *self._scripts()])

    def install_dependencies(self, directory: Path) -> None:
        """A git checkout's own dependencies, without dev or peer dependencies."""
        run([*self.command, "install", "--omit=dev", "--legacy-peer-deps", *self._scripts()], cwd=directory)

    def newer_available(self, source: NpmSource, installed: Path, cwd: Path) -> bool:
        """Whether the registry has a version above the installed one (true when unsure)."""
        current = installed_version(installed)
        if current is None:
            return True
        try:
            out = capture(
                [*self.command, "view", source.spec if source.version else source.name, "version", "--json"], cwd=cwd
            )
            latest = json.loads(out) if out else None
        except (PackageError, ValueError):
            return True
        if isinstance(latest, list):
            latest = max((v for v in latest if isinstance(v, str)), key=_version_key, default=None)
        return not isinstance(latest, str) or _version_key(latest) > _version_key(current)


def ensure_project(root: Path) -> None:
    """The scope's npm project, as Pi creates it."""
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_GITIGNORE, encoding="utf-8")
    manifest = root / "package.json"
    if not manifest.exists():
        manifest.write_text(json.dumps({"name": "pi-extensions", "private": True}, indent=2), encoding="utf-8")


def installed_version(package_dir: Path) -> str | None:
    try:
        data = json.loads((package_dir / "package.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def _version_key(version: str) -> tuple[int, int, int, int]:
    match = _VERSION.match(version.strip())
    if not match:
        return (-1, -1, -1, -1)
    # A release sorts above its pre-releases.
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)), 0 if match.group(4) else 1)


def matches_configured(source: NpmSource, package_dir: Path) -> bool:
    """Whether the installed copy is the one configured (an exact version must be equal)."""
    current = installed_version(package_dir)
    if current is None:
        return False
    if source.pinned and source.version is not None:
        return _version_key(current) == _version_key(source.version)
    return True


__all__ = ["Npm", "ensure_project", "installed_version", "matches_configured"]
