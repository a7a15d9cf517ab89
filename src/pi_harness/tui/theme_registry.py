"""The themes available to a session: built-ins, then custom JSON files, first name wins.

Custom theme paths come from the resource loader (``<agentDir>/themes``, trusted ``.pi/themes``,
packages, settings ``themes``, ``--theme``); a path may be a file or a directory of ``*.json``
files. The active custom theme hot-reloads: ``reload_changed`` re-reads files whose modification
time moved and reports which theme names changed.

As in Pi, ``system`` (the default) and ``"<light>/<dark>"`` pairs are settings values rather than
files: they pick a theme by the terminal's appearance. ``system`` is built from the colours the
terminal reported at startup (``terminal_colors``, ``system_theme``); when it reported no
background, it is the built-in ``dark`` or ``light`` by the ``COLORFGBG`` appearance. The
appearance (for light/dark pairs too) comes from the reported background first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pi_harness.tui.colors import ColorMode
from pi_harness.tui.system_theme import build_system_theme, is_dark
from pi_harness.tui.terminal_colors import TerminalColors, reported_colors
from pi_harness.tui.theme import BUILTIN_THEMES, SYSTEM_THEME, Theme, ThemeSpec, builtin_theme, load_theme_file


@dataclass
class _Loaded:
    spec: ThemeSpec
    path: Path | None
    mtime: float | None


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _theme_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix == ".json" and p.is_file())
    return [path]


class ThemeRegistry:
    """Themes by name with the diagnostics produced while loading them."""

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]] = (),
        *,
        include_builtins: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.diagnostics: list[str] = []
        self._env = env
        self._themes: dict[str, _Loaded] = {}
        if include_builtins:
            for name in BUILTIN_THEMES:
                self._themes[name] = _Loaded(builtin_theme(name), None, None)
        for raw in paths:
            path = Path(raw)
            if not path.exists():
                self.diagnostics.append(f"Theme path not found: {path}")
                continue
            for file in _theme_files(path):
                self._add_file(file)

    def _add_file(self, file: Path) -> str | None:
        spec, errors = load_theme_file(file)
        if spec is None:
            self.diagnostics.extend(errors)
            return None
        if spec.name == SYSTEM_THEME or "/" in spec.name:
            why = "is reserved" if spec.name == SYSTEM_THEME else 'contains "/" (reserved for light/dark pairs)'
            self.diagnostics.append(f'Theme "{spec.name}" from {file} ignored: the name {why}')
            return None
        existing = self._themes.get(spec.name)
        if existing is not None and existing.path != file:
            where = existing.path or "built-in themes"
            self.diagnostics.append(f'Theme "{spec.name}" from {file} ignored: the name is already used by {where}')
            return None
        self._themes[spec.name] = _Loaded(spec, file, _mtime(file))
        return spec.name

    def names(self) -> list[str]:
        """``system`` first (Pi's default), then the loaded themes."""
        return [SYSTEM_THEME, *self._themes]

    def path_of(self, name: str) -> str | None:
        """The file a custom theme came from (``None`` for built-ins and unknown names)."""
        loaded = self._themes.get(name)
        return str(loaded.path) if loaded is not None and loaded.path is not None else None

    def get(self, name: str) -> ThemeSpec | None:
        """A theme by name; ``system`` and light/dark pairs give the theme matching the terminal."""
        if name == SYSTEM_THEME:
            colors = reported_colors()
            if colors is not None and colors.background is not None:
                return _system_spec(colors)
        loaded = self._themes.get(resolve_theme_setting(name, self._env))
        return loaded.spec if loaded else None

    def resolve(self, name_or_path: str) -> ThemeSpec | None:
        """A theme by name, or a JSON file by path (``--theme <path>``), registered on first use."""
        spec = self.get(name_or_path)
        if spec is not None:
            return spec
        path = Path(name_or_path).expanduser()
        if path.suffix == ".json" and path.is_file():
            name = self._add_file(path.resolve())
            return self.get(name) if name else None
        return None

    def create(self, name: str, mode: ColorMode | None = None) -> Theme:
        """The named theme bound to a colour mode; an unknown name falls back to ``dark`` with a diagnostic."""
        spec = self.resolve(name)
        if spec is None:
            self.diagnostics.append(f'Theme "{name}" not found, using "dark"')
            spec = builtin_theme("dark")
        return Theme(spec, mode)

    def reload_changed(self) -> list[str]:
        """Re-read custom theme files changed on disk; returns the names that were reloaded.

        A file that became invalid keeps its last good version (and adds diagnostics).
        """
        changed: list[str] = []
        for name, loaded in list(self._themes.items()):
            if loaded.path is None:
                continue
            mtime = _mtime(loaded.path)
            if mtime is None or mtime == loaded.mtime:
                continue
            loaded.mtime = mtime
            spec, errors = load_theme_file(loaded.path)
            if spec is None:
                self.diagnostics.extend(errors)
                continue
            if spec.name != name:
                self.diagnostics.append(f"Theme {loaded.path} changed its name to {spec.name!r}; keeping {name!r}")
                continue
            loaded.spec = spec
            changed.append(name)
        return changed


_system_cache: dict[TerminalColors, ThemeSpec] = {}


def _system_spec(colors: TerminalColors) -> ThemeSpec:
    spec = _system_cache.get(colors)
    if spec is None:
        spec = _system_cache[colors] = build_system_theme(colors)
    return spec


def terminal_appearance(env: Mapping[str, str] | None = None) -> str:
    """``light`` or ``dark`` from the background index of ``COLORFGBG``; ``dark`` without one.

    Like Pi: indices 0-6 and 8 are dark backgrounds, 7 and 9-15 light; anything else is unknown.
    """
    reported = reported_colors()
    if reported is not None and reported.background is not None:
        return "dark" if is_dark(reported.background) else "light"
    env = os.environ if env is None else env
    background = env.get("COLORFGBG", "").split(";")[-1].strip()
    if background.isdigit() and len(background) <= 2 and int(background) <= 15:
        return "dark" if int(background) <= 6 or int(background) == 8 else "light"
    return "dark"


def resolve_theme_setting(name: str, env: Mapping[str, str] | None = None) -> str:
    """The theme a ``theme`` setting means: ``system`` and ``"<light>/<dark>"`` follow the terminal."""
    if name == SYSTEM_THEME:
        return terminal_appearance(env)
    light, slash, dark = name.partition("/")
    if slash and "/" not in dark and light.strip() and dark.strip():
        return light.strip() if terminal_appearance(env) == "light" else dark.strip()
    return name


def detect_default_theme(env: Mapping[str, str] | None = None) -> str:
    """The concrete theme of Pi's default ``system`` setting (used before ``theme`` is saved)."""
    return resolve_theme_setting(SYSTEM_THEME, env)
