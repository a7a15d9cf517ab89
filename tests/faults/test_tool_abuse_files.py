"""File tools against hostile files: devices, a 2 GB sparse file, binaries, symlink loops.

Each test runs the real ``pi --mode rpc`` with one scripted tool call and checks the result the
model gets, that the call ends, and (where a file is big) the process's peak memory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _faults import check_session
from _pi_env import PiEnv
from _tool_runs import StartRpc, run_tool

from pi_harness.coding.tools import ToolOptions, create_find_tool, create_grep_tool, create_ls_tool

SPARSE_BYTES = 2 * 1024**3
MEMORY_BOUND_KB = 100 * 1024  # peak RSS growth during the call


def test_read_dev_zero_is_refused(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    run = run_tool(pi_env, start_rpc, "read", {"path": "/dev/zero"})
    assert run.is_error
    assert "binary file" in run.text
    assert run.peak_growth_kb < MEMORY_BOUND_KB


@pytest.mark.timeout(90)
def test_read_of_a_2_gb_sparse_file_is_bounded(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    # Text first (so it is not refused as binary), then a hole up to 2 GB: one huge line of NULs.
    path = pi_env.cwd / "sparse.log"
    with path.open("wb") as handle:
        handle.write(b"".join(b"line %d\n" % n for n in range(3000)))
        handle.truncate(SPARSE_BYTES)
    assert path.stat().st_blocks * 512 < 1024**2  # really sparse: no 2 GB written to disk
    run = run_tool(pi_env, start_rpc, "read", {"path": "sparse.log"}, timeout=80)
    assert not run.is_error, run.text
    assert run.text.startswith("line 0\nline 1\n")
    assert "[Showing lines 1-2000 of 3001" in run.text
    assert run.peak_growth_kb < MEMORY_BOUND_KB
    # A sparse file that starts with its hole is refused at once, from its first bytes.
    hole_first = pi_env.cwd / "hole.dat"
    with hole_first.open("wb") as handle:
        handle.truncate(SPARSE_BYTES)
    run = run_tool(pi_env, start_rpc, "read", {"path": "hole.dat"})
    assert run.is_error and "binary file" in run.text


def binary_tree(root: Path) -> None:
    root.mkdir()
    (root / "tool.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64 + b"needle\x00\xff\xfe")
    (root / "notes.txt").write_text("a needle in text\n")


def test_read_of_a_binary_file_is_refused(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    binary_tree(pi_env.cwd / "data")
    run = run_tool(pi_env, start_rpc, "read", {"path": "data/tool.bin"})
    assert run.is_error
    assert "binary file" in run.text


def test_grep_skips_binary_files(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    binary_tree(pi_env.cwd / "data")
    run = run_tool(pi_env, start_rpc, "grep", {"pattern": "needle", "path": "data"}, "--tools", "read,grep")
    assert not run.is_error, run.text
    assert "notes.txt:1: a needle in text" in run.text
    assert "\x00" not in run.text and "\ufffd" not in run.text
    assert "tool.bin:" not in run.text  # no binary garbage reaches the model


def symlink_loops(root: Path) -> None:
    (root / "tree" / "sub").mkdir(parents=True)
    (root / "tree" / "sub" / "file.txt").write_text("findme\n")
    os.symlink("..", root / "tree" / "sub" / "up")  # a directory loop
    os.symlink(".", root / "tree" / "self")
    os.symlink("loop_b", root / "tree" / "loop_a")  # a loop of dangling links
    os.symlink("loop_a", root / "tree" / "loop_b")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("find", {"pattern": "*.txt", "path": "tree"}),
        ("ls", {"path": "tree"}),
        ("grep", {"pattern": "findme", "path": "tree"}),
    ],
)
def test_symlink_loops_end_and_list_each_file_once(
    pi_env: PiEnv, start_rpc: StartRpc, tool: str, arguments: dict[str, str]
) -> None:
    symlink_loops(pi_env.cwd)
    run = run_tool(pi_env, start_rpc, tool, arguments, "--tools", "read,find,ls,grep", timeout=30)
    assert not run.is_error, run.text
    if tool == "ls":  # links that cannot be followed are left out (as Pi does)
        assert run.text.split("\n") == ["self/", "sub/"]
    else:
        assert run.text.count("file.txt") == 1, run.text
    run.client.close_stdin()
    assert run.client.wait_exit() == 0
    (session,) = pi_env.sessions()
    check_session(session)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("use_ripgrep", [True, False], ids=["ripgrep", "walker"])
async def test_both_search_engines_end_on_symlink_loops_and_skip_binaries(tmp_path: Path, use_ripgrep: bool) -> None:
    # ``pi`` uses ripgrep when it finds one; the pure-Python walker (no ripgrep) must agree.
    symlink_loops(tmp_path)
    binary_tree(tmp_path / "tree" / "data")
    options = ToolOptions(use_ripgrep=use_ripgrep)
    found = await create_find_tool(str(tmp_path), options).execute(
        "c", {"pattern": "*.txt", "path": "tree"}, None, None
    )
    assert found["content"][0]["text"].split("\n") == ["data/notes.txt", "sub/file.txt"]
    grep = create_grep_tool(str(tmp_path), options)
    hits = await grep.execute("c", {"pattern": "findme|needle", "path": "tree"}, None, None)
    assert hits["content"][0]["text"].split("\n") == ["data/notes.txt:1: a needle in text", "sub/file.txt:1: findme"]
    listed = await create_ls_tool(str(tmp_path), options).execute("c", {"path": "tree/sub"}, None, None)
    assert listed["content"][0]["text"].split("\n") == ["file.txt", "up/"]
