"""Which shell runs commands, and with what environment."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir
from pi_harness.coding.tools.results import ToolError

# Variables the coding session provides to every command (1.4.0).
SESSION_ENV_NAMES = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")

EnvProvider = Callable[[], Mapping[str, str]]


@dataclass(frozen=True)
class ShellConfig:
    shell: str
    args: tuple[str, ...]  # arguments placed before the command text


_cache: dict[tuple[str | None, str | None], ShellConfig] = {}


def resolve_shell(shell_path: str | None = None, settings_path: str | None = None) -> ShellConfig:
    """The setting ``shellPath`` if given, else ``/bin/bash``, ``bash`` on PATH, then ``sh``."""
    key = (shell_path, settings_path)
    cached = _cache.get(key)
    if cached is not None and (shell_path is None or os.path.exists(cached.shell)):
        return cached
    config = _resolve_uncached(shell_path, settings_path)
    _cache[key] = config
    return config


def _resolve_uncached(shell_path: str | None, settings_path: str | None) -> ShellConfig:
    if shell_path:
        if not os.path.exists(shell_path):
            where = settings_path or str(agent_dir() / SETTINGS_FILE)
            raise ToolError(f"Custom shell path not found: {shell_path}\nPlease update shellPath in {where}")
        return ShellConfig(shell_path, ("-c",))
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return _windows_shell()
    if os.path.exists("/bin/bash"):
        return ShellConfig("/bin/bash", ("-c",))
    found = shutil.which("bash")
    if found:
        return ShellConfig(found, ("-c",))
    return ShellConfig(shutil.which("sh") or "/bin/sh", ("-c",))


def _windows_shell() -> ShellConfig:  # pragma: no cover - Windows only
    candidates = []
    for env_name in ("ProgramFiles", "ProgramFiles(x86)"):
        base = os.environ.get(env_name)
        if base:
            candidates.append(os.path.join(base, "Git", "bin", "bash.exe"))
    for candidate in candidates:
        if os.path.exists(candidate):
            return ShellConfig(candidate, ("-c",))
    found = shutil.which("bash.exe")
    if found:
        return ShellConfig(found, ("-c",))
    raise ToolError(
        "No bash shell found. Options:\n"
        "  1. Install Git for Windows: https://git-scm.com/download/win\n"
        "  2. Add your bash to PATH (Cygwin, MSYS2, WSL)\n"
        "  3. Set shellPath in settings.json"
    )


def prepare_command(command: str, prefix: str | None) -> str:
    """The setting ``shellCommandPrefix`` goes on its own line before the command."""
    return f"{prefix}\n{command}" if prefix else command


def build_command_env(
    extra: EnvProvider | Mapping[str, str] | None = None, agent_directory: str | Path | None = None
) -> dict[str, str]:
    """The harness's own environment, ``<agentDir>/bin`` first on PATH, plus session variables."""
    env = dict(os.environ)
    bin_dir = str(agent_dir(agent_directory) / "bin")
    path_entries = env.get("PATH", "").split(os.pathsep) if env.get("PATH") else []
    if bin_dir not in path_entries:
        env["PATH"] = os.pathsep.join([bin_dir, *path_entries])
    if extra is not None:
        values = extra() if callable(extra) else extra
        env.update({name: str(value) for name, value in values.items()})
    return env
