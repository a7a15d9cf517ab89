"""``pi config``: the effective settings and where each value comes from (a non-TUI take).

* ``pi config [--json]`` lists every setting as ``key = value  (source)``, the source being
  ``default``, ``global`` or ``project`` (project values only when the project is trusted).
* ``pi config get <key> [--json]`` prints one effective value (strings as they are).
* ``pi config set <key> <value> [--project]`` writes through SettingsManager (lock, merge into the
  current file). The value is read as JSON when it parses (``true``, ``3``, ``["a"]``), else as a
  string; known keys are type-checked. ``pi config unset <key> [--project]`` removes a key.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pi_harness.cli.subcommands.common import ProjectTrust, UsageError, load_settings, parse_command_args

if TYPE_CHECKING:
    from pi_harness.coding.config.settings import SettingsManager

USAGE = """Usage: pi config [--json]
       pi config get <key> [--json]
       pi config set <key> <value> [--project]
       pi config unset <key> [--project]

Shows the effective settings with the file each value comes from, or reads and writes one
setting. Keys use dots for nested objects (compaction.enabled). Values are JSON when they parse
(true, 3, ["a","b"]) and plain strings otherwise. --project writes <cwd>/.pi/settings.json.
"""


@dataclass(frozen=True)
class _Tagged:
    value: object
    source: str


def _tag(data: Mapping[str, object], source: str) -> dict[str, object]:
    return {k: _tag(v, source) if isinstance(v, dict) else _Tagged(v, source) for k, v in data.items()}


def _fill_defaults(defaults: dict[str, object], values: dict[str, object]) -> dict[str, object]:
    """Like SettingsManager's deep defaults: missing keys at any depth come from the defaults."""
    out = dict(defaults)
    for key, value in values.items():
        current = out.get(key)
        out[key] = _fill_defaults(current, value) if isinstance(value, dict) and isinstance(current, dict) else value
    return out


def _flatten(tree: Mapping[str, object], prefix: str = "") -> list[tuple[str, object, str]]:
    rows: list[tuple[str, object, str]] = []
    for key in sorted(tree):
        node = tree[key]
        name = f"{prefix}{key}"
        if isinstance(node, dict):
            rows += _flatten(node, name + ".")
        elif isinstance(node, _Tagged):
            rows.append((name, node.value, node.source))
    return rows


def _read_json_object(path: Path | None) -> dict[str, object]:
    from pi_harness.coding.config.settings import migrate_legacy

    if path is None or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return migrate_legacy(data) if isinstance(data, dict) else {}


def settings_with_sources(settings: SettingsManager) -> list[tuple[str, object, str]]:
    """``(dotted key, effective value, source)`` for every leaf, merged exactly as SettingsManager
    merges (project over global one level deep, then defaults filled in at any depth)."""
    from pi_harness.coding.config.settings import DEFAULTS, GLOBAL_ONLY, merge_settings

    merged = _tag(_read_json_object(settings.global_path), "global")
    if settings.project_trusted:
        project = {k: v for k, v in _read_json_object(settings.project_path).items() if k not in GLOBAL_ONLY}
        merged = merge_settings(merged, _tag(project, "project"))
    return _flatten(_fill_defaults(_tag(DEFAULTS, "default"), merged))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _project_status(settings: SettingsManager, trust: ProjectTrust) -> str:
    path = settings.project_path
    if path is None or not path.exists():
        return f"{path} (none)"
    if trust.trusted:
        return f"{path} (trusted)"
    return f"{path} (project not trusted: ignored; trust it with pi --approve or defaultProjectTrust)"


def _show(settings: SettingsManager, trust: ProjectTrust, as_json: bool, out: TextIO) -> int:
    rows = settings_with_sources(settings)
    if as_json:
        data = {
            "files": {
                "global": str(settings.global_path),
                "project": str(settings.project_path),
                "projectTrusted": trust.trusted,
            },
            "settings": {key: {"value": value, "source": source} for key, value, source in rows},
        }
        print(_json(data), file=out)
        return 0
    print(f"Global settings:  {settings.global_path}", file=out)
    print(f"Project settings: {_project_status(settings, trust)}", file=out)
    for diagnostic in settings.diagnostics:
        print(f"Warning: {diagnostic}", file=out)
    print(file=out)
    for key, value, source in rows:
        print(f"{key} = {_json(value)}  ({source})", file=out)
    return 0


def parse_setting_value(key: str, raw: str) -> object:
    """The value to store for ``pi config set``; raises ``UsageError`` for a wrong type or choice.

    The settings model says what a key takes; keys it does not know take any JSON value.
    """
    from pi_harness.coding.config.settings_model import setting_rule

    try:
        value: object = json.loads(raw)
    except ValueError:
        value = raw
    rule = setting_rule(key)
    if rule is None:
        return value
    if rule.json_types == (str,) and not isinstance(value, str):
        value = raw  # "pi config set defaultModel 4" means the string "4"
    if value is None:  # JSON null removes the key
        return None
    if rule.json_types and not any(_has_json_type(value, t) for t in rule.json_types):
        raise UsageError(f"{key} expects a {rule.json_name}, got {_json(value)}")
    choices = rule.choices
    if choices is not None and not any(type(value) is type(c) and value == c for c in choices):
        valid = ", ".join(c if isinstance(c, str) else _json(c) for c in choices)
        raise UsageError(f"Invalid value for {key}: {_json(value)}. Valid values: {valid}")
    return value


def _has_json_type(value: object, expected: type) -> bool:
    """Whether ``value`` is of a JSON type: ``true`` is no number, any number does for a number."""
    if expected is bool or isinstance(value, bool):
        return expected is bool and isinstance(value, bool)
    if expected in (int, float):
        return isinstance(value, int | float)
    return isinstance(value, expected)


_MISSING = object()


def _get(settings: SettingsManager, key: str, as_json: bool, out: TextIO, err: TextIO) -> int:
    value = settings.get(key, _MISSING)
    if value is _MISSING:
        print(f"Error: Unknown setting: {key}", file=err)
        return 1
    print(value if isinstance(value, str) and not as_json else _json(value), file=out)
    return 0


def _set(settings: SettingsManager, key: str, value: object, project: bool, out: TextIO) -> int:
    from pi_harness.coding.config.settings import GLOBAL_ONLY

    if project and key.split(".", maxsplit=1)[0] in GLOBAL_ONLY:
        raise UsageError(f"{key} can only be set in the global settings file")
    settings.set(key, value, "project" if project else "global")
    path = settings.project_path if project else settings.global_path
    if value is None:
        print(f"Removed {key} from {path}", file=out)
    else:
        print(f"Set {key} = {_json(value)} in {path}", file=out)
    return 0


def run_config_command(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    agent_directory: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``argv`` is everything after ``config``; returns the exit code."""
    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr
    try:
        args = parse_command_args(
            "config", argv, switches=("--json", "--project", "--help"), aliases={"-h": "--help", "-l": "--project"}
        )
        if "--help" in args.switches:
            print(USAGE, end="", file=stdout)
            return 0
        settings, trust = load_settings(cwd, agent_directory)
        action, operands = (args.positionals[0], args.positionals[1:]) if args.positionals else ("show", [])
        as_json, project = "--json" in args.switches, "--project" in args.switches
        if action == "show" and not operands:
            return _show(settings, trust, as_json, stdout)
        if action == "get" and len(operands) == 1:
            return _get(settings, operands[0], as_json, stdout, stderr)
        if action == "set" and len(operands) == 2:
            return _set(settings, operands[0], parse_setting_value(operands[0], operands[1]), project, stdout)
        if action == "unset" and len(operands) == 1:
            return _set(settings, operands[0], None, project, stdout)
        raise UsageError(f"Invalid config command: {' '.join(args.positionals)}\n\n{USAGE.rstrip()}")
    except UsageError as exc:
        print(f"Error: {exc}", file=stderr)
        return 1
    except BrokenPipeError:
        raise
    except (RuntimeError, OSError) as exc:  # e.g. an unparsable file SettingsManager refuses to overwrite
        print(f"Error: {exc}", file=stderr)
        return 1
