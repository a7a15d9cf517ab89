"""Local content search and file listing: ripgrep when available, else the Python walker.

Both engines return the same results in the same order (see ``walker`` for the ignore rules and
``ripgrep.rg_grep`` for how the order is kept deterministic). The walker uses Python's ``re``,
whose syntax covers the common subset of ripgrep's regex dialect.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools.results import ABORTED_MESSAGE, ToolError
from pi_harness.coding.tools.ripgrep import RG_UNAVAILABLE_MESSAGE, find_ripgrep, rg_grep, rg_list_files
from pi_harness.coding.tools.search_types import GrepHit, GrepQuery, GrepSearchResult
from pi_harness.coding.tools.walker import walk_files

T = TypeVar("T")


class _Cancelled(Exception):
    pass


def resolve_rg(use_ripgrep: bool | None, agent_directory: str | Path | None) -> str | None:
    """``None`` = walker. ``use_ripgrep``: ``None`` auto, ``False`` never, ``True`` required."""
    if use_ripgrep is False:
        return None
    rg = find_ripgrep(agent_directory)
    if rg is None and use_ripgrep:
        raise ToolError(RG_UNAVAILABLE_MESSAGE)
    return rg


def compile_grep_pattern(query: GrepQuery) -> re.Pattern[str]:
    source = re.escape(query.pattern) if query.literal else query.pattern
    flags = re.MULTILINE | (re.IGNORECASE if query.ignore_case else 0)
    try:
        return re.compile(source, flags)
    except re.error as exc:
        raise ToolError(f"regex parse error: {exc}") from exc


def _matching_lines(regex: re.Pattern[str], text: str, whole_text_check: bool) -> list[int]:
    if whole_text_check and regex.search(text) is None:
        return []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text after a final newline is not a line
    return [number for number, line in enumerate(lines, 1) if regex.search(line) is not None]


def _walker_grep(query: GrepQuery, regex: re.Pattern[str], cancelled: threading.Event) -> GrepSearchResult:
    limit = max(1, query.limit)
    # \A, \Z and friends mean "line start/end" per line but "text start/end" on the whole text,
    # so the quick whole-text rejection is only valid without them.
    whole_text_check = not re.search(r"\\[AZz]", regex.pattern)
    candidates: Iterator[tuple[str, str]]
    if query.is_directory:
        candidates = ((rel, os.path.join(query.path, rel)) for rel in walk_files(query.path, _globs(query)))
    else:
        candidates = iter([(os.path.basename(query.path), query.path)])
    hits: list[GrepHit] = []
    for rel, absolute in candidates:
        if cancelled.is_set():
            raise _Cancelled
        try:
            with open(absolute, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if b"\0" in data:
            continue  # binary, as ripgrep skips it
        for number in _matching_lines(regex, data.decode("utf-8", "replace"), whole_text_check):
            hits.append(GrepHit(rel, number))
            if len(hits) >= limit:
                return GrepSearchResult(hits, limit_reached=True)
    return GrepSearchResult(hits, limit_reached=False)


def _globs(query: GrepQuery) -> list[str]:
    return [query.glob] if query.glob else []


async def _run_in_thread(signal: AbortSignal | None, work: Callable[[threading.Event], T]) -> T:
    """Run blocking ``work`` in a thread; it polls the event, which the abort signal sets."""
    cancelled = threading.Event()

    def listener(_reason: object) -> None:
        cancelled.set()

    if signal is not None:
        signal.add_listener(listener)
    try:
        return await asyncio.to_thread(work, cancelled)
    except _Cancelled:
        raise ToolError(ABORTED_MESSAGE) from None
    finally:
        if signal is not None:
            signal.remove_listener(listener)


async def local_grep(
    query: GrepQuery,
    signal: AbortSignal | None = None,
    *,
    use_ripgrep: bool | None = None,
    agent_directory: str | Path | None = None,
) -> GrepSearchResult:
    rg = resolve_rg(use_ripgrep, agent_directory)
    if rg is not None:
        return await rg_grep(rg, query, signal)
    regex = compile_grep_pattern(query)
    return await _run_in_thread(signal, lambda cancelled: _walker_grep(query, regex, cancelled))


def _walker_list(directory: str, cancelled: threading.Event) -> list[str]:
    files: list[str] = []
    for rel in walk_files(directory):
        if cancelled.is_set():
            raise _Cancelled
        files.append(rel)
    return files


async def local_list_files(
    directory: str,
    signal: AbortSignal | None = None,
    *,
    use_ripgrep: bool | None = None,
    agent_directory: str | Path | None = None,
) -> list[str]:
    """Relative paths of every non-ignored file under ``directory`` (unordered)."""
    rg = resolve_rg(use_ripgrep, agent_directory)
    if rg is not None:
        return await rg_list_files(rg, directory, signal)
    return await _run_in_thread(signal, lambda cancelled: _walker_list(directory, cancelled))
