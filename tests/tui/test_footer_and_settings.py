from __future__ import annotations

from pathlib import Path

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.tui.ansi import strip_ansi, visible_width
from pi_harness.tui.components.footer import (
    Footer,
    FooterData,
    context_tokens,
    format_tokens,
    git_branch,
    usage_totals,
)
from pi_harness.tui.theme import Theme
from pi_harness.tui.ui_settings import UiSettings

from .scenario import USAGE, assistant, user


def test_token_formatting() -> None:
    assert [format_tokens(n) for n in (0, 999, 1000, 1234, 12_345, 999_499, 1_500_000, 25_000_000)] == [
        "0", "999", "1.0k", "1.2k", "12k", "999k", "1.5M", "25M"]  # fmt: skip


def test_usage_totals_and_context() -> None:
    tool = {"role": "toolResult", "toolCallId": "c", "toolName": "x", "content": [], "isError": False,
            "timestamp": 0, "usage": USAGE}  # fmt: skip
    messages = [user("a"), assistant([]), tool, assistant([], stop="error")]
    totals = usage_totals(messages)
    assert (totals.input, totals.output) == (3600, 900)
    assert round(totals.cost, 4) == 0.0243
    assert context_tokens(messages) == 1500  # the failed response does not count
    assert context_tokens([*messages, {"role": "compactionSummary", "summary": "s", "tokensBefore": 9}]) is None
    assert context_tokens([user("a")]) is None


def test_git_branch_from_head_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n", encoding="utf-8")
    (repo / "src").mkdir()
    assert git_branch(repo / "src") == "feature/x"
    (repo / ".git" / "HEAD").write_text("0123456789abcdef\n", encoding="utf-8")
    assert git_branch(repo) == "0123456"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (tmp_path / "gitdir").mkdir()
    (tmp_path / "gitdir" / "HEAD").write_text("ref: refs/heads/wt-branch\n", encoding="utf-8")
    (worktree / ".git").write_text("gitdir: ../gitdir\n", encoding="utf-8")
    assert git_branch(worktree) == "wt-branch"
    assert git_branch(tmp_path) is None


def ui_settings(data: dict[str, object]) -> UiSettings:
    return UiSettings.from_values(SettingsManager.in_memory(data).values)


def test_ui_settings_defaults_and_clamping() -> None:
    assert ui_settings({}) == UiSettings(theme="dark")
    settings = ui_settings({
        "theme": "light", "hideThinkingBlock": True, "editorPaddingX": 9, "autocompleteMaxVisible": 1,
        "markdown": {"codeBlockIndent": "    "}, "terminal": {"showImages": False}, "doubleEscapeAction": "fork",
        "treeFilterMode": "user-only", "quietStartup": "yes",
    })  # fmt: skip
    assert settings.theme == "light" and settings.hide_thinking_block and settings.editor_padding_x == 3
    assert settings.autocomplete_max_visible == 3 and settings.code_block_indent == "    "
    assert not settings.show_images and settings.double_escape_action == "fork"
    assert settings.tree_filter_mode == "user-only" and settings.quiet_startup is False
    assert ui_settings({"doubleEscapeAction": "explode", "treeFilterMode": 3}).double_escape_action == "tree"


def test_a_long_directory_gives_way_to_the_branch_and_session_name(theme: Theme) -> None:
    cwd = "/srv/" + "/".join(f"level{n:02d}" for n in range(40)) + "/project"
    data = FooterData(cwd=cwd, git_branch="main", session_name="Release prep", model="m", provider="p")
    first = strip_ansi(Footer(data, theme).render(80)[0])
    assert visible_width(first) <= 80
    assert first.startswith("…") and first.endswith("/project (main) • Release prep")
    short = strip_ansi(Footer(FooterData(cwd="/srv/app", git_branch="main"), theme).render(80)[0])
    assert short == "/srv/app (main)"
