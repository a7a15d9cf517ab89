from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_harness.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    count_lines,
    format_size,
    to_fixed,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_format_size_matches_pi() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(51200) == "50.0KB"
    assert format_size(1280) == "1.3KB"  # 1.25 rounds half up like JavaScript's toFixed
    assert format_size(1024 * 1024) == "1.0MB"
    assert format_size(int(2.5 * 1024 * 1024)) == "2.5MB"


def test_to_fixed_rounds_half_away_from_zero() -> None:
    assert to_fixed(2.5, 0) == "3"
    assert to_fixed(1.005, 2) == "1.00"  # the double is below 1.005, as in JavaScript
    assert to_fixed(2.0, 2) == "2.00"


def test_head_at_and_past_the_line_limit() -> None:
    exact = "\n".join(f"l{i}" for i in range(DEFAULT_MAX_LINES))
    result = truncate_head(exact)
    assert not result["truncated"] and result["content"] == exact and result["truncatedBy"] is None
    past = exact + "\nextra"
    result = truncate_head(past)
    assert result["truncated"] and result["truncatedBy"] == "lines"
    assert result["outputLines"] == DEFAULT_MAX_LINES and result["totalLines"] == DEFAULT_MAX_LINES + 1
    assert result["content"] == exact


def test_head_at_and_past_the_byte_limit() -> None:
    line = "x" * 99
    exact = "\n".join([line] * 512)  # 512 * 99 + 511 = 51199 bytes
    exact += "y"
    assert len(exact.encode()) == DEFAULT_MAX_BYTES
    assert not truncate_head(exact)["truncated"]
    result = truncate_head(exact + "z")
    assert result["truncatedBy"] == "bytes" and result["outputLines"] == 511
    assert result["outputBytes"] == 511 * 99 + 510


def test_head_first_line_too_long() -> None:
    result = truncate_head("a" * (DEFAULT_MAX_BYTES + 1) + "\nshort")
    assert result["firstLineExceedsLimit"] and result["content"] == "" and result["outputLines"] == 0


def test_tail_keeps_the_end_and_cuts_a_long_last_line_at_a_character_boundary() -> None:
    text = "\n".join(f"l{i}" for i in range(DEFAULT_MAX_LINES + 5))
    result = truncate_tail(text)
    assert result["truncatedBy"] == "lines" and result["content"].startswith("l5\n")
    long_last = "é" * 30000  # 60000 bytes, two bytes per character
    result = truncate_tail("first\n" + long_last)
    assert result["lastLinePartial"] and result["truncatedBy"] == "bytes"
    assert result["outputBytes"] <= DEFAULT_MAX_BYTES and set(result["content"]) == {"é"}


def test_truncate_line() -> None:
    assert truncate_line("a" * 500) == ("a" * 500, False)
    assert truncate_line("a" * 501) == ("a" * 500 + "... [truncated]", True)


@given(st.lists(st.text(alphabet="ab\u00e9", max_size=30), max_size=40), st.integers(1, 12), st.integers(1, 80))
def test_head_and_tail_respect_both_limits(lines: list[str], max_lines: int, max_bytes: int) -> None:
    text = "\n".join(lines)
    for result in (truncate_head(text, max_lines=max_lines, max_bytes=max_bytes),):
        assert result["outputLines"] <= max_lines and result["outputBytes"] <= max_bytes
        assert text.startswith(result["content"])
    tail = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    assert tail["outputLines"] <= max_lines and tail["outputBytes"] <= max_bytes
    # A final newline ends the last line; it is not a line of its own to keep.
    assert text.endswith(tail["content"]) or text.removesuffix("\n").endswith(tail["content"])


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("\n", 1), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\nb\n", 2), ("a\n\n", 2), ("\n\n\n", 3)],
)
def test_lines_are_counted_as_pi_counts_them(text: str, lines: int) -> None:
    for result in (truncate_head(text), truncate_tail(text)):
        assert result["totalLines"] == result["outputLines"] == lines and result["content"] == text
    over = truncate_tail(text * 3, max_lines=1)
    assert over["totalLines"] == len(count_lines(text * 3))
