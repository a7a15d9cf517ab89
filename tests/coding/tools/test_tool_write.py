from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.abort import AbortController
from pi_harness.coding.tools import ToolError, ToolOptions, create_write_tool, with_file_mutation_queue
from pi_harness.coding.tools.atomic_write import current_umask
from pi_harness.coding.tools.mutation_queue import mutation_key, pending_mutations


def text(result: AgentToolResult) -> str:
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def test_creates_parents_and_counts_utf8_bytes(tmp_path: Path) -> None:
    tool = create_write_tool(str(tmp_path))
    result = await tool.execute("c", {"path": "deep/er/new.txt", "content": "h\u00e9llo\n"}, None, None)
    assert text(result) == "Successfully wrote 7 bytes to deep/er/new.txt"
    assert "details" not in result
    target = tmp_path / "deep" / "er" / "new.txt"
    assert target.read_text() == "h\u00e9llo\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~current_umask()


async def test_overwrite_keeps_mode_and_follows_symlinks(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    real = work / "real.sh"
    real.write_text("old")
    real.chmod(0o700)
    (work / "link.sh").symlink_to("real.sh")
    tool = create_write_tool(str(work))
    await tool.execute("c", {"path": "link.sh", "content": "new"}, None, None)
    assert (work / "link.sh").is_symlink()
    assert real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o700
    assert sorted(os.listdir(work)) == ["link.sh", "real.sh"]


async def test_abort_is_checked_before_writing(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    tool = create_write_tool(str(tmp_path))
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await tool.execute("c", {"path": "x.txt", "content": "x"}, controller.signal, None)
    assert not (tmp_path / "x.txt").exists()


class _SlowWrite:
    """Write operations that record the order of their steps and can be held mid-write."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.release = asyncio.Event()

    async def mkdir(self, path: str) -> None:
        return None

    async def write_file(self, path: str, content: bytes) -> None:
        self.log.append(f"start {content.decode()}")
        if content == b"first":
            await self.release.wait()
        self.log.append(f"end {content.decode()}")


async def test_abort_does_not_release_the_file_early(tmp_path: Path) -> None:
    ops = _SlowWrite()
    tool = create_write_tool(str(tmp_path), ToolOptions(write_operations=ops))
    controller = AbortController()
    first = asyncio.ensure_future(tool.execute("1", {"path": "f", "content": "first"}, controller.signal, None))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(tool.execute("2", {"path": "f", "content": "second"}, None, None))
    await asyncio.sleep(0.01)
    controller.abort()  # the first write is in progress: it finishes before the second starts
    await asyncio.sleep(0.01)
    assert ops.log == ["start first"]
    ops.release.set()
    await first
    await second
    assert ops.log == ["start first", "end first", "start second", "end second"]


async def test_cancelled_caller_keeps_the_lock_until_its_operation_ends() -> None:
    log: list[str] = []
    release = asyncio.Event()

    async def slow() -> None:
        log.append("slow start")
        await release.wait()
        log.append("slow end")

    async def fast() -> None:
        log.append("fast")

    first = asyncio.ensure_future(with_file_mutation_queue("/tmp/some-file", slow))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(with_file_mutation_queue("/tmp/some-file", fast))
    await asyncio.sleep(0.01)
    first.cancel()
    await asyncio.sleep(0.01)
    assert log == ["slow start"]
    release.set()
    await second
    assert log == ["slow start", "slow end", "fast"]
    assert pending_mutations() == 0


async def test_different_files_run_in_parallel() -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def op(name: str) -> None:
        started.append(name)
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)

    await asyncio.gather(
        with_file_mutation_queue("/tmp/file-a", lambda: op("a")),
        with_file_mutation_queue("/tmp/file-b", lambda: op("b")),
    )
    assert sorted(started) == ["a", "b"]


def test_mutation_key_uses_real_paths(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    assert mutation_key(str(tmp_path / "alias" / "new" / "file.txt")) == str(real / "new" / "file.txt")
    (real / "x").write_text("")
    assert mutation_key(str(tmp_path / "alias" / "x")) == str(real / "x")
