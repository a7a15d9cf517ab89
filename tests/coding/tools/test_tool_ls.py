from __future__ import annotations

import os
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from pi_harness.agent.types import AgentToolResult
from pi_harness.coding.tools import FileStat, ToolError, ToolOptions, create_ls_tool


def text(result: AgentToolResult) -> str:
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def error_of(awaitable: Awaitable[Any]) -> str:
    with pytest.raises(ToolError) as info:
        await awaitable
    return str(info.value)


async def ls(cwd: Path, **params: Any) -> AgentToolResult:
    return await create_ls_tool(str(cwd)).execute("c", params, None, None)


async def test_sorted_case_insensitively_with_dirs_marked_and_dotfiles(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for name in ("beta.txt", "Alpha.txt", ".hidden", "gamma.py"):
        (root / name).write_text("")
    (root / "Zeta").mkdir()
    (root / "delta").mkdir()
    (root / "to-delta").symlink_to("delta")
    (root / "dangling").symlink_to("nowhere")
    result = await ls(root)
    assert text(result) == ".hidden\nAlpha.txt\nbeta.txt\ndelta/\ngamma.py\nto-delta/\nZeta/"
    assert "details" not in result


async def test_empty_directory_and_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert text(await ls(tmp_path, path="empty")) == "(empty directory)"
    assert await error_of(ls(tmp_path, path="missing")) == f"Path not found: {tmp_path / 'missing'}"
    (tmp_path / "file.txt").write_text("")
    assert await error_of(ls(tmp_path, path="file.txt")) == f"Not a directory: {tmp_path / 'file.txt'}"
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        if not os.access(locked, os.R_OK):  # root reads anything
            assert await error_of(ls(tmp_path, path="locked")) == "Cannot read directory: Permission denied"
    finally:
        locked.chmod(0o755)


async def test_entry_limit_at_and_past_the_boundary(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for index in range(3):
        (root / f"f{index}").write_text("")
    assert text(await ls(root, limit=3)) == "f0\nf1\nf2"
    result = await ls(root, limit=2)
    assert text(result) == "f0\nf1\n\n[2 entries limit reached. Use limit=4 for more]"
    assert result["details"] == {"entryLimitReached": 2}


async def test_default_limit_is_500(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for index in range(501):
        (root / f"f{index:03d}").write_text("")
    output = text(await ls(root))
    assert output.endswith("f499\n\n[500 entries limit reached. Use limit=1000 for more]")


async def test_byte_limit(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for index in range(300):
        (root / (f"{index:03d}" + "n" * 200)).write_text("")
    result = await ls(root)
    body, notice = text(result).rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]" and len(body.encode()) <= 51200
    assert result["details"]["truncation"]["truncatedBy"] == "bytes"


class _RemoteLs:
    async def exists(self, path: str) -> bool:
        return path == "/srv"

    async def stat(self, path: str) -> FileStat:
        return FileStat(is_directory=path in ("/srv", "/srv/www"))

    async def readdir(self, path: str) -> list[str]:
        return ["www", "README"]


async def test_custom_operations() -> None:
    tool = create_ls_tool("/srv", ToolOptions(ls_operations=_RemoteLs()))
    assert text(await tool.execute("c", {}, None, None)) == "README\nwww/"


class _UnreadableLs(_RemoteLs):
    async def readdir(self, path: str) -> list[str]:
        raise PermissionError(13, "Permission denied", path)


async def test_unreadable_directory() -> None:
    tool = create_ls_tool("/srv", ToolOptions(ls_operations=_UnreadableLs()))
    assert await error_of(tool.execute("c", {}, None, None)) == "Cannot read directory: Permission denied"
