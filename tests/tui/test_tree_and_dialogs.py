from __future__ import annotations

from typing import Any

from pi_harness.coding.session_store.tree import build_tree, resolve_labels
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, SelectDialog, StatusBar, Toasts, Widgets
from pi_harness.tui.components.tree_selector import TreeSelector
from pi_harness.tui.components.trust_prompt import TRUST_TITLE, TrustPrompt

from .conftest import assert_fits, plain


def entry(entry_id: str, parent: str | None, n: int, **fields: Any) -> dict[str, Any]:
    return {"id": entry_id, "parentId": parent, "timestamp": f"2025-01-01T00:00:{n:02d}.000Z", **fields}


def message(entry_id: str, parent: str | None, n: int, role: str, text: str = "", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "timestamp": n, **extra}
    if role == "user":
        body["content"] = text
    elif role == "assistant":
        body.setdefault("content", [{"type": "text", "text": text}])
        body.setdefault("stopReason", "stop")
    return entry(entry_id, parent, n, type="message", message=body)


def session_entries() -> list[dict[str, Any]]:
    return [
        message("u1", None, 1, "user", "hello"),
        entry("m1", "u1", 2, type="model_change", provider="openai", modelId="gpt-5"),
        message("a1", "m1", 3, "assistant", "hi, how can I help?"),
        message("u2", "a1", 4, "user", "do X"),
        message(
            "a2",
            "u2",
            5,
            "assistant",
            content=[{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/x.py"}}],
        ),
        message("t1", "a2", 6, "toolResult", toolName="read", toolCallId="c1", content=[], isError=False),
        message("a3", "t1", 7, "assistant", "X is done"),
        message("u3", "a1", 8, "user", "do Y instead"),
        message("a4", "u3", 9, "assistant", "Y is done"),
        entry("l1", "a4", 10, type="label", targetId="u2", label="checkpoint"),
    ]


def tree_rows(lines: list[str]) -> list[str]:
    """The entry rows: after the header's closing rule and blank row, before the position line."""
    text = plain(lines).split("\n")
    rules = [index for index, line in enumerate(text) if line and set(line) == {"─"}]
    body = text[rules[1] + 2 : rules[2]]
    return body[: next(index for index, line in enumerate(body) if line.startswith("  ("))]


def tree(context: RenderContext, **kwargs: Any) -> TreeSelector:
    entries = session_entries()
    by_id = {e["id"]: e for e in entries}
    roots = build_tree(entries, by_id, resolve_labels(entries))  # type: ignore[arg-type]
    return TreeSelector(roots, context, **kwargs)


def test_tree_draws_branches_labels_and_current_leaf(context: RenderContext) -> None:
    selector = tree(context, leaf_id="a4")
    lines = selector.render(70)
    assert_fits(lines, 70)
    assert tree_rows(lines)[:7] == [
        "  • user: hello",  # "•": on the path to the current leaf (Pi's marker)
        "  • assistant: hi, how can I help?",
        "  ├⊟ • user: do Y instead",  # the active branch first (Pi's order)
        "› │  • assistant: Y is done",
        "  └⊟ [checkpoint] user: do X",
        "     [read: src/x.py]",  # a result shows its call; the message that only called it is left out (Pi)
        "     assistant: X is done",
    ]
    assert selector.selected_id == "a4"  # opens on the current leaf
    selector.handle_action("app.tree.filter.all")
    assert "(no content)" not in plain(selector.render(70))  # in every filter


def test_a_current_leaf_that_only_calls_tools_is_shown(context: RenderContext) -> None:
    assert "assistant: (no content)" in plain(tree(context, leaf_id="a2").render(70))  # Pi's words


def test_filter_modes_hide_entries_and_keep_structure(context: RenderContext) -> None:
    selector = tree(context, leaf_id="a4", filter_mode="no-tools")
    text = plain(selector.render(70))
    assert "[read: src/x.py]" not in text and "assistant: X is done" in text
    selector.handle_action("app.tree.filter.userOnly")
    rows = tree_rows(selector.render(70))[:3]
    assert rows == ["  • user: hello", "› ├─ • user: do Y instead", "  └─ [checkpoint] user: do X"]
    selector.handle_action("app.tree.filter.userOnly")  # pressed again: back to default
    assert selector.filter_mode == "default"
    selector.handle_action("app.tree.filter.all")
    assert "[model: gpt-5]" in plain(selector.render(70))
    selector.handle_action("app.tree.filter.labeledOnly")
    assert tree_rows(selector.render(70))[0] == "› [checkpoint] user: do X"
    selector.handle_action("app.tree.filter.cycleForward")
    assert selector.filter_mode == "all"


def test_tree_navigation_search_and_choice(context: RenderContext) -> None:
    chosen: list[str] = []
    labels: list[str] = []
    selector = tree(context, leaf_id="a4", on_select=chosen.append, on_edit_label=labels.append)
    selector.handle_action("tui.select.up")
    assert selector.selected_id == "u3"
    selector.handle_action("app.tree.editLabel")
    assert labels == ["u3"]
    for ch in "X is done":
        selector.handle_text(ch)
    assert selector.selected_id == "a3"
    selector.handle_action("tui.select.confirm")
    assert chosen == ["a3"]


def test_folding_a_segment_hides_its_entries_and_shows_the_marker(context: RenderContext) -> None:
    selector = tree(context, leaf_id="a4")
    selector._select_id("u2")
    selector.handle_action("app.tree.foldOrUp")
    rows = tree_rows(selector.render(70))[:5]
    assert rows == [
        "  • user: hello",
        "  • assistant: hi, how can I help?",
        "  ├⊟ • user: do Y instead",
        "  │  • assistant: Y is done",
        "› └⊞ [checkpoint] user: do X",
    ]
    assert selector.selected_id == "u2"
    selector.handle_action("app.tree.unfoldOrDown")
    text = plain(selector.render(70))
    assert "└⊟ [checkpoint] user: do X" in text and "assistant: X is done" in text


def test_a_folded_root_and_what_cannot_fold(context: RenderContext) -> None:
    selector = tree(context, leaf_id="a4")
    selector._select_id("a1")  # inside a segment: the key moves to the segment's start instead
    selector.handle_action("app.tree.foldOrUp")
    assert selector.selected_id == "u1" and not selector.folded
    selector.handle_action("app.tree.foldOrUp")  # the root folds
    rows = tree_rows(selector.render(70))
    assert rows == ["› ⊞ • user: hello"]  # the leaf is inside
    selector.handle_action("app.tree.filter.noTools")  # another filter unfolds everything
    assert "user: do Y instead" in plain(selector.render(70))


def test_escape_clears_a_search_first_and_left_right_page(context: RenderContext) -> None:
    cancelled: list[bool] = []
    selector = tree(context, leaf_id="a4", on_cancel=lambda: cancelled.append(True), max_visible=3)
    for ch in "do X":
        selector.handle_text(ch)
    selector.handle_action("tui.select.cancel")
    assert selector.query == "" and not selector.done and cancelled == []
    assert "user: do Y instead" in plain(selector.render(70))
    assert selector.selected_id == "u2"  # the match stays selected
    selector.handle_action("tui.editor.cursorLeft")  # a page (three rows) up
    assert selector.selected_id == "a1"
    selector.handle_action("tui.editor.cursorRight")
    assert selector.selected_id == "u2"
    selector.handle_action("tui.select.cancel")
    assert selector.done and cancelled == [True]


def test_trust_prompt(context: RenderContext) -> None:
    answers: list[str] = []
    prompt = TrustPrompt("/work/project", [".pi/settings.json", ".pi/extensions/"], context, on_result=answers.append)
    lines = plain(prompt.render(60)).split("\n")
    assert lines[1] == TRUST_TITLE
    assert "  .pi/settings.json" in lines and "  .pi/extensions/" in lines
    assert [line.strip() for line in lines if line.strip() in ("→ Trust", "Don't trust", "Trust once")] == [
        "→ Trust", "Don't trust", "Trust once"]  # fmt: skip
    prompt.handle_action("tui.select.down")
    prompt.handle_action("tui.select.down")
    prompt.handle_action("tui.select.confirm")
    assert answers == ["once"] and prompt.done


def test_trust_prompt_lists_resources_relative_to_a_deep_project(context: RenderContext) -> None:
    project = "/srv/" + "/".join(["deep"] * 30) + "/project"
    prompt = TrustPrompt(project, [f"{project}/.pi/skills", f"{project}/AGENTS.md", "/elsewhere/x"], context)
    lines = plain(prompt.render(60)).split("\n")
    assert "  .pi/skills" in lines and "  AGENTS.md" in lines and "  /elsewhere/x" in lines


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_confirm_dialog_counts_down_and_defaults_to_no(context: RenderContext) -> None:
    clock = Clock()
    results: list[bool] = []
    dialog = ConfirmDialog("Delete the file?", "It cannot be undone.", context, on_result=results.append,
                           timeout=5, clock=clock)  # fmt: skip
    # Pi 1.4.0's confirm: the title and message as one heading, the countdown after it, Yes/No
    assert plain(dialog.render(60)).split("\n")[1:10] == [
        "", " Delete the file?", " It cannot be undone. (5s)", "", " → Yes", "   No", "",
        " ↑↓ navigate  enter select  escape/ctrl+c cancel", "",
    ]  # fmt: skip
    assert_fits(dialog.render(30), 30)
    clock.now += 2.2
    assert dialog.tick()
    assert plain(dialog.render(40)).split("\n")[3] == " It cannot be undone. (3s)"
    clock.now += 3
    dialog.tick()
    assert results == [False] and dialog.done
    dialog.handle_action("tui.select.confirm")
    assert results == [False]  # resolved once


def test_select_and_input_dialogs(context: RenderContext) -> None:
    picked: list[str | None] = []
    select = SelectDialog("Allow?", ["Yes", "No"], context, on_result=picked.append)
    select.handle_action("tui.select.down")
    select.handle_action("tui.select.confirm")
    assert picked == ["No"]
    typed: list[str | None] = []
    field = InputDialog("Name the session", context, placeholder="a short name", on_result=typed.append)
    assert "> a short name" in plain(field.render(40))
    field.handle_text("release")
    assert plain(field.render(40)).split("\n")[1:8] == [
        "", " Name the session", "", "> release", "", " enter submit  escape/ctrl+c cancel", ""]  # fmt: skip
    field.handle_action("tui.input.newLine")  # ignored in a one-line field
    field.handle_text(" notes")
    field.handle_action("tui.input.submit")
    assert typed == ["release notes"]
    editor = InputDialog("Edit", context, prefill="a", multiline=True, on_result=typed.append)
    editor.handle_action("tui.input.newLine")
    editor.handle_text("b")
    assert_fits(editor.render(30), 30)
    editor.handle_action("tui.input.submit")
    assert typed[-1] == "a\nb"
    cancelled = InputDialog("Edit", context, on_result=typed.append)
    cancelled.handle_action("tui.select.cancel")
    assert typed[-1] is None


def test_toasts_status_and_widgets(context: RenderContext) -> None:
    clock = Clock()
    toasts = Toasts(context, ttl=4, clock=clock)
    toasts.notify("Saved", "info")
    toasts.notify("Blocked write to protected path: .env", "warning")
    assert plain(toasts.render(60)) == " Saved\n Blocked write to protected path: .env"
    assert toasts.render(60)[1].startswith(" " + context.theme.fg_code("warning"))
    clock.now += 5
    assert toasts.render(60) == []
    status = StatusBar(context)
    status.set("mcp", "MCP: 2 servers")
    status.set("git", "dirty")
    assert plain(status.render(40)) == "dirty MCP: 2 servers"  # Pi's order: by key, one space between
    assert plain(status.render(12)) == "dirty MCP..."
    status.set("mcp", None)
    assert plain(status.render(40)) == "dirty"
    widgets = Widgets()
    widgets.set("plan", ["Plan:", "1. read", "2. edit"])
    widgets.set("below", ["under the editor"], placement="belowEditor")
    assert widgets.render_placement("aboveEditor", 5) == ["Plan:", "1. r…", "2. e…"]
    assert widgets.render_placement("belowEditor", 40) == ["under the editor"]
    widgets.set("plan", None)
    assert widgets.render_placement("aboveEditor", 40) == []


def test_tree_header_and_position_line_read_as_pi(context: RenderContext) -> None:
    """Pi 1.4.0 at 80 columns: the title, two rows of key help, the search line, and the
    position line that names the filter in use."""
    selector = tree(context, leaf_id="a4")
    text = plain(selector.render(80)).split("\n")
    assert text[2:6] == [
        "   Session Tree",
        "  ↑/↓ move · ←/→ page · ctrl+←/→ branch · ctrl+x copy · shift+l label",
        "  shift+t label time · filters ctrl+d/t/u/l/a · cycle ctrl+o/shift+ctrl+o",
        "  Type to search:",
    ]
    assert "  (4/7)" in text
    selector.handle_action("app.tree.filter.noTools")
    selector.handle_action("app.tree.toggleLabelTimestamp")
    assert any(line.startswith("  (") and line.endswith(") [no-tools] [+label time]") for line in plain(
        selector.render(80)).split("\n"))  # fmt: skip
    for ch in "zzzz":
        selector.handle_text(ch)
    text = plain(selector.render(80)).split("\n")
    assert (
        "  Type to search: zzzz" in text and "  No entries found" in text and "  (0/0) [no-tools] [+label time]" in text
    )


def test_rows_say_what_each_entry_is_in_pis_words(context: RenderContext) -> None:
    from pi_harness.tui.components.tree_entry_text import entry_parts, format_tool_call, plain_text

    system = message("s1", None, 1, "system", content="prompt")
    assert plain_text(entry_parts(system, {})) == "[system]"
    compaction = entry("c1", None, 1, type="compaction", summary="S", tokensBefore=49_500, firstKeptEntryId="u1")
    assert plain_text(entry_parts(compaction, {})) == "[compaction: 50k tokens]"
    bash = message("b1", None, 1, "bashExecution", command="ls\n-la", output="", exitCode=0)
    assert plain_text(entry_parts(bash, {})) == "[bash]: ls -la"
    info = entry("i1", None, 1, type="session_info", name="release")
    assert plain_text(entry_parts(info, {})) == "[title: release]"
    assert plain_text(entry_parts(entry("i2", None, 1, type="session_info"), {})) == "[title: empty]"
    failed = message("a1", None, 1, "assistant", content=[], stopReason="error", errorMessage="boom\nagain")
    assert plain_text(entry_parts(failed, {})) == "assistant: boom again"
    orphan = message("t1", None, 1, "toolResult", toolName="grep", toolCallId="gone", content=[], isError=False)
    assert plain_text(entry_parts(orphan, {})) == "[grep]"
    assert (
        format_tool_call("read", {"path": "/home/u/a.py", "offset": 10, "limit": 20}, "/home/u")
        == "[read: ~/a.py:10-29]"
    )
    assert format_tool_call("bash", {"command": "x" * 60}) == f"[bash: {'x' * 50}...]"
    assert format_tool_call("grep", {"pattern": "TODO"}) == "[grep: /TODO/ in .]"
    assert format_tool_call("mcp_fetch", {"url": "https://example.com/a/very/long/path"}) == (
        '[mcp_fetch: {"url":"https://example.com/a/very/long/...]'
    )


def test_the_system_prompt_has_a_row_and_search_matches_every_word(context: RenderContext) -> None:
    entries = [message("s1", None, 1, "system", content="prompt"), *session_entries()]
    entries[1] = {**entries[1], "parentId": "s1"}
    by_id = {e["id"]: e for e in entries}
    roots = build_tree(entries, by_id, resolve_labels(entries))  # type: ignore[arg-type]
    selector = TreeSelector(roots, context, leaf_id="a4")
    assert tree_rows(selector.render(70))[0] == "  • [system]"  # shown in the default view, as in Pi
    for ch in "done Y":
        selector.handle_text(ch)
    assert [row.strip(" ›•│├└─⊟⊞") for row in tree_rows(selector.render(70))] == ["assistant: Y is done"]
