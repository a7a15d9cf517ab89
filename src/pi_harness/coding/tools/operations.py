"""The I/O seams of the built-in tools.

Every tool does its file system and process work through an operations object, so a host or an
extension can redirect it (SSH, containers, sandboxes) by passing its own implementation to the
tool factory. The ``Local*`` classes are the defaults and act on this machine.

Error conventions: file methods raise ``OSError`` subclasses (``FileNotFoundError``,
``PermissionError``, ``IsADirectoryError``...) or any exception whose message is shown to the
model. ``BashOperations.exec`` raises an exception whose message is ``aborted`` or
``timeout:<secs>`` for an abort or a timeout, so the bash tool can word them.
"""

from __future__ import annotations

import asyncio
import os
import stat as stat_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools.atomic_write import write_file_atomic
from pi_harness.coding.tools.bash_exec import ExecResult, run_shell_command
from pi_harness.coding.tools.glob import compile_find_pattern
from pi_harness.coding.tools.local_search import local_grep, local_list_files
from pi_harness.coding.tools.process import KILL_GRACE_SECONDS
from pi_harness.coding.tools.read_operations import (
    INLINE_READ_LIMIT,
    ChunkedReadOperations,
    LocalReadOperations,
    ReadOperations,
    _check_file,
    _read_bytes,
)
from pi_harness.coding.tools.results import ToolError
from pi_harness.coding.tools.search_types import GrepQuery, GrepSearchResult, path_sort_key
from pi_harness.coding.tools.shell import resolve_shell

# --- protocols (those of ``read`` are in ``read_operations``) ------------------------------------


class WriteOperations(Protocol):
    async def write_file(self, path: str, content: bytes) -> None: ...

    async def mkdir(self, path: str) -> None:
        """Create ``path`` and its parents; no error if it exists."""
        ...


class EditOperations(Protocol):
    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, content: bytes) -> None: ...

    async def access(self, path: str) -> None:
        """Raise unless ``path`` is a readable and writable file."""
        ...


class BashOperations(Protocol):
    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str],
    ) -> ExecResult:
        """Run ``command`` in ``cwd``; raise if ``cwd`` does not exist."""
        ...


@dataclass(frozen=True)
class FileStat:
    is_directory: bool


class LsOperations(Protocol):
    async def exists(self, path: str) -> bool: ...

    async def stat(self, path: str) -> FileStat:
        """Follows symbolic links."""
        ...

    async def readdir(self, path: str) -> list[str]: ...


class GrepOperations(Protocol):
    async def is_directory(self, path: str) -> bool:
        """Raise ``FileNotFoundError`` when ``path`` does not exist."""
        ...

    async def read_file(self, path: str) -> bytes: ...

    async def search(self, query: GrepQuery, signal: AbortSignal | None) -> GrepSearchResult: ...


class FindOperations(Protocol):
    async def exists(self, path: str) -> bool: ...

    async def glob(
        self, pattern: str, search_path: str, *, ignore: Sequence[str], limit: int, signal: AbortSignal | None
    ) -> list[str]:
        """Up to ``limit`` matches, ``/``-separated and relative to ``search_path`` (or absolute),
        in a stable order; directories end in ``/``. ``ignore`` lists globs a custom
        implementation must skip; the local one honours .gitignore instead."""
        ...


# --- local implementations --------------------------------------------------------------------


class LocalWriteOperations:
    async def write_file(self, path: str, content: bytes) -> None:
        await asyncio.to_thread(write_file_atomic, path, content)

    async def mkdir(self, path: str) -> None:
        await asyncio.to_thread(os.makedirs, path, exist_ok=True)


class LocalEditOperations:
    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_bytes, path)

    async def write_file(self, path: str, content: bytes) -> None:
        await asyncio.to_thread(write_file_atomic, path, content)

    async def access(self, path: str) -> None:
        await asyncio.to_thread(_check_file, path, os.R_OK | os.W_OK)


class LocalBashOperations:
    """Runs commands on this machine with the configured shell (``<shell> -c <command>``)."""

    def __init__(
        self,
        *,
        shell_path: str | None = None,
        settings_path: str | None = None,
        reap_orphans: bool = False,
        kill_grace: float = KILL_GRACE_SECONDS,
        shell_argv: Sequence[str] | None = None,
    ) -> None:
        self.shell_argv = tuple(shell_argv) if shell_argv is not None else None  # e.g. pwsh -Command
        self.shell_path = shell_path
        self.settings_path = settings_path
        self.reap_orphans = reap_orphans
        self.kill_grace = kill_grace

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str],
    ) -> ExecResult:
        if not os.path.isdir(cwd):
            raise ToolError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
        if self.shell_argv is not None:
            argv = [*self.shell_argv, command]
        else:
            shell = resolve_shell(self.shell_path, self.settings_path)
            argv = [shell.shell, *shell.args, command]
        return await run_shell_command(
            argv,
            cwd,
            on_data=on_data,
            signal=signal,
            timeout=timeout,
            env=env,
            reap_orphans=self.reap_orphans,
            kill_grace=self.kill_grace,
        )


class LocalLsOperations:
    async def exists(self, path: str) -> bool:
        return os.path.exists(path)

    async def stat(self, path: str) -> FileStat:
        info = await asyncio.to_thread(os.stat, path)
        return FileStat(is_directory=stat_module.S_ISDIR(info.st_mode))

    async def readdir(self, path: str) -> list[str]:
        return await asyncio.to_thread(os.listdir, path)


class _LocalSearch:
    """The choice of search engine: ripgrep when found (``use_ripgrep`` ``None``), else the Python
    walker; ``agent_directory`` is the agent dir whose ``bin`` may hold ripgrep."""

    def __init__(self, *, use_ripgrep: bool | None = None, agent_directory: str | Path | None = None) -> None:
        self.use_ripgrep = use_ripgrep
        self.agent_directory = agent_directory


class LocalGrepOperations(_LocalSearch):
    """Searches with ripgrep when found (``use_ripgrep`` ``None``), else with the Python walker."""

    async def is_directory(self, path: str) -> bool:
        info = await asyncio.to_thread(os.stat, path)
        return stat_module.S_ISDIR(info.st_mode)

    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_bytes, path)

    async def search(self, query: GrepQuery, signal: AbortSignal | None) -> GrepSearchResult:
        return await local_grep(query, signal, use_ripgrep=self.use_ripgrep, agent_directory=self.agent_directory)


class LocalFindOperations(_LocalSearch):
    """Lists non-ignored files (ripgrep or the walker) and matches them against the glob.

    Directories are reported (with a trailing ``/``) when their path matches and they contain at
    least one listed file; empty directories are not seen by either engine.
    """

    async def exists(self, path: str) -> bool:
        return os.path.exists(path)

    async def glob(
        self, pattern: str, search_path: str, *, ignore: Sequence[str], limit: int, signal: AbortSignal | None
    ) -> list[str]:
        if not os.path.isdir(search_path):
            raise ToolError(f"Not a directory: {search_path}")
        files = await local_list_files(
            search_path, signal, use_ripgrep=self.use_ripgrep, agent_directory=self.agent_directory
        )
        return await asyncio.to_thread(match_listing, files, pattern, limit)


def match_listing(files: Sequence[str], pattern: str, limit: int) -> list[str]:
    """The first ``limit`` files and parent directories matching ``pattern``, in path order."""
    matches = compile_find_pattern(pattern)
    results: list[str] = [path for path in files if matches(path)]
    directories: set[str] = set()
    for path in files:
        parent = path.rpartition("/")[0]
        while parent and parent not in directories:
            directories.add(parent)
            parent = parent.rpartition("/")[0]
    results.extend(f"{directory}/" for directory in directories if matches(directory))
    results.sort(key=lambda path: path_sort_key(path.rstrip("/")))
    return results[:limit]


__all__ = [
    "INLINE_READ_LIMIT",
    "BashOperations",
    "ChunkedReadOperations",
    "EditOperations",
    "FileStat",
    "FindOperations",
    "GrepOperations",
    "LocalBashOperations",
    "LocalEditOperations",
    "LocalFindOperations",
    "LocalGrepOperations",
    "LocalLsOperations",
    "LocalReadOperations",
    "LocalWriteOperations",
    "LsOperations",
    "ReadOperations",
    "WriteOperations",
    "match_listing",
]
