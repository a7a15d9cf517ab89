"""Lost-update protection of edit and write: the real tools on real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.coding.tools import ToolError, ToolOptions, create_coding_tools
from pi_harness.coding.tools.file_freshness import FileViews


def tools(tmp_path: Path, **options: Any) -> dict[str, AgentTool]:
    return {tool.name: tool for tool in create_coding_tools(str(tmp_path), ToolOptions(**options))}


async def run(tool: AgentTool, **params: Any) -> AgentToolResult:
    return await tool.execute("call", params, None, None)


async def edit(tool: AgentTool, path: str, old: str, new: str) -> AgentToolResult:
    return await run(tool, path=path, edits=[{"oldText": old, "newText": new}])


async def refused(tool: AgentTool, **params: Any) -> str:
    with pytest.raises(ToolError) as info:
        await run(tool, **params)
    return str(info.value)


async def test_edit_after_a_concurrent_change_fails_and_keeps_the_other_writers_content(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("alpha\nbeta\n")
    t = tools(tmp_path)
    await run(t["read"], path="notes.txt")
    target.write_text("alpha\nbeta\ngamma from the user\n")

    message = await refused(t["edit"], path="notes.txt", edits=[{"oldText": "beta", "newText": "BETA"}])
    assert "notes.txt has changed on disk since you last read it" in message
    assert "Read notes.txt again" in message
    assert target.read_text() == "alpha\nbeta\ngamma from the user\n"

    await run(t["read"], path="notes.txt")
    await edit(t["edit"], "notes.txt", "beta", "BETA")
    assert target.read_text() == "alpha\nBETA\ngamma from the user\n"


async def test_a_change_of_the_same_size_within_the_same_timestamp_is_seen(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("one two\n")
    t = tools(tmp_path)
    await run(t["read"], path="a.txt")
    stamp = os.stat(target).st_mtime_ns
    target.write_text("one TWO\n")
    os.utime(target, ns=(stamp, stamp))
    assert "has changed on disk" in await refused(t["edit"], path="a.txt", edits=[{"oldText": "one", "newText": "1"}])
    assert target.read_text() == "one TWO\n"


async def test_a_touched_file_with_the_same_content_is_still_fresh(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("same\n")
    t = tools(tmp_path)
    await run(t["read"], path="a.txt")
    os.utime(target, ns=(1, 1))
    await edit(t["edit"], "a.txt", "same", "changed")
    assert target.read_text() == "changed\n"


async def test_a_file_never_read_is_edited_as_in_pi(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("x = 1\n")
    t = tools(tmp_path)
    await edit(t["edit"], "a.txt", "x = 1", "x = 2")
    assert target.read_text() == "x = 2\n"


async def test_own_edits_and_writes_keep_the_file_fresh(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("v1\n")
    t = tools(tmp_path, stale_write_check=True)
    await run(t["read"], path="a.txt")
    await edit(t["edit"], "a.txt", "v1", "v2")
    await edit(t["edit"], "a.txt", "v2", "v3")
    await run(t["write"], path="a.txt", content="v4\n")
    await edit(t["edit"], "a.txt", "v4", "v5")
    assert target.read_text() == "v5\n"


async def test_write_over_a_changed_file_is_refused_only_when_enabled(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("mine\n")
    careful = tools(tmp_path, stale_write_check=True)
    await run(careful["read"], path="a.txt")
    target.write_text("theirs\n")
    message = await refused(careful["write"], path="a.txt", content="model\n")
    assert "a.txt has changed on disk since you last read it, so the write was not applied" in message
    assert target.read_text() == "theirs\n"

    default = tools(tmp_path)
    await run(default["read"], path="a.txt")
    target.write_text("theirs again\n")
    await run(default["write"], path="a.txt", content="model\n")
    assert target.read_text() == "model\n"


async def test_write_of_a_deleted_or_new_file_is_not_refused(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old\n")
    t = tools(tmp_path, stale_write_check=True)
    await run(t["read"], path="a.txt")
    target.unlink()
    await run(t["write"], path="a.txt", content="new\n")
    await run(t["write"], path="b.txt", content="fresh\n")
    assert target.read_text() == "new\n" and (tmp_path / "b.txt").read_text() == "fresh\n"


async def test_the_check_can_be_turned_off(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("a b\n")
    t = tools(tmp_path, stale_edit_check=False)
    await run(t["read"], path="a.txt")
    target.write_text("a b c\n")
    await edit(t["edit"], "a.txt", "a b", "A B")
    assert target.read_text() == "A B c\n"


async def test_a_partial_read_records_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "long.txt"
    target.write_text("".join(f"line {i}\n" for i in range(1, 3001)))
    t = tools(tmp_path)
    await run(t["read"], path="long.txt", offset=1, limit=5)
    with target.open("a") as handle:
        handle.write("appended\n")
    assert "has changed" in await refused(t["edit"], path="long.txt", edits=[{"oldText": "line 2\n", "newText": "x\n"}])


async def test_a_symlinked_path_shares_the_record_of_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("content\n")
    (tmp_path / "link.txt").symlink_to(target)
    t = tools(tmp_path)
    await run(t["read"], path="link.txt")
    target.write_text("content changed\n")
    assert "real.txt has changed" in await refused(
        t["edit"], path="real.txt", edits=[{"oldText": "content", "newText": "x"}]
    )


async def test_an_image_read_counts_as_seen(tmp_path: Path) -> None:
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
    target = tmp_path / "dot.png"
    target.write_bytes(png)
    views = FileViews()
    t = tools(tmp_path, file_views=views, auto_resize_images=False)
    await run(t["read"], path="dot.png")
    view = views.get(str(target))
    assert view is not None and view.size == len(png) and view.mtime_ns == os.stat(target).st_mtime_ns


async def test_the_newest_read_of_a_file_counts_whatever_name_it_was_read_by(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("first\n")
    (tmp_path / "link.txt").symlink_to(target)
    t = tools(tmp_path)
    await run(t["read"], path="real.txt")
    target.write_text("second\n")
    await run(t["read"], path="link.txt")  # the model has seen the change, by the other name
    await edit(t["edit"], "real.txt", "second", "third")
    assert target.read_text() == "third\n"
    target.write_text("fourth\n")
    await run(t["read"], path="link.txt")
    await run(t["read"], path="real.txt")
    await edit(t["edit"], "link.txt", "fourth", "fifth")
    assert target.read_text() == "fifth\n"


READ_AND_CHECK = """
import asyncio, sys
from pathlib import Path
from pi_harness.coding.tools import ToolOptions, create_coding_tools
from pi_harness.coding.tools.file_freshness import FileViews

async def main(root):
    views = FileViews()
    read = next(t for t in create_coding_tools(root, ToolOptions(file_views=views)) if t.name == "read")
    await read.execute("call", {"path": "notes.txt"}, None, None)
    path = str(Path(root, "notes.txt"))
    print(views.is_stale(path, b"alpha\\n"), views.is_stale(path, b"gamma\\n"), "hashlib" in sys.modules)

asyncio.run(main(sys.argv[1]))
"""


def test_a_read_and_its_freshness_check_leave_openssl_unloaded(tmp_path: Path) -> None:
    # hashlib loads OpenSSL's libcrypto: MiBs of memory and milliseconds at a session's first read.
    (tmp_path / "notes.txt").write_text("alpha\n")
    done = subprocess.run(
        [sys.executable, "-c", READ_AND_CHECK, str(tmp_path)], check=False, capture_output=True, text=True
    )
    assert done.stdout.split() == ["False", "True", "False"], done.stderr
