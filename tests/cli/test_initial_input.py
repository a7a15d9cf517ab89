from __future__ import annotations

import base64
import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import RunPi
from PIL import Image

from pi_harness.cli.initial_input import (
    FileArgumentError,
    build_initial_input,
    prepare_initial_input,
    process_file_arguments,
)


def write_png(path: Path, size: tuple[int, int], color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    image = Image.new("RGB", size, color)
    image.save(path, format="PNG")
    return path.read_bytes()


def test_text_file_is_inlined_with_its_absolute_path(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("line 1\nline 2", encoding="utf-8")
    files = process_file_arguments(["notes.md"], cwd=str(tmp_path))
    path = tmp_path / "notes.md"
    assert files.text == f'<file name="{path}">\nline 1\nline 2\n</file>\n'
    assert files.images == []


def test_files_keep_their_order_and_empty_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "b.txt").write_text("B")
    files = process_file_arguments(["b.txt", "empty.txt", str(tmp_path / "a.txt")], cwd=str(tmp_path))
    assert files.text == (
        f'<file name="{tmp_path / "b.txt"}">\nB\n</file>\n<file name="{tmp_path / "a.txt"}">\nA\n</file>\n'
    )


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileArgumentError, match=r"^File not found: .*missing\.md$"):
        process_file_arguments(["missing.md"], cwd=str(tmp_path))


def test_directory_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileArgumentError, match=r"^Could not read file .*dir"):
        process_file_arguments(["dir"], cwd=str(tmp_path))


def test_small_image_is_attached_unchanged(tmp_path: Path) -> None:
    # The name says text, the content says PNG: detection goes by content.
    original = write_png(tmp_path / "picture.txt", (40, 30))
    files = process_file_arguments(["picture.txt"], cwd=str(tmp_path))
    assert files.text == f'<file name="{tmp_path / "picture.txt"}"></file>\n'
    assert files.images == [{"type": "image", "data": base64.b64encode(original).decode(), "mimeType": "image/png"}]


def test_large_image_is_resized_when_auto_resize_is_on(tmp_path: Path) -> None:
    original = write_png(tmp_path / "wide.png", (3000, 600))
    files = process_file_arguments(["wide.png"], cwd=str(tmp_path), auto_resize=True)
    assert len(files.images) == 1
    decoded = Image.open(io.BytesIO(base64.b64decode(files.images[0]["data"])))
    assert decoded.size == (2000, 400)
    assert files.text == (
        f'<file name="{tmp_path / "wide.png"}">[Image: original 3000x600, displayed at 2000x400. '
        "Multiply coordinates by 1.50 to map to original image.]</file>\n"
    )

    untouched = process_file_arguments(["wide.png"], cwd=str(tmp_path), auto_resize=False)
    assert base64.b64decode(untouched.images[0]["data"]) == original
    assert untouched.text == f'<file name="{tmp_path / "wide.png"}"></file>\n'


def test_order_is_stdin_then_files_then_first_message(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("F")
    files = process_file_arguments(["f.txt"], cwd=str(tmp_path))
    initial = build_initial_input(["first", "second", "third"], stdin_text="STDIN", files=files)
    assert initial.message == f'STDIN<file name="{tmp_path / "f.txt"}">\nF\n</file>\nfirst'
    assert initial.messages == ["second", "third"]


def test_initial_message_variants() -> None:
    assert build_initial_input([]).message is None
    only_stdin = build_initial_input(["a", "b"], stdin_text="piped")
    assert (only_stdin.message, only_stdin.messages) == ("pipeda", ["b"])
    only_messages = build_initial_input(["a", "b"])
    assert (only_messages.message, only_messages.messages) == ("a", ["b"])


def test_prepare_reads_no_stdin_when_told_not_to(tmp_path: Path) -> None:
    initial = prepare_initial_input(["hi"], [], read_stdin=False, stdin=io.StringIO("ignored"))
    assert initial.message == "hi" and initial.images == []


PIPED = (
    "import json, sys\n"
    "from pi_harness.cli.initial_input import prepare_initial_input\n"
    "initial = prepare_initial_input(sys.argv[2:], [sys.argv[1]], read_stdin=True)\n"
    "print(json.dumps({'message': initial.message, 'messages': initial.messages, 'images': len(initial.images)}))\n"
)


def test_piped_stdin_in_a_real_process(run_python: RunPi, tmp_path: Path) -> None:
    (tmp_path / "ctx.txt").write_text("CTX")
    result = run_python(PIPED, "ctx.txt", "question", "follow-up", input="  piped text \n\n")
    assert result.returncode == 0, result.stderr
    import json

    data = json.loads(result.stdout)
    assert data == {
        "message": f'piped text<file name="{tmp_path / "ctx.txt"}">\nCTX\n</file>\nquestion',
        "messages": ["follow-up"],
        "images": 0,
    }


def test_empty_piped_stdin_is_ignored(run_python: RunPi, tmp_path: Path) -> None:
    (tmp_path / "ctx.txt").write_text("CTX")
    result = run_python(PIPED, "ctx.txt", "question", input=" \n\t\n")
    assert result.returncode == 0, result.stderr
    assert '"message": "<file name=' in result.stdout


def test_a_terminal_on_stdin_is_not_read(tmp_path: Path) -> None:
    code = (
        "from pi_harness.cli.initial_input import read_piped_stdin\n"
        "import sys\n"
        "sys.stderr.write(repr(read_piped_stdin()))\n"
    )
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-c", code], stdin=terminal, capture_output=True, timeout=60, check=False
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 0
    assert result.stderr.decode() == "None"
