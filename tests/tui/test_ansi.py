from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.tui.ansi import (
    RESET,
    align_right,
    fit,
    sanitize,
    strip_ansi,
    truncate,
    visible_width,
    with_background,
    wrap,
)

RED = "\x1b[38;2;255;0;0m"


def test_visible_width_ignores_escapes_and_counts_wide_characters() -> None:
    assert visible_width(f"{RED}abc{RESET}") == 3
    assert visible_width("你好") == 4
    assert visible_width("e\u0301") == 1  # combining accent
    assert visible_width("\x1b]0;title\x07ok") == 2


def test_wrap_breaks_at_spaces_and_reopens_styles() -> None:
    rows = wrap(f"{RED}red words that wrap{RESET} plain", 9)
    assert [strip_ansi(r) for r in rows] == ["red words", "that wrap", "plain"]
    assert rows[1].startswith("\x1b[38;2;255;0;0m") and rows[1].endswith(RESET)
    assert RED not in rows[2]


def test_wrap_splits_long_words_and_wide_characters() -> None:
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    rows = wrap("你好世界你", 5)
    assert rows == ["你好", "世界", "你"]
    assert all(visible_width(r) <= 5 for r in rows)


def test_a_word_longer_than_a_row_starts_a_row_of_its_own() -> None:
    """As Pi's wrapTextWithAnsi: the text before it ends its row, the word is cut from a new one."""
    rows = wrap("see https://example.com/a/very/long/url end", 20)
    assert rows == ["see", "https://example.com/", "a/very/long/url end"]
    assert wrap("  " + "x" * 24, 20) == ["  " + "x" * 18, "x" * 6]  # indentation alone stays


def test_wrap_keeps_empty_lines_and_indentation() -> None:
    assert wrap("a\n\n  b", 10) == ["a", "", "  b"]


def test_truncate_adds_ellipsis_and_closes_styles() -> None:
    cut = truncate(f"{RED}hello world{RESET}", 6)
    assert strip_ansi(cut) == "hello…"
    assert cut.endswith(RESET)
    assert truncate("short", 10) == "short"
    assert visible_width(truncate("你好世界", 5)) <= 5


def test_fit_background_and_alignment() -> None:
    assert visible_width(fit("abc", 6)) == 6
    line = with_background(f"a{RESET}b", 5, "\x1b[48;5;236m")
    assert visible_width(line) == 5
    assert f"{RESET}\x1b[48;5;236m" in line  # the background survives an inner reset
    assert align_right("left", "right", 12) == "left   right"
    assert visible_width(align_right("a long left part", "right", 10)) <= 10


def test_sanitize_removes_escapes_and_controls() -> None:
    assert sanitize("a\x1b[31mb\x1b[0m\r\nc\rd\te\x07") == "ab\ncd    e"


pieces = st.sampled_from(["a", "b", " ", "cd", "\n", "你", "e\u0301", "\t", RED, RESET, "\x1b[1m", "\x1b[22m"])
text_strategy = st.lists(pieces, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(text_strategy, st.integers(min_value=1, max_value=30))
def test_wrap_and_truncate_never_exceed_width(text: str, width: int) -> None:
    text = text.replace("\t", " ")
    for row in wrap(text, width):
        assert visible_width(row) <= width
        assert "\n" not in row
    assert visible_width(truncate(text.replace("\n", " "), width)) <= width
