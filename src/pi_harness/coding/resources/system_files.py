"""SYSTEM.md and APPEND_SYSTEM.md.

A trusted project's ``.pi/`` file wins over the agent dir's; ``--system-prompt`` and
``--append-system-prompt`` (text, or the path of an existing file) win over both.
"""

from __future__ import annotations

from pathlib import Path

from pi_harness.coding.config.paths import APPEND_SYSTEM_FILE, SYSTEM_FILE, project_dir


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


def text_or_file(value: str | None, cwd: str | Path) -> str | None:
    """A CLI value naming an existing file is read from disk; anything else is the text itself."""
    if value is None:
        return None
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = Path(cwd) / candidate
    if len(value) < 4096 and "\n" not in value:
        try:
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    return value


def find_system_prompt(cwd: str | Path, agent_directory: Path, *, project_trusted: bool) -> str | None:
    if project_trusted:
        text = _read(project_dir(cwd) / SYSTEM_FILE)
        if text is not None:
            return text
    return _read(agent_directory / SYSTEM_FILE)


def find_append_system_prompt(cwd: str | Path, agent_directory: Path, *, project_trusted: bool) -> str | None:
    if project_trusted:
        text = _read(project_dir(cwd) / APPEND_SYSTEM_FILE)
        if text is not None:
            return text
    return _read(agent_directory / APPEND_SYSTEM_FILE)
