"""Plain prose laid out without the markdown parser gives exactly the parser's lines (``markdown_plain``)."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pi_harness.tui.markdown import MarkdownRenderer
from pi_harness.tui.markdown_plain import plain_paragraph
from pi_harness.tui.theme import load_theme

RENDERER = MarkdownRenderer(load_theme("dark", "truecolor"))
# Prose, now and then with what makes a block markdown: list markers, emphasis, code, links …
LETTERS = "abcdefXYZéß日"
PROSE = st.text(alphabet=LETTERS + "019,.;:?!'\"/()-", min_size=1, max_size=10)
MARKUP = st.text(alphabet=LETTERS + "019 *_`#>[]<&|~\\+=-.", min_size=1, max_size=4)
# Mostly prose, one word in ten something else.
WORD = st.integers(0, 9).flatmap(lambda n: MARKUP if n == 0 else PROSE)
LINE = st.builds(lambda first, rest: " ".join([first, *rest]), st.sampled_from(LETTERS) | WORD,
                 st.lists(WORD, max_size=12))  # fmt: skip
BLOCK = st.lists(LINE, min_size=1, max_size=4).map("\n".join)


def both(block: str, width: int, style: str) -> tuple[list[str], list[str]]:
    return RENDERER._render_rich(block, width, style), RENDERER._render_rich(block, width, style, parse=True)


@settings(max_examples=200, deadline=None)
@given(BLOCK, st.sampled_from([12, 40, 120]),
       st.sampled_from(["", "thinking", "user", "custom"]))  # fmt: skip
@example("Fixed it: the loop was off by one, and (now) the test passes!", 20, "")
@example("First line\nsecond line\nthird", 40, "user")
@example("A verylongwordthatdoesnotfitonarowatallsoitmustbefolded here", 12, "thinking")
def test_plain_prose_gives_the_parsers_lines(block: str, width: int, style: str) -> None:
    fast, parsed = both(block, width, style)
    assert fast == parsed


@settings(max_examples=100, deadline=None)
@given(BLOCK)
def test_only_blocks_the_parser_reads_as_one_plain_paragraph_take_the_short_way(block: str) -> None:
    assume(plain_paragraph(block, RENDERER._console.get_style("none"), hard_breaks=False) is not None)
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().enable("strikethrough").enable("table").parse(block)
    assert [token.type for token in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    children = tokens[1].children or []
    assert {child.type for child in children} <= {"text", "softbreak"}
    assert "".join(child.content if child.type == "text" else "\n" for child in children) == block


def test_markdown_is_not_taken_for_prose() -> None:
    style = RENDERER._console.get_style("none")
    for block in ["- item", "1. first", "**bold** text", "a `code` span", "# Title", "> quote", "see [x](y)",
                  "a  b", "trailing ", " leading", "Setext\n===", "a | b", "x_y_z", "AT&T", "2019. A year"]:  # fmt: skip
        assert plain_paragraph(block, style, hard_breaks=False) is None, block
    assert plain_paragraph("Plain words, a path/to/file.py: done!", style, hard_breaks=False) is not None
