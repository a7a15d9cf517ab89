"""Where Pi's files live: the agent dir and the project dir.

The file names are Pi's own so that Pi and pi-harness can share one configuration.
"""

from __future__ import annotations

import os
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"
PROJECT_DIR_NAME = ".pi"

SETTINGS_FILE = "settings.json"
MODELS_FILE = "models.json"
AUTH_FILE = "auth.json"
TRUST_FILE = "trust.json"
MCP_FILE = "mcp.json"
KEYBINDINGS_FILE = "keybindings.json"
CRASHES_FILE = "crashes.json"
SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"
CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


def expand_home(value: str) -> str:
    if value == "~" or value.startswith("~/"):
        return str(Path.home()) + value[1:]
    return value


def agent_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``override`` (SDK ``agent_dir``), else ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    if override is not None:
        return Path(expand_home(os.fspath(override))).resolve()
    env = os.environ.get(AGENT_DIR_ENV)
    if env:
        return Path(expand_home(env)).resolve()
    return Path.home() / ".pi" / "agent"


def project_dir(cwd: str | os.PathLike[str]) -> Path:
    return Path(cwd) / PROJECT_DIR_NAME


def find_git_root(start: str | os.PathLike[str]) -> Path | None:
    """The nearest ancestor (or ``start`` itself) that contains ``.git``."""
    current = Path(start).resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def resolve_relative(base_dir: Path, value: str) -> Path:
    """A path from a settings file: ``~`` expanded, relative paths against that file's dir."""
    expanded = Path(expand_home(value))
    return expanded if expanded.is_absolute() else (base_dir / expanded)


def is_truthy_env(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")
