"""Resolution of configured secret values (``apiKey``, header values, auth.json keys).

A value starting with ``!`` is a shell command run at use time (never cached; 10 s timeout) whose
trimmed stdout is the value. Any other value is a template: ``$NAME`` and ``${NAME}`` anywhere in
it are replaced by that environment variable (``env`` overrides first, then the process
environment), ``$$`` and ``$!`` stand for a literal ``$`` and ``!``, and the rest is literal. A
template naming an unset variable resolves to nothing, as Pi 1.4 does.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
COMMAND_TIMEOUT_S = 10.0
# The latest output of each ``!command`` value, kept in this process only so that secret masking
# (``pi_harness.coding.secrets``) knows what it produced; it is never reused as a value.
_COMMAND_OUTPUTS: dict[str, str] = {}
_MAX_COMMAND_OUTPUTS = 64
# Counts the changes of ``_COMMAND_OUTPUTS`` (``command_outputs_generation``).
_command_outputs_changes = 0


class ValueResolutionError(RuntimeError):
    pass


@dataclass(frozen=True)
class _Env:
    name: str


def _parse_template(value: str) -> list[str | _Env]:
    parts: list[str | _Env] = []

    def literal(text: str) -> None:
        if not text:
            return
        if parts and isinstance(parts[-1], str):
            parts[-1] += text
        else:
            parts.append(text)

    index = 0
    while index < len(value):
        dollar = value.find("$", index)
        if dollar < 0:
            literal(value[index:])
            break
        literal(value[index:dollar])
        following = value[dollar + 1 : dollar + 2]
        if following in ("$", "!"):
            literal(following)
            index = dollar + 2
            continue
        if following == "{":
            end = value.find("}", dollar + 2)
            if end < 0:
                literal("$")
                index = dollar + 1
                continue
            name = value[dollar + 2 : end]
            if _ENV_NAME.fullmatch(name):
                parts.append(_Env(name))
            else:
                literal(value[dollar : end + 1])
            index = end + 1
            continue
        match = _ENV_NAME.match(value, dollar + 1)
        if match:
            parts.append(_Env(match.group(0)))
            index = match.end()
            continue
        literal("$")
        index = dollar + 1
    return parts


def _env_value(name: str, env: Mapping[str, str] | None) -> str | None:
    return (env or {}).get(name) or os.environ.get(name) or None


def is_command_value(value: str) -> bool:
    return value.startswith("!")


def env_names(value: str) -> list[str]:
    """The environment variables a template value reads (none for a command)."""
    if is_command_value(value):
        return []
    names: list[str] = []
    for part in _parse_template(value):
        if isinstance(part, _Env) and part.name not in names:
            names.append(part.name)
    return names


def missing_env_names(value: str, env: Mapping[str, str] | None = None) -> list[str]:
    return [name for name in env_names(value) if _env_value(name, env) is None]


def resolve_config_value(value: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The usable value, or ``None`` when it resolves to nothing (unset variable, failed command)."""
    if value is None:
        return None
    if is_command_value(value):
        return run_value_command(value[1:])
    resolved = ""
    for part in _parse_template(value):
        if isinstance(part, str):
            resolved += part
            continue
        found = _env_value(part.name, env)
        if found is None:
            return None
        resolved += found
    return resolved or None


def run_value_command(command: str) -> str | None:
    try:
        completed = subprocess.run(
            command,
            shell=True,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode != 0:
        return None
    out = completed.stdout.strip()
    if out:
        global _command_outputs_changes
        if _COMMAND_OUTPUTS.get(command) != out:
            _command_outputs_changes += 1
        _COMMAND_OUTPUTS.pop(command, None)
        _COMMAND_OUTPUTS[command] = out
        while len(_COMMAND_OUTPUTS) > _MAX_COMMAND_OUTPUTS:
            del _COMMAND_OUTPUTS[next(iter(_COMMAND_OUTPUTS))]
    return out or None


def last_command_output(command: str) -> str | None:
    """What ``!command`` printed the last time this process ran it (``None``: never run)."""
    return _COMMAND_OUTPUTS.get(command)


def command_outputs_generation() -> int:
    """A number that changes whenever ``last_command_output`` may answer differently."""
    return _command_outputs_changes


def resolve_headers(headers: Mapping[str, str] | None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    resolved: dict[str, str] = {}
    for name, value in (headers or {}).items():
        result = resolve_config_value(value, env)
        if result is not None:
            resolved[name] = result
    return resolved
