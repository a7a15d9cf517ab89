from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pi_harness.coding.session_store.listing import SessionInfo
from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.model_selector import ModelSelector
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.components.session_picker import SessionPicker, session_age

from .conftest import assert_fits, plain


def fruit_selector(context: RenderContext, **kwargs: Any) -> Selector[str]:
    names = ["apple", "apricot", "banana", "blueberry", "cherry", "grape", "melon", "peach", "pear", "plum"]
    items = [SelectItem(name, name.title(), f"{len(name)} letters", search_text=name) for name in names]
    return Selector(items, context, **kwargs)


def test_filtering_and_navigation(context: RenderContext) -> None:
    chosen: list[str] = []
    selector = fruit_selector(context, max_visible=4, on_select=chosen.append, title="Pick a fruit")
    assert selector.selected is not None and selector.selected.value == "apple"
    selector.handle_action("tui.select.up")  # wraps around
    assert selector.selected.value == "plum"
    selector.handle_action("tui.select.pageUp")
    assert selector.index == 5
    for ch in "ber":
        selector.handle_text(ch)
    assert [item.value for item in selector.filtered] == ["blueberry"]
    selector.handle_action("tui.editor.deleteCharBackward")
    selector.handle_action("tui.editor.deleteCharBackward")
    assert selector.query == "b"
    selector.handle_action("tui.select.down")
    selector.handle_action("tui.select.confirm")
    assert chosen == [selector.filtered[1].value]


def test_render_marks_selection_and_position(context: RenderContext) -> None:
    selector = fruit_selector(context, max_visible=3, title="Pick a fruit")
    for _ in range(4):
        selector.move(1)
    lines = selector.render(40)
    assert_fits(lines, 40)
    text = plain(lines).split("\n")
    assert text[1] == "Pick a fruit"
    assert text[2] == ">"
    assert text[3:6] == ["  Banana     6 letters", "  Blueberry  9 letters", "→ Cherry     6 letters"]
    assert text[6].strip() == "(5/10)"
    selector.set_query("zzz")
    assert "No matches" in plain(selector.render(40))


def test_cancel(context: RenderContext) -> None:
    cancelled: list[bool] = []
    selector = fruit_selector(context, on_cancel=lambda: cancelled.append(True))
    selector.handle_action("tui.select.cancel")
    assert cancelled == [True] and selector.done


MODELS = [
    {"id": "claude-sonnet-4-5", "name": "Claude Sonnet 4.5", "provider": "anthropic"},
    {"id": "gpt-5", "name": "GPT-5", "provider": "openai"},
    {"id": "gemini-2.5-pro", "name": "Gemini 2.5 Pro", "provider": "google"},
]


def test_model_selector_ticks_current_and_saves_default(context: RenderContext) -> None:
    used: list[str] = []
    saved: list[str] = []
    selector = ModelSelector(
        MODELS, context, current="openai/gpt-5", on_select=lambda m: used.append(m["id"]),
        on_save_default=lambda m: saved.append(m["id"]),
    )  # fmt: skip
    lines = plain(selector.render(60)).split("\n")
    assert any(line.startswith("→ ✓ gpt-5") for line in lines)
    for ch in "gemini":
        selector.handle_text(ch)
    selector.handle_action("app.model.saveDefault")
    assert saved == ["gemini-2.5-pro"] and used == ["gemini-2.5-pro"] and selector.done


def session(path: str, name: str | None, first: str, hours_ago: float, count: int) -> SessionInfo:
    moment = datetime.fromtimestamp(1_700_000_000 - hours_ago * 3600, UTC)
    return SessionInfo(Path(path), path, "/work/project", moment, moment, count, first, first, name)


def test_session_picker_toggles(context: RenderContext) -> None:
    sessions = [
        session("/s/old.jsonl", None, "refactor the parser", 50, 12),
        session("/s/new.jsonl", "release notes", "write the release notes", 2, 4),
        session("/s/mid.jsonl", None, "fix the parser tests", 0.1, 30),
    ]
    picked: list[str] = []
    deleted: list[str] = []
    picker = SessionPicker(sessions, context, on_select=lambda s: picked.append(str(s.path)),
                           on_delete=lambda s: deleted.append(str(s.path)), now=lambda: 1_700_000_000)  # fmt: skip
    lines = plain(picker.render(100)).split("\n")
    assert lines[3].startswith("Resume Session (All)") and lines[3].endswith("Name: All  Sort: Threaded")
    assert lines[5] == "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off)"  # no rename: no hint
    assert lines[9].startswith("› fix the parser tests") and lines[9].endswith("~/project 30 6m")
    assert "release notes" in lines[10] and lines[10].endswith(" 4 2h")
    assert lines[11].endswith(" 12 2d")
    for ch in "parser":
        picker.handle_text(ch)
    assert picker.sort == "threaded"  # Pi's default: a search is ranked by relevance
    picker.handle_action("app.session.toggleSort")
    assert picker.sort == "recent"
    assert [item.value for item in picker.selector.filtered] == ["/s/mid.jsonl", "/s/old.jsonl"]  # newest first
    picker.handle_action("app.session.toggleSort")
    assert picker.sort == "relevance"
    picker.handle_action("app.session.togglePath")
    assert "/s/" in plain(picker.render(120))
    picker.selector.set_query("")
    picker.handle_action("app.session.toggleNamedFilter")
    assert [item.value for item in picker.selector.filtered] == ["/s/new.jsonl"]
    picker.handle_action("app.session.delete")  # asks in place, as Pi does
    lines = plain(picker.render(100)).split("\n")
    assert lines[4] == "Delete session? enter confirm · escape/ctrl+c cancel" and lines[5] == ""
    assert context.theme.fg_code("error") in picker.render(100)[9]  # the row to delete is red
    picker.handle_text("x")
    picker.handle_action("tui.select.down")
    assert picker.confirming == "/s/new.jsonl" and picker.selector.query == ""  # other keys wait
    picker.handle_action("tui.select.cancel")
    assert deleted == [] and picker.confirming is None and not picker.done  # Escape: kept, still open
    picker.handle_action("app.session.delete")
    picker.handle_action("tui.select.confirm")
    assert deleted == ["/s/new.jsonl"] and picked == []  # Enter answered the question, chose nothing


def test_the_open_session_cannot_be_deleted_and_statuses_go_away(context: RenderContext) -> None:
    clock = [1_700_000_000.0]
    redraws: list[float] = []
    deleted: list[str] = []
    sessions = [session("/s/open.jsonl", None, "the open one", 1, 3), session("/s/other.jsonl", None, "other", 2, 3)]
    picker = SessionPicker(sessions, context, on_delete=lambda s: deleted.append(str(s.path)),
                           current_path="/s/open.jsonl", now=lambda: clock[0], on_status=redraws.append)  # fmt: skip
    picker.handle_action("app.session.delete")
    assert picker.confirming is None and deleted == [] and redraws == [3.0]
    assert plain(picker.render(100)).split("\n")[4] == "Cannot delete the currently active session"
    clock[0] += 3.5
    assert plain(picker.render(100)).split("\n")[4].startswith("tab scope")
    picker.show_status("info", "Session deleted", 2.0)
    assert plain(picker.render(100)).split("\n")[4] == "Session deleted" and redraws == [3.0, 2.0]


def test_session_search_ranks_an_exact_name_first(context: RenderContext) -> None:
    """Issue 20, defect 9: the current (newest) session must not outrank a session named as typed."""
    sessions = [
        session("/s/current.jsonl", None, "look at the deploy script and the release checklist", 0.01, 40),
        session("/s/named.jsonl", "deploy", "ship it", 30, 3),
    ]
    picker = SessionPicker(sessions, context, current_path="/s/current.jsonl", now=lambda: 1_700_000_000)
    for ch in "deploy":
        picker.handle_text(ch)
    assert next(item.value for item in picker.selector.filtered) == "/s/named.jsonl"


def test_every_selector_fits_narrow_widths(context: RenderContext) -> None:
    views = [fruit_selector(context, title="A title that is rather long"), ModelSelector(MODELS, context)]
    for view in views:
        for width in (12, 30, 80):
            assert_fits(view.render(width), width)
    assert strip_ansi(views[0].render(12)[0]) == "─" * 12


def test_session_picker_scopes_and_empty_states(context: RenderContext) -> None:
    sessions = [
        session("/s/here.jsonl", None, "work here", 1, 2),
        SessionInfo(Path("/s/there.jsonl"), "t", "/elsewhere", *(2 * [datetime.fromtimestamp(1_699_990_000, UTC)]),
                    5, "work there", "work there", None),
    ]  # fmt: skip
    picker = SessionPicker(sessions, context, cwd="/work/project", on_rename=lambda s: None, now=lambda: 1_700_000_000)
    lines = plain(picker.render(100)).split("\n")
    assert lines[3].startswith("Resume Session (Current Folder)") and "◉ Current Folder | ○ All" in lines[3]
    assert lines[5].endswith("ctrl+p path (off) · ctrl+r rename")
    assert [item.value for item in picker.selector.filtered] == ["/s/here.jsonl"]
    picker.handle_action("tui.input.tab")
    assert "○ Current Folder | ◉ All" in plain(picker.render(100))
    assert [item.value for item in picker.selector.filtered] == ["/s/here.jsonl", "/s/there.jsonl"]
    picker.handle_action("app.session.toggleNamedFilter")
    assert "  No named sessions found. Press ctrl+n to show all." in plain(picker.render(100))
    picker.handle_action("tui.input.tab")
    assert "  No named sessions in current folder. Press ctrl+n to show all, or Tab to view all." in plain(
        picker.render(100)
    )
    picker.handle_action("app.session.toggleNamedFilter")
    picker.set_sessions(sessions[1:])
    assert "  No sessions in current folder. Press Tab to view all." in plain(picker.render(100))
    assert [session_age(datetime.fromtimestamp(1_700_000_000 - ago, UTC), 1_700_000_000)
            for ago in (30, 300, 7200, 86400 * 3, 86400 * 14, 86400 * 60, 86400 * 800)] == [
        "now", "5m", "2h", "3d", "2w", "2mo", "2y"]  # fmt: skip


def test_model_selector_scope_and_empty_state(context: RenderContext) -> None:
    """Pi 1.4.0: with scoped models the note gives way to ``Scope: all | scoped`` (Tab switches,
    the scoped list first); no match reads ``No matching models``; no save callback, no hint."""
    selector = ModelSelector(MODELS, context, current="openai/gpt-5", scoped=["google/gemini-2.5-pro"])
    lines = plain(selector.render(80)).split("\n")
    assert lines[2:4] == ["Scope: all | scoped", "tab scope (all/scoped)"]
    assert [line for line in lines if "[" in line] == ["→   gemini-2.5-pro [google]"]
    selector.handle_action("tui.input.tab")
    assert next(line for line in plain(selector.render(80)).split("\n") if "[" in line) == "→ ✓ gpt-5 [openai]"
    for ch in "zzz":
        selector.handle_text(ch)
    text = plain(selector.render(80))
    assert "> zzz" in text and "  No matching models" in text and "to set as default" not in text


def test_model_selector_shows_ten_rows_centred_on_the_selection(context: RenderContext) -> None:
    many = [{"id": f"m{n:02d}", "name": f"M{n}", "provider": "p"} for n in range(30)]
    selector = ModelSelector(many, context, current="p/m15")
    rows = [line for line in plain(selector.render(80)).split("\n") if "[p]" in line]
    assert len(rows) == 10 and rows[:2] == ["→ ✓ m15 [p]", "    m00 [p]"]  # the current model comes first
    for _ in range(12):
        selector.handle_action("tui.select.down")
    rows = [line for line in plain(selector.render(80)).split("\n") if "[p]" in line]
    assert len(rows) == 10 and rows[5] == "→   m11 [p]" and "  (13/30)" in plain(selector.render(80))
