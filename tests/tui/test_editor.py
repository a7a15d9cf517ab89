from __future__ import annotations

from pathlib import Path

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.theme import Theme

from .conftest import assert_fits


def type_text(editor: Editor, text: str) -> None:
    for ch in text:
        if ch == "\n":
            editor.handle_action("tui.input.newLine")
        else:
            editor.insert(ch)


def test_typing_newlines_and_cursor_movement() -> None:
    editor = Editor()
    type_text(editor, "hello\nworld")
    assert editor.text == "hello\nworld"
    assert (editor.row, editor.col) == (1, 5)
    editor.handle_action("tui.editor.cursorLineStart")
    editor.insert(">")
    assert editor.lines == ["hello", ">world"]
    editor.handle_action("tui.editor.cursorUp")
    assert editor.row == 0
    editor.handle_action("tui.editor.cursorLineEnd")
    editor.handle_action("tui.editor.deleteCharForward")  # joins the lines
    assert editor.text == "hello>world"
    editor.handle_action("tui.editor.cursorLeft")
    editor.handle_action("tui.editor.deleteCharBackward")
    assert editor.text == "helo>world"


def test_word_operations_kill_ring_and_undo() -> None:
    editor = Editor()
    editor.insert("alpha beta gamma")
    editor.handle_action("tui.editor.deleteWordBackward")
    assert editor.text == "alpha beta "
    editor.handle_action("tui.editor.cursorWordLeft")
    assert editor.col == len("alpha ")
    editor.handle_action("tui.editor.deleteToLineEnd")
    assert editor.text == "alpha "
    editor.handle_action("tui.editor.yank")
    assert editor.text == "alpha beta "
    editor.handle_action("tui.editor.yankPop")
    assert editor.text == "alpha gamma"
    editor.handle_action("tui.editor.undo")
    assert editor.text == "alpha "
    editor.handle_action("tui.editor.undo")
    assert editor.text == "alpha beta "
    assert editor.col == len("alpha ")  # undo restores the cursor too
    editor.handle_action("tui.editor.deleteToLineStart")
    assert editor.text == "beta "


def test_undo_groups_typed_words() -> None:
    editor = Editor()
    editor.insert("a")
    editor.insert("b")
    editor.insert(" ")
    editor.insert("c")
    editor.undo()
    assert editor.text == "ab "
    editor.undo()
    editor.undo()
    assert editor.text == ""


def test_history_up_and_down_restores_the_draft() -> None:
    editor = Editor(history=["first", "second"])
    editor.insert("draft")
    assert editor.handle_action("tui.editor.cursorUp")
    assert editor.text == "second"
    editor.handle_action("tui.editor.cursorUp")
    assert editor.text == "first"
    assert editor.move_up() is False  # oldest entry reached
    editor.handle_action("tui.editor.cursorDown")
    assert editor.text == "second"
    editor.handle_action("tui.editor.cursorDown")
    assert editor.text == "draft"


def test_submit_adds_to_history_and_clears() -> None:
    editor = Editor()
    editor.insert("  run the tests  ")
    submission = editor.submit()
    assert submission is not None and submission.text == "run the tests"
    assert editor.is_empty and editor.history == ["run the tests"]
    assert editor.submit() is None  # nothing to send
    editor.insert("run the tests")
    editor.submit()
    assert editor.history == ["run the tests"]  # consecutive duplicates are kept once


def test_large_paste_is_collapsed_and_expanded_on_submit() -> None:
    editor = Editor()
    editor.insert("Look at this: ")
    big = "\n".join(f"row {n}" for n in range(120))
    editor.paste(big)
    assert editor.text == "Look at this: [Pasted text #1 +120 lines]"
    editor.paste("x" * 1500)
    assert editor.text.endswith("[Pasted text #2 1500 chars]")
    editor.paste("small\r\npaste")
    assert editor.lines[-1] == "paste"
    submission = editor.submit()
    assert submission is not None
    assert submission.text == "Look at this: " + big + "x" * 1500 + "small\npaste"


def test_placeholder_is_deleted_as_a_whole() -> None:
    editor = Editor()
    editor.paste("\n".join(["line"] * 20))
    editor.insert("!")
    editor.backspace()
    editor.backspace()
    assert editor.text == ""
    editor.insert("[Pasted text #7 +3 lines]")  # typed, not a real paste: deleted character by character
    editor.backspace()
    assert editor.text == "[Pasted text #7 +3 lines"


def test_pasted_image_path_becomes_an_attachment(tmp_path: Path) -> None:
    image = tmp_path / "shot one.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    editor = Editor(cwd=str(tmp_path))
    editor.insert("what is this? ")
    editor.paste("'" + str(image) + "'")
    assert editor.text == "what is this? [Image #1: shot one.png]"
    editor.paste("shot\\ one.png")  # relative and shell-escaped
    submission = editor.submit()
    assert submission is not None
    assert submission.text == "what is this?"
    assert submission.images == [str(image), str(image)]
    editor.paste(str(tmp_path / "missing.png"))
    assert editor.text.endswith("missing.png")  # not a file: plain text


def test_view_draws_rules_cursor_and_fits(theme: Theme) -> None:
    editor = Editor()
    editor.insert("hello world")
    view = EditorView(editor, theme, thinking_level="high")
    lines = view.render(20)
    assert_fits(lines, 20)
    assert [strip_ansi(line) for line in lines] == ["─" * 20, "hello world ", "─" * 20]
    assert "\x1b[7m \x1b[27m" in lines[1]  # the cursor is drawn in reverse video
    assert lines[0].startswith(theme.fg_code("thinkingHigh"))
    assert view.cursor == (1, 11)
    editor.set_text("!ls")
    assert view.render(20)[0].startswith(theme.fg_code("bashMode"))


def test_view_wraps_long_lines_and_scrolls(theme: Theme) -> None:
    editor = Editor()
    editor.insert("one two three four five six seven eight")
    view = EditorView(editor, theme, padding_x=1, max_rows=2)
    lines = view.render(16)
    assert_fits(lines, 16)
    assert strip_ansi(lines[0]).endswith(" ↑ 1 more ──")
    assert [strip_ansi(line).rstrip() for line in lines[1:-1]] == [" four five six", " seven eight"]
    editor.handle_action("tui.editor.cursorUp")  # visual row up inside the same logical line
    editor.handle_action("tui.editor.cursorUp")
    assert editor.row == 0 and editor.col < len("one two three ")
    lines = view.render(16)
    assert strip_ansi(lines[1]).startswith(" one two three")
    assert strip_ansi(lines[-1]).endswith(" ↓ 1 more ──")


def test_cursor_after_a_full_row_gets_its_own_row(theme: Theme) -> None:
    editor = Editor()
    editor.insert("abcdefghij")
    view = EditorView(editor, theme)
    lines = view.render(10)
    assert_fits(lines, 10)
    assert [strip_ansi(line) for line in lines[1:-1]] == ["abcdefghij", " "]
    assert view.cursor == (2, 0)
