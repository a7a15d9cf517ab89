from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.markdown import Markdown

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.colors import hex_to_rgb
from pi_harness.tui.markdown import MarkdownRenderer, _parser, _ThemedMarkdown, code_chunks
from pi_harness.tui.markdown_blocks import BlockSplitter, split_blocks
from pi_harness.tui.syntax import highlight
from pi_harness.tui.theme import Theme

from .conftest import assert_fits

DOCUMENT = """# Title

Some *emphasis*, **bold**, `code` and a [link](https://example.com) in a paragraph long enough to wrap.

### Third level

- item one
- item two

  continued paragraph of item two

1. first
2. second

> quoted text

---

Here is code:
```python
def f(x):
    return "hello"  # comment
```
After the code.

| a | b |
|---|---|
| 1 | 2 |
"""


def test_blocks_split_at_blank_lines_and_fences() -> None:
    blocks = split_blocks(DOCUMENT)
    assert blocks[0] == "# Title"
    assert "- item one\n- item two\n\n  continued paragraph of item two" in blocks  # indented continuation kept
    assert blocks[blocks.index("Here is code:") + 1].startswith("```python\ndef f(x):")
    assert "After the code." in blocks
    assert split_blocks("```\na\n\nb\n```") == ["```\na\n\nb\n```"]  # blank lines inside a fence


def test_rendering_looks_like_pi(theme: Theme) -> None:
    lines = MarkdownRenderer(theme).render(DOCUMENT, 50)
    assert_fits(lines, 50)
    text = [strip_ansi(line) for line in lines]
    assert text[0] == "Title"
    assert "### Third level" in text
    assert " • item one" in text and "1. first" in text and "2. second" in text
    assert "│ quoted text" in text
    assert "─" * 50 in text
    assert text[text.index("```python") + 1] == "  def f(x):"  # markdown.codeBlockIndent
    assert "link (https://example.com)" in " ".join(text)
    red, green, blue = hex_to_rgb(str(theme.color("mdHeading")))
    assert f"38;2;{red};{green};{blue}" in lines[0]  # the heading has the heading colour
    keyword_line = lines[text.index("  def f(x):")]
    assert theme.fg_code("syntaxKeyword") + "def" in keyword_line


def test_code_block_indent_setting(theme: Theme) -> None:
    lines = MarkdownRenderer(theme, code_block_indent="    ").render("```\nx = 1\n```", 40)
    assert [strip_ansi(line) for line in lines] == ["```", "    x = 1", "```"]


def test_streaming_renders_like_the_finished_text(theme: Theme) -> None:
    renderer = MarkdownRenderer(theme)
    for end in range(1, len(DOCUMENT) + 1, 7):
        partial = DOCUMENT[:end]
        lines, stable = renderer.render_stable(partial, 60, indent=" ")
        fresh, _ = MarkdownRenderer(theme).render_stable(partial, 60, indent=" ")
        assert lines == fresh
        final, _ = MarkdownRenderer(theme).render_stable(DOCUMENT, 60, indent=" ")
        assert lines[:stable] == final[:stable]  # settled lines never change


words = st.sampled_from(["word", "- item", "1. one", "```", "```py", "  indented", "> quote", "# head", "", "x y"])


@settings(max_examples=200, deadline=None)
@given(st.lists(words, max_size=30))
def test_incremental_split_equals_a_full_split(lines: list[str]) -> None:
    text = "\n".join(lines)
    splitter = BlockSplitter()
    for end in range(len(text) + 1):
        assert splitter.split(text[:end]) == split_blocks(text[:end])


def test_long_code_blocks_are_highlighted_in_chunks(theme: Theme) -> None:
    body = [f"x_{n} = {n}" for n in range(100)]
    body[30] = ""
    assert code_chunks(body) == [(0, 31), (31, 71), (71, 100)]
    lines = MarkdownRenderer(theme).render("```python\n" + "\n".join(body) + "\n```", 40)
    assert len(lines) == 102 and strip_ansi(lines[-2]) == "  x_99 = 99"


def test_highlight_by_file_name(theme: Theme) -> None:
    (line,) = highlight('const x = "a";', theme, path="app.ts")
    assert theme.fg_code("syntaxString") in line and strip_ansi(line) == 'const x = "a";'
    assert highlight("plain\ntext", theme, path="notes.unknownext") == ["plain", "text"]


def test_documents_share_one_parser_and_keep_what_richs_constructor_sets(theme: Theme) -> None:
    # Our documents skip rich's constructor (it builds a parser for every document): everything
    # it sets must still be there, with the same values and the same parsed tokens.
    ours = _ThemedMarkdown(DOCUMENT, theme, "  ", style="italic", hyperlinks=True)
    richs = Markdown(DOCUMENT, style="italic", hyperlinks=True)
    assert set(vars(richs)) <= set(vars(ours))
    assert {name: value for name, value in vars(ours).items() if name in vars(richs) and name != "parsed"} == {
        name: value for name, value in vars(richs).items() if name != "parsed"
    }
    assert [token.as_dict() for token in ours.parsed] == [token.as_dict() for token in richs.parsed]
    assert _parser() is _parser()
