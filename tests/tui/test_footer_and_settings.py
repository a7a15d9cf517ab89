from __future__ import annotations

from pathlib import Path

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.tui.ansi import strip_ansi, visible_width
from pi_harness.tui.components.footer import (
    Footer,
    FooterData,
    UsageTotals,
    cache_hit_rate,
    context_tokens,
    format_tokens,
    git_branch,
    to_fixed,
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


def test_a_long_directory_is_cut_at_its_end_as_pi_does(theme: Theme) -> None:
    cwd = "/srv/" + "/".join(f"level{n:02d}" for n in range(40)) + "/project"
    data = FooterData(cwd=cwd, git_branch="main", session_name="Release prep", model="m", provider="p")
    first = strip_ansi(Footer(data, theme).render(80)[0])
    assert visible_width(first) == 80
    assert first.startswith("/srv/level00/") and first.endswith("...")
    short = strip_ansi(Footer(FooterData(cwd="/srv/app", git_branch="main"), theme).render(80)[0])
    assert short == "/srv/app (main)"


def stats_row(theme: Theme, width: int = 80, **fields: object) -> str:
    data = FooterData(cwd="/srv/app", **fields)  # type: ignore[arg-type]
    return strip_ansi(Footer(data, theme).render(width)[1])


def test_stats_row_shows_only_what_is_non_zero(theme: Theme) -> None:
    assert stats_row(theme).split() == ["0.0%/0", "(auto)", "unknown"]
    fresh = stats_row(theme, model="m1", provider="p", context_window=200_000, context_tokens=0, auto_compact=False)
    assert fresh.split() == ["0.0%/200k", "m1"]
    totals = UsageTotals(input=1200, output=300, cache_read=800, cache_write=100, cost=0.0123)
    row = stats_row(theme, model="m1", provider="p", context_window=200_000, context_tokens=30_000, totals=totals,
                    cache_hit_rate=38.1, subscription=True)  # fmt: skip
    assert row.startswith("↑1.2k ↓300 R800 W100 CH38.1% $0.012 (sub) 15.0%/200k (auto)")
    assert stats_row(theme, model="m1", context_window=1000, context_tokens=None).startswith("?/1.0k (auto)")


def test_provider_is_named_only_when_several_are_in_use(theme: Theme) -> None:
    one = stats_row(theme, model="m1", provider="p", thinking_level="high", context_window=1000, provider_count=1)
    assert one.endswith("  m1 • high")
    two = stats_row(theme, model="m1", provider="p", thinking_level="off", context_window=1000, provider_count=2)
    assert two.endswith("  (p) m1 • thinking off")
    narrow = stats_row(theme, 24, model="model-one", provider="p", context_window=1000, context_tokens=0, provider_count=2)
    assert narrow == "0.0%/1.0k (auto)  model-"


def test_context_share_colours(theme: Theme) -> None:
    def coloured(tokens: int) -> str:
        return Footer(FooterData(cwd="/", model="m", context_window=100, context_tokens=tokens), theme).render(80)[1]

    assert theme.fg("error", "91.0%/100 (auto)") in coloured(91)
    assert theme.fg("warning", "71.0%/100 (auto)") in coloured(71)
    assert theme.fg("warning", "70.0%/100 (auto)") not in coloured(70)


def test_cache_hit_rate_of_the_latest_prompt() -> None:
    def answer(read: int, fresh: int) -> dict[str, object]:
        return {"role": "assistant", "usage": {"input": fresh, "cacheRead": read, "cacheWrite": 0}}

    assert cache_hit_rate([answer(0, 10), answer(75, 25)]) == 75.0
    assert cache_hit_rate([answer(75, 25), answer(0, 0)]) is None
    assert cache_hit_rate([user("a")]) is None


def test_ties_round_up_as_in_pi() -> None:
    """Pi's figures come from JavaScript's toFixed and Math.round, which round a tie up."""
    assert [format_tokens(n) for n in (1250, 2500, 12_500, 1_250_000, 12_500_000)] == ["1.3k", "2.5k", "13k", "1.3M", "13M"]
    assert [to_fixed(v, 1) for v in (0.05, 0.25, 12.35)] == ["0.1", "0.3", "12.3"]  # 12.35 is 12.3499… in binary
