"""The project's files for ``@`` completion: a walk that honours ``.gitignore`` files.

Every ``.gitignore`` from the root down applies to its directory (the deepest file that has an
opinion decides, ``!pattern`` re-includes), ``.git`` is never entered, hidden files are listed,
symbolic links are not followed, and the walk stops after ``max_entries`` paths so a huge tree
cannot stall the editor. Paths are relative with ``/``; directories end with ``/``.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator

import pathspec

DEFAULT_MAX_ENTRIES = 20_000


def _load_gitignore(directory: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], relative: str, is_dir: bool) -> bool:
    for base, spec in reversed(specs):  # deepest first
        local = relative[len(base) :] if base else relative
        result = spec.check_file(local + "/" if is_dir else local)
        if result.include is not None:
            return bool(result.include)
    return False


def walk_project(root: str, max_entries: int = DEFAULT_MAX_ENTRIES) -> Iterator[str]:
    """Relative paths under ``root`` (directories with a trailing ``/``), breadth first."""
    queue: deque[tuple[str, list[tuple[str, pathspec.GitIgnoreSpec]]]] = deque([("", [])])
    count = 0
    while queue:
        relative_dir, inherited = queue.popleft()
        absolute = os.path.join(root, relative_dir) if relative_dir else root
        specs = inherited
        own = _load_gitignore(absolute)
        if own is not None:
            specs = [*inherited, (relative_dir, own)]
        try:
            with os.scandir(absolute) as entries:
                listing = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in listing:
            if entry.name == ".git":
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            relative = relative_dir + entry.name
            if _ignored(specs, relative, is_dir):
                continue
            yield relative + "/" if is_dir else relative
            count += 1
            if count >= max_entries:
                return
            if is_dir:
                queue.append((relative + "/", specs))


class FileIndex:
    """A cached listing of ``root``; ``refresh`` re-walks (e.g. after the agent wrote files)."""

    def __init__(self, root: str, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.root = root
        self.max_entries = max_entries
        self._entries: list[str] | None = None

    def entries(self) -> list[str]:
        if self._entries is None:
            self._entries = list(walk_project(self.root, self.max_entries))
        return self._entries

    def refresh(self) -> None:
        self._entries = None
