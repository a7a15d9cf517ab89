"""What a content search asks for and what it returns (shared by rg and the Python walker)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Never searched or listed: repository internals are not project files.
ALWAYS_EXCLUDED_DIRS = (".git",)


@dataclass(frozen=True)
class GrepQuery:
    pattern: str
    path: str  # absolute directory or file to search
    is_directory: bool
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    limit: int = 100


@dataclass(frozen=True)
class GrepHit:
    rel_path: str  # "/"-separated, relative to the searched directory (the basename for a file)
    line_number: int  # 1-based


@dataclass
class GrepSearchResult:
    """The first ``limit`` matching lines in path order (per-directory name order, depth first)."""

    hits: list[GrepHit] = field(default_factory=list)
    limit_reached: bool = False


def path_sort_key(rel_path: str) -> tuple[str, ...]:
    """Order of a depth-first walk that visits each directory's entries by name.

    Comparing component tuples (not whole strings) puts ``a/b`` before ``a.txt``, which is the
    order ``rg --sort path`` and the walker produce.
    """
    return tuple(rel_path.split("/"))
