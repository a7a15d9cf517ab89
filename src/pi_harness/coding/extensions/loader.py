"""Importing extension modules.

An extension is a ``.py`` file, a Pi ``.ts``/``.js`` file (run by ``node_bridge``), or a package
directory (``__init__.py``, or a manifest listing its
entries: ``pyproject.toml`` ``[tool.pi] extensions = [...]`` or ``package.json``
``{"pi": {"extensions": [...]}}``). Each load imports fresh under a unique module name so that
``/reload`` picks up edits; the extension's directory is on ``sys.path`` only while importing.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

from pi_harness.coding.extensions import node_bridge

_counter = itertools.count(1)


class ExtensionLoadError(Exception):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def _manifest_entries(directory: Path) -> list[Path]:
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib

            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            entries = data.get("tool", {}).get("pi", {}).get("extensions", [])
            if entries:
                return [directory / e for e in entries if (directory / e).exists()]
        except (OSError, ValueError):
            pass
    package = directory / "package.json"
    if package.is_file():
        try:
            entries = json.loads(package.read_text(encoding="utf-8")).get("pi", {}).get("extensions", [])
            return [
                directory / e
                for e in entries
                if (directory / e).exists() and str(e).endswith((".py", *node_bridge.NODE_SUFFIXES))
            ]
        except (OSError, ValueError, AttributeError):
            pass
    return []


def entry_files(path: Path) -> list[Path]:
    """The module files an extension path stands for."""
    if path.is_file():
        return [path]
    if path.is_dir():
        listed = _manifest_entries(path)
        if listed:
            return listed
        if (path / "__init__.py").is_file():
            return [path / "__init__.py"]
        # A Pi extension directory: index.ts / index.js (run by the Node bridge).
        for name in node_bridge.INDEX_FILES:
            if (path / name).is_file():
                return [path / name]
    return []


SCRIPT_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")


def import_factory(file: Path, display_path: str) -> Callable[..., object]:
    """Import ``file`` fresh and return its ``extension`` callable (for a ``.ts``/``.js`` file, a
    factory that runs it in the Node sidecar)."""
    if node_bridge.is_node_extension(file):
        return node_bridge.node_factory(file, display_path)
    is_package = file.name == "__init__.py"
    module_name = f"pi_ext_{abs(hash(str(file))) % 10**8}_{next(_counter)}"
    location = file.parent if is_package else file
    spec = importlib.util.spec_from_file_location(
        module_name,
        str(file),
        submodule_search_locations=[str(location)] if is_package else None,
    )
    if spec is None or spec.loader is None:
        raise ExtensionLoadError(display_path, f"Failed to load extension: cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    search_dir = str(file.parent.parent if is_package else file.parent)
    sys.path.insert(0, search_dir)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        raise ExtensionLoadError(display_path, f"Failed to load extension: {exc}") from exc
    finally:
        try:
            sys.path.remove(search_dir)
        except ValueError:
            pass
    factory: object = getattr(module, "extension", None)
    if not callable(factory):
        raise ExtensionLoadError(display_path, f"Extension does not export a valid factory function: {display_path}")
    return factory
