"""Locating and driving ``rg`` for the grep and find tools.

Lookup order: ``<agentDir>/bin/rg`` (Pi's managed binaries), ``rg`` on PATH, then the binary the
``ripgrep`` wheel installs into the virtualenv's scripts directory. Nothing is downloaded.

Searches pass ``--no-config`` (a user's ``RIPGREP_CONFIG_PATH`` must not change what the tools
return), ``--hidden`` (hidden files are project files) and exclude ``.git``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import shutil
import sys
import sysconfig
from collections.abc import AsyncIterator
from pathlib import Path

import orjson

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.config.paths import agent_dir
from pi_harness.coding.tools.results import ABORTED_MESSAGE, ToolError
from pi_harness.coding.tools.search_types import (
    ALWAYS_EXCLUDED_DIRS,
    GrepHit,
    GrepQuery,
    GrepSearchResult,
    path_sort_key,
)

RG_UNAVAILABLE_MESSAGE = "ripgrep (rg) is not available and could not be downloaded"
_EXE = "rg.exe" if sys.platform == "win32" else "rg"
_wheel_binary: str | bool | None = False  # False = not looked up yet


def _is_executable(path: str | Path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _wheel_rg() -> str | None:
    """The binary the ``ripgrep`` wheel ships (installed as a script next to the interpreter)."""
    global _wheel_binary
    if _wheel_binary is False:
        found: str | None = None
        candidates = [Path(sysconfig.get_path("scripts")) / _EXE, Path(sys.executable).parent / _EXE]
        for candidate in candidates:
            if _is_executable(candidate):
                found = str(candidate)
                break
        if found is None:
            found = _rg_from_distribution()
        _wheel_binary = found
    return _wheel_binary if isinstance(_wheel_binary, str) else None


def _rg_from_distribution() -> str | None:
    from importlib import metadata

    try:
        files = metadata.distribution("ripgrep").files or []
    except metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name == _EXE:
            located = Path(str(entry.locate())).resolve()
            if _is_executable(located):
                return str(located)
    return None


def find_ripgrep(agent_directory: str | Path | None = None) -> str | None:
    managed = agent_dir(agent_directory) / "bin" / _EXE
    if _is_executable(managed):
        return str(managed)
    on_path = shutil.which("rg")
    if on_path:
        return on_path
    return _wheel_rg()


def _base_args(rg: str) -> list[str]:
    args = [rg, "--no-config", "--hidden", "--color=never"]
    for name in ALWAYS_EXCLUDED_DIRS:
        args += ["--glob", f"!{name}"]
    return args


def _decode_path(value: dict[str, str]) -> str:
    if "text" in value:
        return value["text"]
    return os.fsdecode(base64.b64decode(value.get("bytes", "")))


def _strip_dot(path: str) -> str:
    path = path.replace(os.sep, "/") if os.sep != "/" else path
    return path[2:] if path.startswith("./") else path


async def _lines(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Lines of any length (``StreamReader.readline`` refuses lines over its buffer limit)."""
    pending = b""
    while True:
        chunk = await stream.read(256 * 1024)
        if not chunk:
            break
        pending += chunk
        if b"\n" not in chunk:
            continue
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line
    if pending:
        yield pending


async def _spawn(args: list[str], cwd: str) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        raise ToolError(f"Failed to run ripgrep: {exc}") from exc


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def _collect_hits(
    args: list[str], cwd: str, stop_after: int, signal: AbortSignal | None
) -> tuple[list[GrepHit], bool, int | None, str]:
    """Run rg; the hits, whether we stopped it at ``stop_after``, its exit code and stderr."""
    proc = await _spawn(args, cwd)
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(proc.stderr.read())
    on_abort = (lambda _reason: _kill(proc)) if signal is not None else None
    if signal is not None and on_abort is not None:
        signal.add_listener(on_abort)
    hits: list[GrepHit] = []
    stopped = False
    try:
        async for line in _lines(proc.stdout):
            if not line.startswith(b'{"type":"match"'):
                continue
            data = orjson.loads(line)["data"]
            hits.append(GrepHit(_strip_dot(_decode_path(data["path"])), int(data["line_number"])))
            if len(hits) >= stop_after:
                stopped = True
                _kill(proc)
                break
        await proc.wait()
        stderr = (await stderr_task).decode("utf-8", "replace")
    finally:
        if signal is not None and on_abort is not None:
            signal.remove_listener(on_abort)
        if proc.returncode is None:
            _kill(proc)
            await proc.wait()
        if not stderr_task.done():
            stderr_task.cancel()
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED_MESSAGE)
    return hits, stopped, proc.returncode, stderr


def _grep_args(rg: str, query: GrepQuery, sort: bool) -> tuple[list[str], str]:
    args = [*_base_args(rg), "--json", "--line-number"]
    if sort:
        args += ["--sort", "path"]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    if query.glob:
        args += ["--glob", query.glob]
    if query.is_directory:
        cwd, target = query.path, "."
    else:
        cwd, target = os.path.dirname(query.path) or "/", os.path.basename(query.path)
    return [*args, "--regexp", query.pattern, "--", target], cwd


async def rg_grep(rg: str, query: GrepQuery, signal: AbortSignal | None = None) -> GrepSearchResult:
    """The first ``limit`` matches in path order.

    The fast parallel search gives an arbitrary order, which is fine when it finds at most
    ``limit`` matches (they are sorted afterwards). When there are more, which ``limit`` matches
    come first depends on that order, so the search is repeated in path order and stopped at the
    limit: results stay deterministic and equal to the walker's.
    """
    limit = max(1, query.limit)
    args, cwd = _grep_args(rg, query, sort=False)
    hits, stopped, code, stderr = await _collect_hits(args, cwd, limit + 1, signal)
    if not stopped:
        if code not in (0, 1) and not hits:
            raise ToolError(stderr.strip() or f"ripgrep exited with code {code}")
        hits.sort(key=lambda hit: (path_sort_key(hit.rel_path), hit.line_number))
        return GrepSearchResult(hits, limit_reached=len(hits) >= limit)
    args, cwd = _grep_args(rg, query, sort=True)
    hits, _, _, _ = await _collect_hits(args, cwd, limit, signal)
    return GrepSearchResult(hits[:limit], limit_reached=True)


async def rg_list_files(rg: str, directory: str, signal: AbortSignal | None = None) -> list[str]:
    """Every file rg would search under ``directory`` (gitignore honoured), ``/``-separated."""
    args = [*_base_args(rg), "--files", "--", "."]
    proc = await _spawn(args, directory)
    on_abort = (lambda _reason: _kill(proc)) if signal is not None else None
    if signal is not None and on_abort is not None:
        signal.add_listener(on_abort)
    try:
        stdout, stderr = await proc.communicate()
    finally:
        if signal is not None and on_abort is not None:
            signal.remove_listener(on_abort)
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED_MESSAGE)
    if proc.returncode not in (0, 1) and not stdout:
        raise ToolError(stderr.decode("utf-8", "replace").strip() or f"ripgrep exited with code {proc.returncode}")
    return [_strip_dot(os.fsdecode(line)) for line in stdout.split(b"\n") if line]
