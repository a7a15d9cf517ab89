from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.abort import AbortController
from pi_harness.ai.validation import validate_tool_arguments
from pi_harness.coding.tools import EditSpec, ToolError, compute_edit_diff, create_edit_tool, generate_diff
from pi_harness.coding.tools.edit_patch import generate_unified_patch


async def error_of(awaitable: Awaitable[Any]) -> str:
    with pytest.raises(ToolError) as info:
        await awaitable
    return str(info.value)


def text(result: AgentToolResult) -> str:
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def edit(tmp_path: Path, path: str, *edits: tuple[str, str]) -> AgentToolResult:
    tool = create_edit_tool(str(tmp_path))
    params = {"path": path, "edits": [{"oldText": old, "newText": new} for old, new in edits]}
    return await tool.execute("call", params, None, None)


async def test_single_edit_with_diff(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("def f():\n    return 1\n")
    result = await edit(tmp_path, "a.py", ("return 1", "return 2"))
    assert text(result) == "Successfully replaced text in a.py."
    assert target.read_text() == "def f():\n    return 2\n"
    assert result["details"] == {
        "diff": " 1 def f():\n-2     return 1\n+2     return 2",
        "patch": "--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n",
        "firstChangedLine": 2,
    }


async def test_several_edits_are_located_in_the_original(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("alpha\nbeta\ngamma\n")
    result = await edit(tmp_path, "a.txt", ("gamma", "GAMMA"), ("alpha", "beta"), ("beta\n", "B\n"))
    assert text(result) == "Successfully replaced 3 block(s) in a.txt."
    assert target.read_text() == "beta\nB\nGAMMA\n"  # "beta" inserted by edit 1 is not re-matched


async def test_legacy_arguments_are_converted_before_validation(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old value")
    tool = create_edit_tool(str(tmp_path))
    assert tool.prepare_arguments is not None
    prepared = tool.prepare_arguments({"path": "a.txt", "oldText": "old", "newText": "new"})
    assert prepared == {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]}
    validated = validate_tool_arguments(
        tool.to_tool(), {"type": "toolCall", "id": "1", "name": "edit", "arguments": prepared}
    )
    await tool.execute("call", validated, None, None)
    assert (tmp_path / "a.txt").read_text() == "new value"
    as_string = tool.prepare_arguments({"path": "a.txt", "edits": '[{"oldText": "a", "newText": "b"}]'})
    assert as_string["edits"] == [{"oldText": "a", "newText": "b"}]


def test_schema_matches_pi() -> None:
    schema = create_edit_tool("/").parameters
    assert schema["required"] == ["path", "edits"]
    edits = schema["properties"]["edits"]
    # Pi's schema has no minItems and leaves additionalProperties unset on the entries.
    assert {key for key in edits if key != "description"} == {"type", "items"}
    assert edits["type"] == "array"
    assert {key for key in edits["items"]} == {"type", "properties", "required"}
    assert edits["items"]["required"] == ["oldText", "newText"]
    assert set(edits["items"]["properties"]) == {"oldText", "newText"}


async def test_an_empty_edits_list_is_refused_when_the_tool_runs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("keep\n")
    tool = create_edit_tool(str(tmp_path))
    arguments = {"path": "a.txt", "edits": []}
    validated = validate_tool_arguments(
        tool.to_tool(), {"type": "toolCall", "id": "1", "name": "edit", "arguments": arguments}
    )
    with pytest.raises(ToolError) as info:
        await tool.execute("call", validated, None, None)
    assert "edits must contain at least one replacement" in str(info.value)
    assert (tmp_path / "a.txt").read_text() == "keep\n"


async def test_patch_of_several_edits_and_a_missing_final_newline(tmp_path: Path) -> None:
    lines = [f"line {number}" for number in range(1, 21)]
    (tmp_path / "n.txt").write_text("\n".join(lines))  # no newline at the end
    result = await edit(tmp_path, "n.txt", ("line 2\n", "two\n"), ("line 20", "twenty\n"))
    patch = result["details"]["patch"]
    assert patch == (
        "--- n.txt\n+++ n.txt\n"
        "@@ -1,6 +1,6 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n line 6\n"
        "@@ -16,5 +16,5 @@\n line 16\n line 17\n line 18\n line 19\n-line 20\n\\ No newline at end of file\n+twenty\n"
    )
    assert list(result["details"]) == ["diff", "patch", "firstChangedLine"]


async def test_error_messages(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two one\nthree\n")
    assert await error_of(edit(tmp_path, "missing.txt", ("a", "b"))) == "File not found: missing.txt"
    assert await error_of(edit(tmp_path, "a.txt", ("four", "4"))) == (
        "Could not find the exact text in a.txt. The old text must match exactly including all whitespace and newlines."
    )
    assert await error_of(edit(tmp_path, "a.txt", ("one", "1"))) == (
        "Found 2 occurrences of the text in a.txt. The text must be unique. Please provide more context to make "
        "it unique."
    )
    assert await error_of(edit(tmp_path, "a.txt", ("three", "three"))) == (
        "No changes made to a.txt. The replacement produced identical content. This might indicate an issue "
        "with special characters or the text not existing as expected."
    )
    assert await error_of(edit(tmp_path, "a.txt", ("two", "2"), ("four", "4"))) == (
        "edits[1]: Could not find the exact text in a.txt. The old text must match exactly including all "
        "whitespace and newlines."
    )
    assert (await error_of(edit(tmp_path, "a.txt", ("three", "3"), ("one", "1")))).startswith(
        "edits[1]: Found 2 occurrences of the text in a.txt."
    )
    assert await error_of(edit(tmp_path, "a.txt", ("one two", "x"), ("two one", "y"))) == (
        "edits[1] overlaps edits[0] in a.txt. Merge them into one edit."
    )
    assert (tmp_path / "a.txt").read_text() == "one two one\nthree\n"  # nothing written by failed calls


async def test_fuzzy_match_on_quotes_dashes_and_trailing_whitespace(tmp_path: Path) -> None:
    target = tmp_path / "q.txt"
    target.write_text("say \u201chello\u201d \u2014 it\u2019s fine   \nnext\n")
    await edit(tmp_path, "q.txt", ('say "hello" - it\'s fine\nnext', "replaced"))
    assert target.read_text() == "replaced\n"
    target.write_text("keep\u00a0this  \nand \u2018that\u2019\n")
    await edit(tmp_path, "q.txt", ("'that'", "'other'"))
    # The fuzzy path works on the normalised text: trailing spaces and special spaces become plain.
    assert target.read_text() == "keep this\nand 'other'\n"


async def test_crlf_line_endings_are_preserved(tmp_path: Path) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = await edit(tmp_path, "win.txt", ("second\nthird", "2nd\n3rd\nfourth"))
    assert target.read_bytes() == b"first\r\n2nd\r\n3rd\r\nfourth\r\n"
    assert result["details"]["firstChangedLine"] == 2


async def test_bom_is_preserved(tmp_path: Path) -> None:
    target = tmp_path / "bom.txt"
    target.write_bytes(b"\xef\xbb\xbfhello\r\nworld\r\n")
    await edit(tmp_path, "bom.txt", ("hello", "bonjour"))
    assert target.read_bytes() == b"\xef\xbb\xbfbonjour\r\nworld\r\n"


async def test_invalid_utf8_elsewhere_survives(tmp_path: Path) -> None:
    target = tmp_path / "mixed.txt"
    target.write_bytes(b"caf\xe9\nvalue = 1\n")
    await edit(tmp_path, "mixed.txt", ("value = 1", "value = 2"))
    assert target.read_bytes() == b"caf\xe9\nvalue = 2\n"


async def test_mode_is_kept_and_write_is_atomic(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "run.sh"
    target.write_text("echo one\n")
    target.chmod(0o751)
    inode = target.stat().st_ino
    await edit(work, "run.sh", ("one", "two"))
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert os.listdir(work) == ["run.sh"]  # no temp file left behind


async def test_concurrent_edits_to_one_file_are_both_applied(tmp_path: Path) -> None:
    target = tmp_path / "shared.txt"
    target.write_text("".join(f"line {i}\n" for i in range(200)))
    tool = create_edit_tool(str(tmp_path))
    calls = [
        tool.execute(
            "c", {"path": "shared.txt", "edits": [{"oldText": f"line {i}\n", "newText": f"LINE {i}\n"}]}, None, None
        )
        for i in range(0, 200, 10)
    ]
    await asyncio.gather(*calls)
    content = target.read_text()
    assert all(f"LINE {i}\n" in content for i in range(0, 200, 10))
    assert content.count("\n") == 200


async def test_abort_before_start(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    controller = AbortController()
    controller.abort()
    tool = create_edit_tool(str(tmp_path))
    params = {"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}]}
    assert await error_of(tool.execute("c", params, controller.signal, None)) == "Operation aborted"
    assert (tmp_path / "a.txt").read_text() == "x"


def test_diff_elides_long_unchanged_runs() -> None:
    old = "\n".join(f"l{i}" for i in range(1, 21)) + "\n"
    new = old.replace("l10\n", "L10\n")
    diff = generate_diff(old, new)
    assert diff["firstChangedLine"] == 10
    assert diff["diff"].split("\n") == [
        "    ...",
        "  6 l6",
        "  7 l7",
        "  8 l8",
        "  9 l9",
        "-10 l10",
        "+10 L10",
        " 11 l11",
        " 12 l12",
        " 13 l13",
        " 14 l14",
        "    ...",
    ]


async def test_compute_edit_diff_for_previews(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    diff = await compute_edit_diff("a.txt", [EditSpec("two", "2")], str(tmp_path))
    assert diff == {"diff": " 1 one\n-2 two\n+2 2", "firstChangedLine": 2}
    with pytest.raises(ToolError) as info:
        await compute_edit_diff("a.txt", [EditSpec("one", "one")], str(tmp_path))
    assert str(info.value) == "No changes would be made to a.txt. The replacement produces identical content."
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


def test_diff_and_patch_pick_the_same_lines_as_pi() -> None:
    # Several shortest scripts exist here; Pi's diff library keeps the first "y" and adds "xz".
    assert generate_unified_patch("f.txt", "y\ny\nx\ny\nd\n", "xz\ny\nx\nd\n") == (
        "--- f.txt\n+++ f.txt\n@@ -1,5 +1,4 @@\n+xz\n y\n-y\n x\n-y\n d\n"
    )
    # A last line that loses its newline is a changed line.
    assert generate_diff("a\nb\n", "a\nb") == {"diff": " 1 a\n-2 b\n+2 b", "firstChangedLine": 2}


def test_a_large_rewrite_gets_a_whole_replacement_quickly() -> None:
    old = "".join(f"old {number}\n" for number in range(20_000))
    new = "".join(f"new {number}\n" for number in range(20_000))
    patch = generate_unified_patch("big.txt", "keep\n" + old, "keep\n" + new)
    lines = patch.splitlines()
    assert lines[:3] == ["--- big.txt", "+++ big.txt", "@@ -1,20001 +1,20001 @@"]
    assert sum(line.startswith("-old") for line in lines) == sum(line.startswith("+new") for line in lines) == 20_000
