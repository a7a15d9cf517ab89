"""A collapsed read or write highlights only the lines it shows, and they come out exactly as when
the whole file is highlighted (the lexer reads on past them: a comment or string that goes on
below the cut, a call whose parenthesis is on the next line, keep their colours)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from pygments.lexers.python import PythonLexer

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.tool_formats import head_preview, highlighted_preview
from pi_harness.tui.syntax import code_spans, find_lexer, highlight

C_SOURCE = "\n".join(["#include <stdio.h>", "int main(void) {", "  /* a comment that", "     goes on", "     and on",
                      "     past the cut */", '  printf("%d\\n",', "    1);", "}", "", "int f(", "  int x", ") {",
                      "  return x; // done", "}"])  # fmt: skip
PY_SOURCE = "\n".join(['"""A docstring', "over several", 'lines."""', "def call", "(", "    x,", "):", "    return x",
                       "value = call", "(1)", "text = '''open", "still open", "'''", "# end"])  # fmt: skip
SOURCES = {"app.c": C_SOURCE, "app.py": PY_SOURCE, "notes.txt": PY_SOURCE, "app.js": "let s = `a\nb\nc`;\n" * 8}


@pytest.mark.parametrize("path", sorted(SOURCES))
def test_the_first_lines_alone_are_those_of_the_whole_file(path: str) -> None:
    code = SOURCES[path]
    whole = code_spans(code, find_lexer(path=path))
    for count in range(0, code.count("\n") + 3):
        assert code_spans(code, find_lexer(path=path), count) == whole[:count], count


@pytest.mark.parametrize("path", sorted(SOURCES))
@pytest.mark.parametrize("limit", [1, 3, 10, 40])
def test_a_preview_is_the_head_of_the_highlighted_file(context: RenderContext, path: str, limit: int) -> None:
    code = SOURCES[path]
    expected = head_preview(highlight(code, context.theme, path=path, base_token="toolOutput"), limit, context)
    assert highlighted_preview(code, path, limit, context) == expected
    context.set_expand_tools(True)
    assert highlighted_preview(code, path, limit, context) == highlight(code, context.theme, path=path,
                                                                          base_token="toolOutput")  # fmt: skip


class CountingPythonLexer(PythonLexer):
    """The Python lexer, counting the tokens it produced."""

    produced = 0

    def get_tokens_unprocessed(self, text: str, stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, Any, str]]:
        for token in super().get_tokens_unprocessed(text, stack):
            self.produced += 1
            yield token


def test_the_head_of_a_long_file_costs_its_first_lines(context: RenderContext) -> None:
    code = "\n".join(f"value_{n} = compute({n})" for n in range(20_000))
    lexer = CountingPythonLexer(stripnl=False, ensurenl=False)
    assert len(code_spans(code, lexer, 10)) == 10
    assert 0 < lexer.produced < 200  # some ten tokens a line, not 200,000
    lines = highlighted_preview(code, "big.py", 10, context)
    assert len(lines) == 11 and "19990 more lines" in lines[-1]


def test_neighbouring_spans_of_one_colour_share_one_escape(context: RenderContext) -> None:
    theme = context.theme
    code = "the parser returns a table of tokens\nx = compute(1) + other  # note"
    lines = highlight(code, theme, path="notes.py", base_token="toolOutput")
    # Prose lexed as Python is a dozen tokens in the base colour: one sequence for the whole line.
    assert lines[0] == theme.fg("toolOutput", "the parser returns a table of tokens")
    # Each character keeps the colour it has when every span is coloured on its own.
    separately = ["".join(theme.fg(token or "toolOutput", text) for text, token in spans)
                  for spans in code_spans(code, find_lexer(path="notes.py"))]  # fmt: skip
    assert [cells(line) for line in lines] == [cells(line) for line in separately]
    assert len(lines[1]) < len(separately[1])


def cells(line: str) -> list[tuple[str, str]]:
    """Each visible character with the foreground colour in effect."""
    out: list[tuple[str, str]] = []
    colour = ""
    for piece in re.split(r"(\x1b\[[0-9;]*m)", line):
        if piece.startswith("\x1b["):
            colour = "" if piece == "\x1b[39m" else piece
        else:
            out.extend((char, colour) for char in piece)
    return out
