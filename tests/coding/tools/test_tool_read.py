from __future__ import annotations

import asyncio
import base64
import io
import os
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.abort import AbortController
from pi_harness.coding.tools import ToolError, ToolOptions, create_read_tool, fit_image
from pi_harness.coding.tools.read_window import read_text_window, truncate_window
from pi_harness.coding.tools.truncate import truncate_head


async def error_of(awaitable: Awaitable[Any]) -> str:
    """The message of the ``ToolError`` the awaitable raises."""
    with pytest.raises(ToolError) as info:
        await awaitable
    return str(info.value)


def text(result: AgentToolResult) -> str:
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def read(tmp_path: Path, params: dict[str, Any], options: ToolOptions | None = None) -> AgentToolResult:
    return await create_read_tool(str(tmp_path), options).execute("call", params, None, None)


async def test_reads_a_text_file_relative_to_cwd(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree")
    result = await read(tmp_path, {"path": "a.txt"})
    assert text(result) == "one\ntwo\nthree"
    assert "details" not in result


async def test_offset_and_limit_with_the_more_lines_notice(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("\n".join(f"line{i}" for i in range(1, 11)))
    assert text(await read(tmp_path, {"path": "a.txt", "offset": 3, "limit": 2})) == (
        "line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]"
    )
    assert text(await read(tmp_path, {"path": "a.txt", "offset": 9, "limit": 2})) == "line9\nline10"
    assert text(await read(tmp_path, {"path": "a.txt", "offset": 0, "limit": 1})).startswith("line1\n\n[9 more")


async def test_offset_beyond_the_end(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb")
    assert (
        await error_of(read(tmp_path, {"path": "a.txt", "offset": 3}))
        == "Offset 3 is beyond end of file (2 lines total)"
    )
    assert text(await read(tmp_path, {"path": "a.txt", "offset": 2})) == "b"


async def test_line_limit_at_and_past_2000(tmp_path: Path) -> None:
    lines = [f"L{i}" for i in range(1, 2001)]
    (tmp_path / "exact.txt").write_text("\n".join(lines))
    assert text(await read(tmp_path, {"path": "exact.txt"})) == "\n".join(lines)
    (tmp_path / "past.txt").write_text("\n".join([*lines, "L2001"]))
    result = await read(tmp_path, {"path": "past.txt"})
    assert text(result) == "\n".join(lines) + "\n\n[Showing lines 1-2000 of 2001. Use offset=2001 to continue.]"
    assert result["details"]["truncation"]["truncatedBy"] == "lines"
    result = await read(tmp_path, {"path": "past.txt", "offset": 2})  # 2000 lines remain: no notice
    assert text(result) == "\n".join([*lines[1:], "L2001"]) and "details" not in result


async def test_a_final_newline_is_no_line_of_its_own(tmp_path: Path) -> None:
    # As Pi: 2000 lines ending in a newline fit the 2000-line limit (the notice and offsets still
    # count the split text: 2001 "lines").
    (tmp_path / "exact.txt").write_text("".join(f"L{i}\n" for i in range(1, 2001)))
    result = await read(tmp_path, {"path": "exact.txt"})
    assert text(result) == "".join(f"L{i}\n" for i in range(1, 2001)) and "details" not in result
    (tmp_path / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 2502)))
    result = await read(tmp_path, {"path": "long.txt"})
    assert text(result).endswith("\n2000\n\n[Showing lines 1-2000 of 2502. Use offset=2001 to continue.]")
    truncation = result["details"]["truncation"]
    assert (truncation["totalLines"], truncation["outputLines"], truncation["totalBytes"]) == (2501, 2000, 11398)
    # A window ending at the final newline, or on an empty line (limit), counts the same way.
    result = await read(tmp_path, {"path": "long.txt", "offset": 400, "limit": 2103})
    assert result["details"]["truncation"]["totalLines"] == 2102
    (tmp_path / "gap.txt").write_text("".join(f"{i}\n" for i in range(1, 2101)) + "\nafter\n")
    result = await read(tmp_path, {"path": "gap.txt", "limit": 2101})
    assert result["details"]["truncation"]["totalLines"] == 2100
    result = await read(tmp_path, {"path": "gap.txt", "limit": 2102})
    assert result["details"]["truncation"]["totalLines"] == 2102


async def test_byte_limit_at_and_past_50kb(tmp_path: Path) -> None:
    row = "y" * 1023  # 1024 bytes with the newline
    (tmp_path / "exact.txt").write_text("\n".join([row] * 50) + "z")  # 51200 bytes
    assert os.path.getsize(tmp_path / "exact.txt") == 51200
    assert "[Showing" not in text(await read(tmp_path, {"path": "exact.txt"}))
    (tmp_path / "past.txt").write_text("\n".join([row] * 51))
    result = await read(tmp_path, {"path": "past.txt"})
    assert text(result) == "\n".join([row] * 50) + (
        "\n\n[Showing lines 1-50 of 51 (50.0KB limit). Use offset=51 to continue.]"
    )
    assert result["details"]["truncation"]["truncatedBy"] == "bytes"


async def test_first_line_over_50kb_points_at_sed(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("short\n" + "w" * 60000 + "\nafter")
    result = await read(tmp_path, {"path": "wide.txt", "offset": 2})
    assert text(result) == ("[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' wide.txt | head -c 51200]")
    assert result["details"]["truncation"]["firstLineExceedsLimit"] is True


async def test_error_messages(tmp_path: Path) -> None:
    assert await error_of(read(tmp_path, {"path": "nope.txt"})) == "File not found: nope.txt"
    (tmp_path / "dir").mkdir()
    assert await error_of(read(tmp_path, {"path": "dir"})) == "Is a directory: dir"
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    if not os.access(secret, os.R_OK):  # root can read anything
        assert await error_of(read(tmp_path, {"path": "secret.txt"})) == "Permission denied: secret.txt"
    controller = AbortController()
    controller.abort()
    assert (
        await error_of(create_read_tool(str(tmp_path)).execute("c", {"path": "dir"}, controller.signal, None))
        == "Operation aborted"
    )


async def test_binary_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"ELF\x00\x01\x02" * 100)
    assert (await error_of(read(tmp_path, {"path": "blob.bin"}))).startswith(
        "Cannot read blob.bin: it is a binary file."
    )


async def test_invalid_utf8_is_replaced_not_refused(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    assert text(await read(tmp_path, {"path": "latin1.txt"})) == "caf\ufffd\n"


async def test_path_fallbacks_for_macos_names(tmp_path: Path) -> None:
    real = tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.png.txt"
    real.write_text("shot")
    assert text(await read(tmp_path, {"path": "@Screenshot 2024-01-01 at 10.00.00 AM.png.txt"})) == "shot"
    (tmp_path / "it\u2019s.txt").write_text("quote")
    assert text(await read(tmp_path, {"path": "it's.txt"})) == "quote"
    (tmp_path / "home.txt").write_text("home")
    assert text(await read(tmp_path, {"path": str(tmp_path / "home.txt")})) == "home"


def _png(width: int, height: int, color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 120, 200)).save(buffer, format="JPEG")
    return buffer.getvalue()


async def test_small_images_pass_through_unchanged(tmp_path: Path) -> None:
    data = _png(40, 30)
    (tmp_path / "pic.png").write_bytes(data)
    result = await read(tmp_path, {"path": "pic.png"})
    assert result["content"][0] == {"type": "text", "text": "Read image file [image/png]"}
    image = result["content"][1]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]) == data


async def test_images_are_detected_by_content_not_name(tmp_path: Path) -> None:
    (tmp_path / "photo.txt").write_bytes(_jpeg(20, 20))
    (tmp_path / "notes.png").write_text("just text")
    result = await read(tmp_path, {"path": "photo.txt"})
    assert text(result) == "Read image file [image/jpeg]" and result["content"][1]["type"] == "image"
    assert text(await read(tmp_path, {"path": "notes.png"})) == "just text"


async def test_oversized_image_is_resized_with_a_coordinate_note(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(_png(3000, 1500))
    result = await read(tmp_path, {"path": "big.png"})
    assert text(result) == (
        "Read image file [image/png]\n[Image: original 3000x1500, displayed at 2000x1000. "
        "Multiply coordinates by 1.50 to map to original image.]"
    )
    image = result["content"][1]
    assert image["type"] == "image"
    with Image.open(io.BytesIO(base64.b64decode(image["data"]))) as decoded:
        assert decoded.size == (2000, 1000)
        assert image["mimeType"] == Image.MIME[decoded.format or "PNG"]


async def test_auto_resize_off_and_block_images(tmp_path: Path) -> None:
    data = _png(2500, 100)
    (tmp_path / "wide.png").write_bytes(data)
    result = await read(tmp_path, {"path": "wide.png"}, ToolOptions(auto_resize_images=False))
    assert text(result) == "Read image file [image/png]"
    assert base64.b64decode(result["content"][1]["data"]) == data
    result = await read(tmp_path, {"path": "wide.png"}, ToolOptions(block_images=True))
    assert result["content"] == [
        {"type": "text", "text": "Read image file [image/png]"},
        {"type": "text", "text": "Image reading is disabled."},
    ]


async def test_undecodable_image_is_sent_unchanged(tmp_path: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n" + b"garbage" * 10
    (tmp_path / "broken.png").write_bytes(data)
    result = await read(tmp_path, {"path": "broken.png"})
    assert base64.b64decode(result["content"][1]["data"]) == data


class _MemoryRead:
    """Custom operations without chunked reading (the whole file in one piece)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    async def read_file(self, path: str) -> bytes:
        return self.files[path]

    async def access(self, path: str) -> None:
        if path not in self.files:
            raise FileNotFoundError(path)

    async def detect_image_mime_type(self, path: str) -> str | None:
        return None


async def test_custom_read_operations(tmp_path: Path) -> None:
    ops = _MemoryRead({"/remote/a.txt": b"remote\ncontent"})
    tool = create_read_tool("/remote", ToolOptions(read_operations=ops))
    assert text(await tool.execute("c", {"path": "a.txt"}, None, None)) == "remote\ncontent"
    assert await error_of(tool.execute("c", {"path": "b.txt"}, None, None)) == "File not found: b.txt"


class _DeniedRead(_MemoryRead):
    async def access(self, path: str) -> None:
        if path.endswith("locked.txt"):
            raise PermissionError(13, "Permission denied", path)
        if path.endswith("dir"):
            raise IsADirectoryError(21, "Is a directory", path)
        await super().access(path)


async def test_access_errors_from_operations() -> None:
    tool = create_read_tool("/r", ToolOptions(read_operations=_DeniedRead({})))
    assert await error_of(tool.execute("c", {"path": "locked.txt"}, None, None)) == "Permission denied: locked.txt"
    assert await error_of(tool.execute("c", {"path": "dir"}, None, None)) == "Is a directory: dir"


def test_fit_image_lowers_quality_then_scale_to_meet_the_byte_limit() -> None:
    noise = Image.effect_noise((600, 600), 100).convert("RGB")
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG")
    fitted = fit_image(buffer.getvalue(), "image/png", max_bytes=40_000)
    assert fitted is not None and len(fitted.data) <= 40_000
    assert fitted.mime_type == "image/jpeg"
    assert (fitted.original_width, fitted.original_height) == (600, 600)


async def test_exif_orientation_is_applied_before_resizing(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise when displayed
    buffer = io.BytesIO()
    Image.new("RGB", (3000, 1000), (0, 200, 0)).save(buffer, format="JPEG", exif=exif)
    (tmp_path / "phone.jpg").write_bytes(buffer.getvalue())
    result = await read(tmp_path, {"path": "phone.jpg"})
    assert text(result) == (
        "Read image file [image/jpeg]\n[Image: original 1000x3000, displayed at 667x2000. "
        "Multiply coordinates by 1.50 to map to original image.]"
    )


async def _chunks(data: bytes, sizes: list[int]) -> AsyncIterator[bytes]:
    position = 0
    for size in sizes:
        yield data[position : position + size]
        position += size
    yield data[position:]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\u00e9", max_size=12), min_size=1, max_size=30),
    st.integers(0, 35),
    st.one_of(st.none(), st.integers(0, 40)),
    st.integers(1, 8),
    st.integers(1, 40),
    st.lists(st.integers(1, 9), max_size=20),
)
def test_streamed_window_equals_truncating_the_selection(
    lines: list[str], start: int, limit: int | None, max_lines: int, max_bytes: int, sizes: list[int]
) -> None:
    content = "\n".join(lines)
    window = asyncio.run(
        read_text_window(_chunks(content.encode(), sizes), start, limit, max_lines=max_lines, max_bytes=max_bytes)
    )
    all_lines = content.split("\n")
    assert window.total_lines == len(all_lines)
    if start >= len(all_lines):
        return
    selected = all_lines[start : None if limit is None else start + limit]
    expected = truncate_head("\n".join(selected), max_lines=max_lines, max_bytes=max_bytes)
    assert truncate_window(window, max_lines=max_lines, max_bytes=max_bytes) == expected


async def test_structured_content_is_the_text_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    tool = create_read_tool(str(tmp_path))
    result = await tool.execute("call", {"path": "a.txt"}, None, None)
    first = result["content"][0]
    assert first["type"] == "text" and result.get("structuredContent") == first["text"]
