"""Context files: AGENTS.md and friends.

Per directory the first existing of ``AGENTS.override.md``, ``AGENTS.md``, ``AGENTS.MD``,
``CLAUDE.md``, ``CLAUDE.MD`` is used; the global file of the agent dir comes first, then every
directory from the filesystem root down to cwd. Files are de-duplicated by real path and, for linked
git worktrees, by identical content at the same repository-relative location. Not trust-gated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.config.paths import CONTEXT_FILE_NAMES, find_git_root
from pi_harness.coding.resources.diagnostics import ResourceDiagnostic


@dataclass(frozen=True)
class ContextFile:
    path: str
    content: str


def _first_existing(directory: Path) -> Path | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        if candidate.is_file() and _spelled_so(directory, name):
            return candidate
    return None


def _spelled_so(directory: Path, name: str) -> bool:
    """Whether the file found as ``name`` has exactly that name. On a file system that ignores
    case, ``AGENTS.MD`` finds ``AGENTS.md`` too, so the directory is listed; elsewhere the name
    with its case swapped is not there, and nothing is listed (a listing of every directory up
    to the root would make the directories' other files part of startup's inputs)."""
    if not os.path.exists(directory / name.swapcase()):
        return True
    try:
        return name in os.listdir(directory)
    except OSError:
        return False


def load_context_files(
    cwd: str | Path, agent_directory: Path, diagnostics: list[ResourceDiagnostic] | None = None
) -> list[ContextFile]:
    cwd_path = Path(cwd).resolve()
    candidates: list[Path] = []
    global_file = _first_existing(agent_directory)
    if global_file is not None:
        candidates.append(global_file)
    for directory in [*reversed(cwd_path.parents), cwd_path]:
        found = _first_existing(directory)
        if found is not None:
            candidates.append(found)
    files: list[ContextFile] = []
    seen_real: set[str] = set()
    seen_repo_content: set[tuple[str, str]] = set()
    for path in candidates:
        real = os.path.realpath(path)
        if real in seen_real:
            continue
        seen_real.add(real)
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            if diagnostics is not None:
                diagnostics.append(ResourceDiagnostic("warning", f"could not read context file: {exc}", str(path)))
            continue
        root = find_git_root(path.parent)
        if root is not None:
            key = (str(path.relative_to(root)), content)
            if key in seen_repo_content:
                continue
            seen_repo_content.add(key)
        files.append(ContextFile(str(path.resolve()), content))
    return files
