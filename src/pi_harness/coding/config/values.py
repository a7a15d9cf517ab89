"""Resolution of configured secret values.

``$NAME`` reads an environment variable, ``!command`` runs a shell command at use time (never
cached; 10 s timeout) and uses its trimmed stdout, a bare name of an existing environment variable
is accepted for compatibility, and anything else is a literal.
"""

from __future__ import annotations

import os
import re
import subprocess

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
COMMAND_TIMEOUT_S = 10.0
# The latest output of each ``!command`` value, kept in this process only so that secret masking
# (``pi_harness.coding.secrets``) knows what it produced; it is never reused as a value.
_COMMAND_OUTPUTS: dict[str, str] = {}
_MAX_COMMAND_OUTPUTS = 64


class ValueResolutionError(RuntimeError):
    pass


def resolve_config_value(value: str | None) -> str | None:
    """The usable value, or ``None`` when it resolves to nothing (unset variable, failed command)."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.startswith("!"):
        return run_value_command(text[1:])
    if text.startswith("$") and _ENV_NAME.match(text[1:]):
        return os.environ.get(text[1:]) or None
    if text.startswith("${") and text.endswith("}") and _ENV_NAME.match(text[2:-1]):
        return os.environ.get(text[2:-1]) or None
    if _ENV_NAME.match(text) and text.isupper() and os.environ.get(text):
        return os.environ[text]
    return value


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
        _COMMAND_OUTPUTS.pop(command, None)
        _COMMAND_OUTPUTS[command] = out
        while len(_COMMAND_OUTPUTS) > _MAX_COMMAND_OUTPUTS:
            del _COMMAND_OUTPUTS[next(iter(_COMMAND_OUTPUTS))]
    return out or None


def last_command_output(command: str) -> str | None:
    """What ``!command`` printed the last time this process ran it (``None``: never run)."""
    return _COMMAND_OUTPUTS.get(command)


def resolve_headers(headers: dict[str, str] | None) -> dict[str, str]:
    resolved: dict[str, str] = {}
    for name, value in (headers or {}).items():
        result = resolve_config_value(value)
        if result is not None:
            resolved[name] = result
    return resolved
