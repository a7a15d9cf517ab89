"""grep and find, each with ripgrep and with the pure-Python walker, on the same trees."""

from __future__ import annotations

import os
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from pi_harness.agent.types import AgentToolResult
from pi_harness.coding.tools import (
    GrepHit,
    GrepQuery,
    GrepSearchResult,
    ToolError,
    ToolOptions,
    create_find_tool,
    create_grep_tool,
    find_ripgrep,
)
from pi_harness.coding.tools.walker import expand_braces

ENGINES = [pytest.param(True, id="ripgrep"), pytest.param(False, id="walker")]


def text(result: AgentToolResult) -> str:
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def error_of(awaitable: Awaitable[Any]) -> str:
    with pytest.raises(ToolError) as info:
        await awaitable
    return str(info.value)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    files: dict[str, str | bytes] = {
        ".git/config": "needle in git internals",
        ".gitignore": "build/\n*.log\n!keep.log\nsecret*\n",
        ".env": "TOKEN=needle\n",
        ".hidden/h.txt": "needle hidden\n",
        "a.txt": "needle one\nnothing\nneedle two\n",
        "a/b.txt": "needle in a dir\n",
        "b.log": "needle ignored log\n",
        "keep.log": "needle kept log\n",
        "build/out.txt": "needle build\n",
        "secret_stuff.txt": "needle secret\n",
        "src/.gitignore": "generated.py\n",
        "src/main.py": "def needle():\n    return 'needle()'\n",
        "src/generated.py": "needle generated\n",
        "src/sub/deep.py": "x = 1\nneedle = 2\ny = 3\n",
        "src/sub/data.bin": b"needle\x00binary",
        "docs/.ignore": "draft.md\n",
        "docs/draft.md": "needle draft\n",
        "docs/final.md": "Needle final\n",
        "crlf.txt": "needle\r\nafter\r\n",
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, newline="")
    (root / "link.txt").symlink_to("a.txt")
    return root


async def grep(root: Path, use_rg: bool, **params: Any) -> str:
    if use_rg and find_ripgrep() is None:
        pytest.skip("ripgrep not installed")
    tool = create_grep_tool(str(root), ToolOptions(use_ripgrep=use_rg))
    return text(await tool.execute("c", params, None, None))


async def find(root: Path, use_rg: bool, **params: Any) -> str:
    if use_rg and find_ripgrep() is None:
        pytest.skip("ripgrep not installed")
    tool = create_find_tool(str(root), ToolOptions(use_ripgrep=use_rg))
    return text(await tool.execute("c", params, None, None))


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_grep_honours_ignore_files_and_orders_by_path(tree: Path, use_rg: bool) -> None:
    assert await grep(tree, use_rg, pattern="needle") == "\n".join(
        [
            ".env:1: TOKEN=needle",
            ".hidden/h.txt:1: needle hidden",
            "a/b.txt:1: needle in a dir",
            "a.txt:1: needle one",
            "a.txt:3: needle two",
            "crlf.txt:1: needle",
            "keep.log:1: needle kept log",
            "src/main.py:1: def needle():",
            "src/main.py:2:     return 'needle()'",
            "src/sub/deep.py:2: needle = 2",
        ]
    )


QUERIES: list[dict[str, Any]] = [
    {"pattern": "NEEDLE", "ignoreCase": True},
    {"pattern": "needle()", "literal": True},
    {"pattern": "needle", "glob": "*.py"},
    {"pattern": "needle", "glob": "src/**"},
    {"pattern": "needle", "glob": "*.{md,log}"},
    {"pattern": "needle", "glob": "!*.py"},
    {"pattern": "^needle$"},
    {"pattern": r"ne+dle\s+\w+"},
    {"pattern": "needle", "context": 1},
    {"pattern": "needle", "limit": 3},
    {"pattern": "needle", "path": "src"},
    {"pattern": "needle", "path": "src/sub/deep.py"},
    {"pattern": "needle", "path": "build"},
    {"pattern": "absent-word"},
]


@pytest.mark.parametrize("query", QUERIES, ids=[str(q) for q in QUERIES])
async def test_grep_with_and_without_ripgrep_gives_the_same_output(tree: Path, query: dict[str, Any]) -> None:
    assert await grep(tree, True, **query) == await grep(tree, False, **query)


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_grep_context_single_file_and_messages(tree: Path, use_rg: bool) -> None:
    assert await grep(tree, use_rg, pattern="needle", path="src/sub/deep.py", context=1) == (
        "deep.py-1- x = 1\ndeep.py:2: needle = 2\ndeep.py-3- y = 3"
    )
    assert await grep(tree, use_rg, pattern="nothing-like-this") == "No matches found"
    # A glob overrides the ignore files, as with rg --glob: the .ignore'd draft is searched.
    assert await grep(tree, use_rg, pattern="needle", glob="*.md") == "docs/draft.md:1: needle draft"
    tool = create_grep_tool(str(tree), ToolOptions(use_ripgrep=use_rg))
    assert await error_of(tool.execute("c", {"pattern": "x", "path": "nope"}, None, None)) == (
        f"Path not found: {tree / 'nope'}"
    )


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_grep_match_limit_at_and_past_the_boundary(tmp_path: Path, use_rg: bool) -> None:
    for count in (3, 4):
        root = tmp_path / f"t{count}"
        root.mkdir()
        (root / "f.txt").write_text("hit\n" * count)
        output = await grep(root, use_rg, pattern="hit", limit=4)
        lines = [f"f.txt:{n}: hit" for n in range(1, count + 1)]
        if count < 4:
            assert output == "\n".join(lines)
        else:
            assert output == "\n".join(lines) + (
                "\n\n[4 matches limit reached. Use limit=8 for more, or refine pattern]"
            )
    root = tmp_path / "many"
    root.mkdir()
    for index in range(30):
        (root / f"f{index:02d}.txt").write_text("hit\n")
    output = await grep(root, use_rg, pattern="hit", limit=5)
    assert output.split("\n\n")[0] == "\n".join(f"f{n:02d}.txt:1: hit" for n in range(5))


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_grep_long_lines_and_byte_limit(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "wide.txt").write_text("hit " + "x" * 600 + "\n")
    output = await grep(tmp_path, use_rg, pattern="hit", path="wide.txt")
    assert output == (
        "wide.txt:1: hit " + "x" * 496 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    (tmp_path / "many.txt").write_text(("hit " + "y" * 300 + "\n") * 200)
    output = await grep(tmp_path, use_rg, pattern="hit", path="many.txt", limit=200)
    body, notice = output.rsplit("\n\n", 1)
    assert len(body.encode()) <= 51200
    assert notice == "[200 matches limit reached. Use limit=400 for more, or refine pattern. 50.0KB limit reached]"


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_invalid_regex_is_an_error(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    if use_rg and find_ripgrep() is None:
        pytest.skip("ripgrep not installed")
    tool = create_grep_tool(str(tmp_path), ToolOptions(use_ripgrep=use_rg))
    assert "regex parse error" in await error_of(tool.execute("c", {"pattern": "(unclosed"}, None, None))


FIND_PATTERNS = ["*.py", "**/*.py", "src/**/*.py", "*.PY", "*.md", "sub", "*", "a*", "*.{txt,log}", "nothing*"]


@pytest.mark.parametrize("pattern", FIND_PATTERNS)
async def test_find_with_and_without_ripgrep_gives_the_same_output(tree: Path, pattern: str) -> None:
    assert await find(tree, True, pattern=pattern) == await find(tree, False, pattern=pattern)


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_find_results(tree: Path, use_rg: bool) -> None:
    assert await find(tree, use_rg, pattern="*.py") == "src/main.py\nsrc/sub/deep.py"
    assert await find(tree, use_rg, pattern="src/**/*.py") == "src/main.py\nsrc/sub/deep.py"
    assert await find(tree, use_rg, pattern="sub") == "src/sub/"
    assert await find(tree, use_rg, pattern="*.PY") == "No files found matching pattern"  # smart case
    assert await find(tree, use_rg, pattern="*.MD".lower()) == "docs/final.md"
    assert await find(tree, use_rg, pattern="*.txt", path="src") == "No files found matching pattern"
    assert await find(tree, use_rg, pattern="*") == "\n".join(
        [
            ".env",
            ".gitignore",
            ".hidden/",
            ".hidden/h.txt",
            "a/",
            "a/b.txt",
            "a.txt",
            "crlf.txt",
            "docs/",
            "docs/.ignore",
            "docs/final.md",
            "keep.log",
            "src/",
            "src/.gitignore",
            "src/main.py",
            "src/sub/",
            "src/sub/data.bin",
            "src/sub/deep.py",
        ]
    )


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_find_limits_and_errors(tmp_path: Path, use_rg: bool) -> None:
    for index in range(3):
        (tmp_path / f"f{index}.dat").write_text("")
    assert await find(tmp_path, use_rg, pattern="*.dat", limit=4) == "f0.dat\nf1.dat\nf2.dat"
    assert await find(tmp_path, use_rg, pattern="*.dat", limit=3) == (
        "f0.dat\nf1.dat\nf2.dat\n\n[3 results limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert await find(tmp_path, use_rg, pattern="*.dat", limit=2) == (
        "f0.dat\nf1.dat\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    tool = create_find_tool(str(tmp_path), ToolOptions(use_ripgrep=use_rg))
    assert await error_of(tool.execute("c", {"pattern": "*", "path": "nope"}, None, None)) == (
        f"Path not found: {tmp_path / 'nope'}"
    )


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_find_byte_limit(tmp_path: Path, use_rg: bool) -> None:
    for index in range(300):
        (tmp_path / (f"{index:03d}" + "n" * 200)).write_text("")
    output = await find(tmp_path, use_rg, pattern="*n", limit=1000)
    body, notice = output.rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]" and len(body.encode()) <= 51200


def test_ripgrep_is_found_in_the_virtualenv_without_path(monkeypatch: pytest.MonkeyPatch) -> None:
    found = find_ripgrep()
    if found is None:
        pytest.skip("ripgrep not installed")
    monkeypatch.setenv("PATH", "")
    wheel_binary = find_ripgrep()
    assert wheel_binary is not None and os.access(wheel_binary, os.X_OK)


async def test_ripgrep_required_but_missing(tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi_harness.coding.tools.ripgrep as ripgrep

    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(ripgrep, "_wheel_binary", None)
    tool = create_grep_tool(str(tmp_path), ToolOptions(use_ripgrep=True))
    assert await error_of(tool.execute("c", {"pattern": "x"}, None, None)) == (
        "ripgrep (rg) is not available and could not be downloaded"
    )
    (tmp_path / "a.txt").write_text("x\n")
    auto = create_grep_tool(str(tmp_path))  # falls back to the walker
    assert text(await auto.execute("c", {"pattern": "x", "path": "a.txt"}, None, None)) == "a.txt:1: x"


async def test_managed_binary_in_agent_dir_wins(tmp_path: Path, agent_dir: Path) -> None:
    fake = agent_dir / "bin" / "rg"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho 'fake rg' >&2\nexit 2\n")
    fake.chmod(0o755)
    assert find_ripgrep() == str(fake)
    tool = create_grep_tool(str(tmp_path), ToolOptions(use_ripgrep=True))
    assert await error_of(tool.execute("c", {"pattern": "x"}, None, None)) == "fake rg"


async def test_ripgrep_failures_are_reported(tmp_path: Path, agent_dir: Path) -> None:
    fake = agent_dir / "bin" / "rg"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    tool = create_grep_tool(str(tmp_path), ToolOptions(use_ripgrep=True))
    assert await error_of(tool.execute("c", {"pattern": "x"}, None, None)) == "ripgrep exited with code 3"
    fake.write_text("#!/no/such/interpreter\n")
    assert (await error_of(tool.execute("c", {"pattern": "x"}, None, None))).startswith("Failed to run ripgrep: ")


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_aborted_search(tree: Path, use_rg: bool) -> None:
    from pi_harness.ai.abort import AbortController

    controller = AbortController()
    controller.abort()
    for tool in (
        create_grep_tool(str(tree), ToolOptions(use_ripgrep=use_rg)),
        create_find_tool(str(tree), ToolOptions(use_ripgrep=use_rg)),
    ):
        assert await error_of(tool.execute("c", {"pattern": "x"}, controller.signal, None)) == "Operation aborted"


def test_brace_expansion() -> None:
    assert expand_braces("*.{ts,tsx}") == ["*.ts", "*.tsx"]
    assert expand_braces("{a,b}/{c,d}") == ["a/c", "a/d", "b/c", "b/d"]


class _RemoteGrep:
    async def is_directory(self, path: str) -> bool:
        if path != "/remote":
            raise FileNotFoundError(path)
        return True

    async def read_file(self, path: str) -> bytes:
        if path.endswith("gone.txt"):
            raise OSError("vanished")
        return b"first\r\nsecond hit\r\nthird\r\n"

    async def search(self, query: GrepQuery, signal: Any) -> GrepSearchResult:
        return GrepSearchResult([GrepHit("a.txt", 2), GrepHit("gone.txt", 1)], limit_reached=False)


class _RemoteFind:
    async def exists(self, path: str) -> bool:
        return path == "/remote"

    async def glob(self, pattern: str, search_path: str, *, ignore: Any, limit: int, signal: Any) -> list[str]:
        assert list(ignore) == ["**/node_modules/**", "**/.git/**"]
        return ["/remote/src/", "/remote/src/a.ts", "lib/b.ts"]


async def test_custom_search_operations() -> None:
    grep_tool = create_grep_tool("/remote", ToolOptions(grep_operations=_RemoteGrep()))
    output = text(await grep_tool.execute("c", {"pattern": "hit", "context": 1}, None, None))
    assert output == "a.txt-1- first\na.txt:2: second hit\na.txt-3- third\ngone.txt:1: (unable to read file)"
    find_tool = create_find_tool("/remote", ToolOptions(find_operations=_RemoteFind()))
    assert text(await find_tool.execute("c", {"pattern": "*.ts"}, None, None)) == "src/\nsrc/a.ts\nlib/b.ts"
