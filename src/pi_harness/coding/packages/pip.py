"""Python packages (``pip:<requirement>``, beyond Pi): each distribution and its dependencies
in a private target directory, ``<agentDir>/pip/<name>`` (global) or ``<cwd>/.pi/pip/<name>``
(project), never in the Python environment pi-harness runs from.

A distribution offers resources through entry points (docs/packages.md):

- ``pi_harness.extensions``: ``<label> = "<module>"`` (or ``"<module>:extension"``), a module
  whose ``extension(pi)`` function is loaded as an extension;
- ``pi_harness.packages``: ``<label> = "<package>"``, an importable package whose directory is
  a Pi package root (its ``pyproject``-free layout: ``skills/``, ``prompts/``, ``themes/``,
  ``extensions/``, or a ``package.json`` ``pi`` manifest shipped as package data).

Installs are binary-only (``--only-binary=:all:``) unless ``allowPackageScripts`` is true, since
building a source distribution runs its code. pip's own configuration (``PIP_INDEX_URL``,
``PIP_FIND_LINKS``, ``pip.conf`` ...) applies, as npm's does for npm sources.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.packages.process import run
from pi_harness.coding.packages.sources import PipSource

EXTENSIONS_GROUP = "pi_harness.extensions"
PACKAGES_GROUP = "pi_harness.packages"


@dataclass(frozen=True)
class PipEntries:
    extensions: list[Path]
    package_roots: list[Path]
    problems: list[str]


def install_path(source: PipSource, root: Path) -> Path:
    return root / source.name


def install(source: PipSource, root: Path, *, allow_scripts: bool, upgrade: bool = False) -> None:
    """Install into a fresh directory, then swap it in, so a failure leaves the old copy."""
    target = install_path(source, root)
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n!.gitignore\n", encoding="utf-8")
    staging = root / f".{source.name}.staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    command = [sys.executable, "-m", "pip", "install", "--target", str(staging), "--no-input"]
    command += ["--disable-pip-version-check", "--no-warn-script-location", "--quiet"]
    if not allow_scripts:
        command.append("--only-binary=:all:")
    if upgrade:
        command.append("--upgrade")
    try:
        run([*command, source.requirement])
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


def remove(source: PipSource, root: Path) -> None:
    shutil.rmtree(install_path(source, root), ignore_errors=True)


def _module_path(target: Path, module: str) -> Path | None:
    base = target.joinpath(*module.split("."))
    if (base / "__init__.py").is_file():
        return base
    file = base.with_suffix(".py")
    return file if file.is_file() else None


def entries(source: PipSource, target: Path) -> PipEntries:
    """What the installed distribution offers; its directory joins ``sys.path`` (at the end,
    so it never shadows pi-harness's own modules) for the extensions' imports."""
    from importlib import metadata

    extensions: list[Path] = []
    roots: list[Path] = []
    problems: list[str] = []
    if str(target) not in sys.path:
        sys.path.append(str(target))
    wanted = source.name
    for dist in metadata.distributions(path=[str(target)]):
        name = (dist.metadata["Name"] or "").lower().replace("_", "-").replace(".", "-")
        if name != wanted:
            continue
        for point in dist.entry_points:
            if point.group not in (EXTENSIONS_GROUP, PACKAGES_GROUP):
                continue
            module, _, attr = point.value.partition(":")
            path = _module_path(target, module.strip())
            if path is None:
                problems.append(f"{point.group} entry {point.name}: module {module.strip()} not found in {target}")
            elif point.group == EXTENSIONS_GROUP:
                if attr.strip() not in ("", "extension"):
                    problems.append(f"{point.group} entry {point.name}: the function must be named extension")
                else:
                    extensions.append(path.resolve())
            else:
                roots.append((path if path.is_dir() else path.parent).resolve())
    return PipEntries(extensions, roots, problems)


__all__ = ["EXTENSIONS_GROUP", "PACKAGES_GROUP", "PipEntries", "entries", "install", "install_path", "remove"]
