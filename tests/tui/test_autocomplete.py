from __future__ import annotations

from pathlib import Path

import pytest

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.autocomplete import Autocomplete, CommandInfo, CompletionItem, clamp_max_visible
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.file_index import FileIndex, walk_project
from pi_harness.tui.fuzzy import fuzzy_filter, fuzzy_score
from pi_harness.tui.theme import Theme

from .conftest import assert_fits

COMMANDS = [
    CommandInfo("model", "Select a model"),
    CommandInfo("settings", "Open settings"),
    CommandInfo("session", "Show session info"),
    CommandInfo("tree", "Navigate the session tree"),
    CommandInfo("export", "Export the session to HTML"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for relative in (
        "src/app.py",
        "src/api/routes.py",
        "src/api/models.py",
        "README.md",
        "build/out.js",
        "debug.log",
        "keep.log",
        "docs/guide.md",
        "docs/tmp/scratch.md",
        ".env",
        "node_modules/x/i.js",
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\nnode_modules/\n", encoding="utf-8")
    (root / "docs" / ".gitignore").write_text("tmp/\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return root


def test_walk_honours_gitignore_files(project: Path) -> None:
    entries = set(walk_project(str(project)))
    assert {"src/", "src/app.py", "src/api/routes.py", "README.md", "keep.log", "docs/guide.md", ".env"} <= entries
    assert not any(e.startswith(("build", "node_modules", ".git/", "docs/tmp")) for e in entries)
    assert "debug.log" not in entries
    assert len(list(walk_project(str(project), max_entries=3))) == 3


def test_fuzzy_matching_prefers_boundaries_and_prefixes() -> None:
    assert fuzzy_score("rts", "src/api/routes.py") is not None
    assert fuzzy_score("xyz", "src/api/routes.py") is None
    ranked = fuzzy_filter(["src/api/models.py", "src/app.py", "docs/app-notes.md"], "app")
    assert ranked[0] == "src/app.py"
    assert fuzzy_filter(["alpha beta", "beta"], "be al") == ["alpha beta"]


def test_at_completion_is_fuzzy_and_gitignore_aware(project: Path, theme: Theme) -> None:
    editor = Editor()
    complete = Autocomplete(theme, files=FileIndex(str(project)), commands=COMMANDS)
    editor.insert("look at @rout")
    complete.update(editor)
    assert complete.active and complete.kind == "file"
    assert complete.items[0].label == "src/api/routes.py"
    editor.insert("x")  # no match any more
    complete.update(editor)
    assert not complete.active
    editor.backspace()
    complete.update(editor)
    complete.accept(editor)
    assert editor.text == "look at @src/api/routes.py "
    editor.insert("and @log")
    complete.update(editor)
    assert [item.label for item in complete.items] == ["keep.log"]  # debug.log is ignored


def test_accepting_a_directory_keeps_completing_inside_it(project: Path, theme: Theme) -> None:
    editor = Editor()
    complete = Autocomplete(theme, files=FileIndex(str(project)))
    editor.insert("@src/ap")
    complete.update(editor)
    labels = [item.label for item in complete.items]
    assert labels.index("src/api/") < len(labels)
    complete.selected = labels.index("src/api/")
    complete.accept(editor)
    assert editor.text == "@src/api/"
    assert complete.active and all(item.label.startswith("src/api/") for item in complete.items[:2])


def test_tab_completes_a_plain_word_as_a_path(project: Path, theme: Theme) -> None:
    editor = Editor()
    complete = Autocomplete(theme, files=FileIndex(str(project)))
    editor.insert("cat READ")
    complete.update(editor)
    assert not complete.active  # only @ opens suggestions by itself
    complete.update(editor, force_files=True)
    assert complete.items[0].label == "README.md"
    assert complete.handle_action("tui.input.tab", editor)
    assert editor.text == "cat README.md "


def test_slash_commands_prefix_first_then_fuzzy(theme: Theme) -> None:
    editor = Editor()
    complete = Autocomplete(theme, commands=COMMANDS)
    editor.insert("/se")
    complete.update(editor)
    assert [item.label for item in complete.items][:2] == ["/settings", "/session"]
    assert complete.handle_action("tui.select.down", editor)
    assert complete.handle_action("tui.select.confirm", editor)
    assert editor.text == "/session "
    assert not complete.active
    editor.set_text("please /se")  # not at the start of the prompt: no command completion
    complete.update(editor)
    assert not complete.active


def test_argument_completion_and_dismissal(theme: Theme) -> None:
    def arguments(command: str, prefix: str) -> list[CompletionItem]:
        values = ["anthropic/claude", "openai/gpt"] if command == "model" else []
        return [CompletionItem(v, v) for v in values if v.startswith(prefix)]

    editor = Editor()
    complete = Autocomplete(theme, commands=COMMANDS, argument_completer=arguments)
    editor.insert("/model op")
    complete.update(editor)
    assert [item.label for item in complete.items] == ["openai/gpt"]
    complete.handle_action("tui.select.cancel", editor)
    assert not complete.active
    complete.update(editor)  # same text: stays dismissed
    assert not complete.active
    editor.backspace()
    complete.update(editor)
    assert complete.active
    complete.accept(editor)
    assert editor.text == "/model openai/gpt"


def test_popup_shows_at_most_max_visible_rows(project: Path, theme: Theme) -> None:
    assert clamp_max_visible(1) == 3 and clamp_max_visible(50) == 20 and clamp_max_visible(None) == 5
    editor = Editor()
    complete = Autocomplete(theme, files=FileIndex(str(project)), max_visible=3)
    editor.insert("@")
    complete.update(editor)
    lines = complete.render(40)
    assert_fits(lines, 40)
    assert len(lines) == 4  # three suggestions and the position
    assert strip_ansi(lines[0]).startswith("→ ")
    assert strip_ansi(lines[-1]).strip() == f"(1/{len(complete.items)})"
    for _ in range(4):
        complete.move(1)
    lines = complete.render(40)
    assert any(strip_ansi(line).startswith("→ ") for line in lines[:3])
