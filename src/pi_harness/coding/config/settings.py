"""settings.json: global and project files, merged, with defaults; the typed model on top.

Effective settings = defaults <- global <- project (trusted only) <- runtime overrides, where
nested objects merge one level deep and arrays/scalars replace. A file that fails to parse counts
as ``{}``, is reported as a diagnostic and is never written over. Writes change only the keys set
during this process, merged into the file's current content under Pi's ``<file>.lock`` lock.

Code reads settings through ``SettingsManager.values``, a ``Settings`` model parsed from the
effective settings whenever they change (``settings_model.py``; docs/settings.md lists every key).
A value the model cannot use adds a warning to ``diagnostics`` naming the key and its file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pi_harness.coding.config.file_lock import atomic_write, locked
from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir, project_dir, resolve_relative
from pi_harness.coding.config.settings_model import Settings, default_settings_json, global_only_keys, parse_settings
from pi_harness.coding.config.settings_rules import JsonValue, SettingsDiagnostic

Scope = Literal["global", "project"]
# Settings whose entries are paths, each resolved against the file that lists it.
PathListKey: TypeAlias = Literal["extensions", "skills", "prompts", "themes"]
# Settings holding one path, resolved against the file that sets it.
PathKey: TypeAlias = Literal["sessionDir", "shellPath"]

# The defaults merged under the files (and listed by ``pi config``), from the model's fields
# declared ``listed``. Copied on every use, never changed.
DEFAULTS: dict[str, JsonValue] = default_settings_json()

# Keys that only the global file may set.
GLOBAL_ONLY = global_only_keys()

__all__ = [
    "DEFAULTS",
    "GLOBAL_ONLY",
    "PathKey",
    "PathListKey",
    "Scope",
    "Settings",
    "SettingsDiagnostic",
    "SettingsManager",
    "merge_settings",
    "migrate_legacy",
]


def merge_settings(base: Mapping[str, object], override: Mapping[str, object]) -> dict[str, object]:
    """``override`` over ``base``: objects merge one level deep, everything else replaces."""
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = {**current, **value}
        else:
            merged[key] = value
    return merged


def _deep_defaults(defaults: Mapping[str, object], values: Mapping[str, object]) -> dict[str, object]:
    out = copy.deepcopy(dict(defaults))
    for key, value in values.items():
        current = out.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            out[key] = _deep_defaults(current, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def migrate_legacy(data: Mapping[str, object]) -> dict[str, object]:
    """Old key names Pi still accepts."""
    data = dict(data)
    if "queueMode" in data and "steeringMode" not in data:
        data["steeringMode"] = data.pop("queueMode")
    if isinstance(data.get("websockets"), bool) and "transport" not in data:
        data["transport"] = "websocket" if data.pop("websockets") else "sse"
    skills = data.get("skills")
    if isinstance(skills, dict):
        if "enableSkillCommands" in skills and "enableSkillCommands" not in data:
            data["enableSkillCommands"] = skills["enableSkillCommands"]
        data["skills"] = list(skills.get("customDirectories") or [])
    retry = data.get("retry")
    if isinstance(retry, dict) and "maxDelayMs" in retry:
        provider = dict(retry.get("provider") or {})
        provider.setdefault("maxRetryDelayMs", retry["maxDelayMs"])
        data["retry"] = {**{k: v for k, v in retry.items() if k != "maxDelayMs"}, "provider": provider}
    return data


def _lookup(data: Mapping[str, object], key: str) -> tuple[bool, object]:
    """``(found, value)`` of a dotted key."""
    node: object = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


class _SettingsFile:
    def __init__(self, path: Path | None, scope: Scope) -> None:
        self.path = path
        self.scope = scope
        self.data: dict[str, object] = {}
        self.broken = False

    def load(self, diagnostics: list[SettingsDiagnostic]) -> None:
        self.data, self.broken = {}, False
        if self.path is None or not self.path.exists():
            return
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError) as exc:
            self.broken = True
            diagnostics.append(SettingsDiagnostic(str(self.path), f"Failed to parse settings: {exc}"))
            return
        if not isinstance(raw, dict):
            self.broken = True
            diagnostics.append(SettingsDiagnostic(str(self.path), "Failed to parse settings: not a JSON object"))
            return
        self.data = migrate_legacy(raw)


class SettingsManager:
    """Effective settings of one process, read through the typed model: ``settings.values``."""

    def __init__(
        self,
        global_path: Path | None,
        project_path: Path | None,
        *,
        project_trusted: bool = True,
        initial: Mapping[str, object] | None = None,
    ) -> None:
        self._global = _SettingsFile(global_path, "global")
        self._project = _SettingsFile(project_path, "project")
        self.project_trusted = project_trusted
        self._memory: dict[str, object] = migrate_legacy(copy.deepcopy(dict(initial or {})))
        self._overrides: dict[str, object] = {}
        self.diagnostics: list[SettingsDiagnostic] = []
        self._effective: dict[str, object] = {}
        self._values = Settings()
        self.reload()

    @classmethod
    def create(
        cls, cwd: str | Path, agent_directory: str | Path | None = None, *, project_trusted: bool = True
    ) -> SettingsManager:
        base = agent_dir(agent_directory)
        return cls(base / SETTINGS_FILE, project_dir(cwd) / SETTINGS_FILE, project_trusted=project_trusted)

    @classmethod
    def in_memory(cls, data: Mapping[str, object] | None = None) -> SettingsManager:
        return cls(None, None, initial=data)

    # -- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.diagnostics = []
        self._global.load(self.diagnostics)
        if self.project_trusted:
            self._project.load(self.diagnostics)
        else:
            self._project.data = {}
        merged = merge_settings(merge_settings(self._memory, self._global.data), self._project_data())
        merged = merge_settings(merged, self._overrides)
        self._effective = _deep_defaults(DEFAULTS, merged)
        # Parsed here rather than on first use so that value warnings are in ``diagnostics``
        # as soon as the files are read; a parse is a few dozen field checks.
        self._values, warnings = parse_settings(self._effective, self._source_of)
        self.diagnostics.extend(warnings)

    def _project_data(self) -> dict[str, object]:
        return {k: v for k, v in self._project.data.items() if k not in GLOBAL_ONLY}

    def _source_of(self, key: str) -> str:
        """The file (or layer) the effective value of ``key`` comes from, for a warning."""
        layers: list[tuple[str, Mapping[str, object]]] = [("runtime settings", self._overrides)]
        if self._project.path is not None:
            layers.append((str(self._project.path), self._project_data()))
        if self._global.path is not None:
            layers.append((str(self._global.path), self._global.data))
        layers.append(("settings", self._memory))
        return next((name for name, data in layers if _lookup(data, key)[0]), "settings")

    def set_project_trusted(self, trusted: bool) -> None:
        if trusted != self.project_trusted:
            self.project_trusted = trusted
            self.reload()

    @property
    def global_path(self) -> Path | None:
        return self._global.path

    @property
    def project_path(self) -> Path | None:
        return self._project.path

    # -- reading -----------------------------------------------------------------------------

    @property
    def values(self) -> Settings:
        """The typed model of the effective settings (rebuilt on reload, set and set_override)."""
        return self._values

    def get(self, key: str, default: Any = None) -> Any:
        """The effective JSON value of a dotted key, unchecked, or ``default`` when it is unset.

        For keys a user types (``pi config get``) and for keys the model does not know; code
        reads ``values`` instead, whose attributes are typed and validated.
        """
        found, value = _lookup(self._effective, key)
        return copy.deepcopy(value) if found else default

    def is_set(self, key: str) -> bool:
        """Whether some layer (a file, the SDK's settings, a runtime override) sets the dotted key
        to a value, as opposed to it having only its default."""
        layers = (self._overrides, self._project_data(), self._global.data, self._memory)
        return any(found and value is not None for found, value in (_lookup(data, key) for data in layers))

    def effective(self) -> dict[str, object]:
        """A copy of the merged JSON settings, unknown keys included."""
        return copy.deepcopy(self._effective)

    def scope_value(self, scope: Scope, key: str) -> object:
        """The value one file itself gives ``key`` (``None`` when it does not set it)."""
        source = self._global if scope == "global" else self._project
        return _lookup(source.data, key)[1]

    def path_entries(self, key: PathListKey) -> list[tuple[str, Path, Scope]]:
        """Entries of a path-list setting with the directory each resolves against.

        Project entries come first (trusted projects only), then global ones, as in Pi.
        """
        out: list[tuple[str, Path, Scope]] = []
        for source in (self._project, self._global):
            if source.scope == "project" and not self.project_trusted:
                continue
            if source.path is None:
                continue
            for value in _path_list(source.data.get(key)):
                out.append((value, source.path.parent, source.scope))
        for value in _path_list(self._memory.get(key)):
            out.append((value, Path.cwd(), "global"))
        return out

    def extension_handler_timeout_ms(self) -> int | None:
        """Beyond Pi: ``values.extension_handler_timeout_ms`` (kept for existing callers)."""
        return self._values.extension_handler_timeout_ms

    def resolve_path_setting(self, key: PathKey) -> Path | None:
        """A single path setting (``sessionDir``, ``shellPath``) resolved against its file."""
        for source in (self._project, self._global):
            if source.scope == "project" and not self.project_trusted:
                continue
            value = source.data.get(key)
            if isinstance(value, str) and value and source.path is not None:
                return resolve_relative(source.path.parent, value)
        value = self._memory.get(key) or self._overrides.get(key)
        return resolve_relative(Path.cwd(), value) if isinstance(value, str) and value else None

    # -- writing -----------------------------------------------------------------------------

    def set_override(self, key: str, value: object) -> None:
        """A runtime value (CLI flag, SDK option) on top of the files; never persisted."""
        _assign(self._overrides, key.split("."), value)
        self.reload()

    def set(self, key: str, value: object, scope: Scope = "global") -> None:
        """Persist one key into the global (or project) file; in-memory managers keep it in memory."""
        source = self._global if scope == "global" else self._project
        parts = key.split(".")
        if source.path is None:
            _assign(self._memory, parts, value)
            self.reload()
            return
        if source.broken:
            raise RuntimeError(f"Not writing {source.path}: the file could not be parsed; fix it first")
        with locked(source.path):
            current: dict[str, object] = {}
            if source.path.exists():
                try:
                    loaded = json.loads(source.path.read_text(encoding="utf-8") or "{}")
                except ValueError as exc:
                    raise RuntimeError(f"Not writing {source.path}: {exc}") from exc
                current = loaded if isinstance(loaded, dict) else {}
            _assign(current, parts, value)
            text = json.dumps(current, indent=2, ensure_ascii=False) + "\n"
            atomic_write(source.path, text.encode("utf-8"))
        self.reload()


def _path_list(value: object) -> list[str]:
    """A path-list setting: a list, or an object whose ``paths`` holds the list."""
    if isinstance(value, dict):
        value = value.get("paths")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _assign(target: dict[str, object], parts: list[str], value: object) -> None:
    node = target
    for part in parts[:-1]:
        child = node.get(part)
        if isinstance(child, dict):
            node = child
            continue
        # A sub-key of a path list (``extensions.handlerTimeoutMs``) keeps the list as "paths".
        replacement: dict[str, object] = {"paths": child} if isinstance(child, list) else {}
        node[part] = replacement
        node = replacement
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
