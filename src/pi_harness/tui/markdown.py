"""Markdown to themed ANSI lines, with rich doing the layout and pygments the highlighting.

A streamed answer is re-rendered after every delta, so the text is split into top-level blocks
(paragraphs, lists, fenced code …) at blank lines and before/after unindented code fences, and
each block's lines are cached: only the block still growing is rendered again. Fenced code at
the top level is drawn directly (fence lines in ``mdCodeBlockBorder``, code indented by
``markdown.codeBlockIndent``); everything else goes through rich's markdown layout with Pi-like
element styles (left-aligned headings, ``│`` quotes, ``─`` rules). Links are OSC 8 hyperlinks
when the terminal supports them (the link text only), else ``text (url)``. Tables are drawn
by ``markdown_table`` with box-drawing borders, as Pi draws them. With ``diagrams`` set, a closed
top-level ```` ```mermaid ```` block is drawn as a diagram by ``mermaid`` (else its code is shown).
"""

from __future__ import annotations

import functools
import io
import re
import time
from collections import OrderedDict
from collections.abc import Iterable

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderResult
from rich.markdown import (
    BlockQuote,
    Heading,
    HorizontalRule,
    ListItem,
    Markdown,
    TextElement,
)
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme as RichTheme

from pi_harness.tui.ansi import truncate, visible_width, wrap
from pi_harness.tui.hyperlinks import hyperlink
from pi_harness.tui.markdown_blocks import FENCE_RE as _FENCE_RE
from pi_harness.tui.markdown_blocks import BlockSplitter, closes_fence
from pi_harness.tui.markdown_plain import plain_paragraph
from pi_harness.tui.markdown_table import TableElement
from pi_harness.tui.mermaid import is_mermaid, render_diagram
from pi_harness.tui.syntax import code_spans, find_lexer, spans_to_ansi
from pi_harness.tui.theme import Theme

_CACHE_SIZE = 4096
_MEMO_SIZE = 8
_CHUNK_MIN, _CHUNK_MAX = 16, 40


def code_chunks(lines: list[str]) -> list[tuple[int, int]]:
    """Line ranges highlighted separately, so a growing code block only re-lexes its last range.

    Ranges end at a blank line after at least ``_CHUNK_MIN`` lines (a likely point between
    statements), or after ``_CHUNK_MAX`` lines; a multi-line string crossing a boundary may be
    coloured as code after it, a small price for streaming long code blocks smoothly.
    """
    ranges: list[tuple[int, int]] = []
    start = 0
    for index, line in enumerate(lines):
        size = index + 1 - start
        if size >= _CHUNK_MAX or (size >= _CHUNK_MIN and not line.strip()):
            ranges.append((start, index + 1))
            start = index + 1
    if start < len(lines):
        ranges.append((start, len(lines)))
    return ranges


class _SettledLines:
    """The lines of the first ``count`` blocks of the text last rendered (at one width and style)."""

    def __init__(self) -> None:
        self.count = 0
        self.blocks: list[str] = []
        self.lines: list[str] = []

    def continues(self, blocks: list[str]) -> bool:
        """Whether ``blocks`` starts with the same settled blocks (the splitter reuses their objects)."""
        if self.count == 0:
            return True
        count = self.count
        return len(blocks) > count and blocks[0] is self.blocks[0] and blocks[count - 1] is self.blocks[count - 1]


def _rich_styles(theme: Theme) -> dict[str, Style]:
    heading = theme.rich_style("mdHeading", bold=True)
    return {
        "markdown.paragraph": Style(),
        "markdown.text": Style(),
        "markdown.h1": theme.rich_style("mdHeading", bold=True, underline=True),
        **{f"markdown.h{level}": heading for level in range(2, 8)},
        "markdown.h1.border": theme.rich_style("mdHeading"),
        "markdown.code": theme.rich_style("mdCode"),
        "markdown.code_block": theme.rich_style("mdCodeBlock"),
        "markdown.block_quote": theme.rich_style("mdQuote", italic=True),
        "markdown.link": theme.rich_style("mdLink", underline=True),
        "markdown.link_url": theme.rich_style("mdLinkUrl"),
        "markdown.hr": theme.rich_style("mdHr"),
        "markdown.item": Style(),
        "markdown.list": Style(),
        "markdown.item.bullet": theme.rich_style("mdListBullet"),
        "markdown.item.number": theme.rich_style("mdListBullet"),
        "markdown.table.border": theme.rich_style("mdCodeBlockBorder"),
        "markdown.table.header": theme.rich_style("mdHeading", bold=True),
        "markdown.em": Style(italic=True),
        "markdown.emph": Style(italic=True),
        "markdown.strong": Style(bold=True),
        "markdown.s": Style(strike=True),
        "markdown.kbd": theme.rich_style("mdCode", bold=True),
    }


_LINE_BREAKS_KEPT = frozenset({"user", "thinking"})


@functools.cache
def _parser() -> MarkdownIt:
    """The parser rich's Markdown builds for every document, built once (parsing keeps no state in it)."""
    return MarkdownIt().enable("strikethrough").enable("table")


@functools.cache
def _markdown_defaults() -> dict[str, object]:
    """The attributes rich's Markdown sets in its constructor, for an empty document."""
    return dict(vars(Markdown("")))


class _ThemedMarkdown(Markdown):
    """rich's Markdown with our element classes and access to the theme."""

    def __init__(
        self, markup: str, theme: Theme, code_indent: str, style: Style | str = "none", *, hyperlinks: bool = False
    ) -> None:
        # rich's constructor only stores its arguments and the parsed tokens, but builds a new
        # markdown-it parser each time (a third of the cost of a short block): one parser serves all.
        vars(self).update(_markdown_defaults())
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.style = style
        self.hyperlinks = hyperlinks
        self.pi_theme = theme
        self.pi_code_indent = code_indent


class _Heading(Heading):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        level = int(self.tag[1:])
        if level >= 3:
            text = Text("#" * level + " ", style=console.get_style(self.style_name, default="none")) + text
        text.justify = "left"
        yield text


class _CodeBlock(TextElement):
    """A fenced or indented code block inside another element (list item, quote)."""

    style_name = "markdown.code_block"

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> _CodeBlock:
        assert isinstance(markdown, _ThemedMarkdown)
        block = cls()
        block.language = (token.info or "").partition(" ")[0]
        block.theme = markdown.pi_theme
        block.indent = markdown.pi_code_indent
        return block

    language: str
    theme: Theme
    indent: str

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip("\n")
        border = self.theme.rich_style("mdCodeBlockBorder")
        out = Text(no_wrap=False, overflow="fold")
        out.append("```" + self.language + "\n", style=border)
        for spans in code_spans(code, find_lexer(self.language)):
            out.append(self.indent)
            for piece, token in spans:
                out.append(piece, style=self.theme.rich_style(token or "mdCodeBlock"))
            out.append("\n")
        out.append("```", style=border)
        yield out


class _ListItem(ListItem):
    """Numbered items as ``1.`` (rich draws a bare number)."""

    def render_number(self, console: Console, options: ConsoleOptions, number: int, last_number: int) -> RenderResult:
        gutter = len(str(last_number)) + 2
        style = console.get_style("markdown.item.number", default="none")
        rows = console.render_lines(self.elements, options.update(width=options.max_width - gutter), style=self.style)
        for index, row in enumerate(rows):
            label = f"{number}." if index == 0 else ""
            yield Segment(label.rjust(gutter - 1) + " ", style)
            yield from row
            yield Segment.line()


class _BlockQuote(BlockQuote):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        border = console.get_style("markdown.pi_quote_border", default="none")
        lines = console.render_lines(self.elements, options.update(width=options.max_width - 2), style=self.style)
        for line in lines:
            yield Segment("│ ", border)
            yield from line
            yield Segment.line()


class _Rule(HorizontalRule):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        style = console.get_style("markdown.hr", default="none")
        yield Text("─" * options.max_width, style=style)


_ThemedMarkdown.elements = {
    **Markdown.elements,
    "heading_open": _Heading,
    "fence": _CodeBlock,
    "code_block": _CodeBlock,
    "blockquote_open": _BlockQuote,
    "hr": _Rule,
    "list_item_open": _ListItem,
    "table_open": TableElement,
}


def _segments_to_ansi(line: list[Segment], color_system: ColorSystem) -> str:
    # Trailing unstyled padding would make lines look wider than their content.
    while (
        line and not line[-1].control and not line[-1].text.strip() and not (line[-1].style and line[-1].style.bgcolor)
    ):
        line = line[:-1]
    out: list[str] = []
    for index, segment in enumerate(line):
        if segment.control:
            continue
        text = segment.text
        if index == len(line) - 1 and not (segment.style and segment.style.bgcolor):
            text = text.rstrip(" ")
        style = segment.style
        if style is not None and style.link:
            # Pi's plain OSC 8 form (rich would add an ``id=`` parameter).
            out.append(hyperlink(style.update_link(None).render(text, color_system=color_system), style.link))
            continue
        out.append(style.render(text, color_system=color_system) if style else text)
    return "".join(out)


class MarkdownRenderer:
    """Renders markdown to ANSI lines of a given width, caching each top-level block."""

    def __init__(self, theme: Theme, code_block_indent: str = "  ", *, hyperlinks: bool = False) -> None:
        self.theme = theme
        self.code_block_indent = code_block_indent
        self.hyperlinks = hyperlinks
        self._color_system = ColorSystem.TRUECOLOR if theme.mode == "truecolor" else ColorSystem.EIGHT_BIT
        styles = _rich_styles(theme)
        styles["markdown.pi_quote_border"] = theme.rich_style("mdQuoteBorder")
        if hyperlinks:  # rich styles a linked text as the URL; Pi keeps the link's own look
            styles["markdown.link_url"] = styles["markdown.link"]
        self._console = Console(
            file=io.StringIO(),
            force_terminal=True,
            color_system="truecolor" if theme.mode == "truecolor" else "256",
            width=80,
            theme=RichTheme(styles, inherit=True),
            highlight=False,
            emoji=False,
            markup=False,
            legacy_windows=False,
        )
        self._cache: OrderedDict[tuple[str, int, str, str], list[str]] = OrderedDict()
        self._splitter = BlockSplitter()
        self._memo: dict[tuple[int, str, str], _SettledLines] = {}

    def render(self, text: str, width: int, *, style: str = "", indent: str = "", diagrams: bool = False) -> list[str]:
        """All lines of ``text``; ``style`` is "" (answer text), "thinking", "user" or "custom";
        ``diagrams``: draw closed mermaid blocks as diagrams."""
        return self.render_within(text, width, style=style, indent=indent, diagrams=diagrams)[0]

    def render_stable(self, text: str, width: int, *, style: str = "", indent: str = "") -> tuple[list[str], int]:
        """Lines (each prefixed by ``indent``) plus how many leading lines can no longer change as text is appended.

        While an answer streams, the lines of its settled blocks are kept from the previous call
        and only the last block is laid out again, so one update costs the size of that block.
        """
        lines, stable, _behind = self.render_within(text, width, style=style, indent=indent)
        return lines, stable

    def render_within(
        self,
        text: str,
        width: int,
        *,
        style: str = "",
        indent: str = "",
        deadline: float | None = None,
        diagrams: bool = False,
    ) -> tuple[list[str], int, bool]:
        """``render_stable`` that stops laying out settled blocks once ``time.perf_counter()``
        passes ``deadline`` (after at least one): then it returns only the settled lines done so
        far, all stable, and True; the next call goes on from there. A fast stream can bring many
        blocks between two frames; this keeps each frame short so keys are drawn without waiting."""
        inner = max(8, width - len(indent))
        blocks = self._splitter.split(text)
        # Diagrams or not are two different renderings of the same text (a "final" answer switches).
        style_key = style + ":diagrams" if diagrams else style
        key = (inner, style_key, indent)
        memo = self._memo.get(key)
        settled = len(blocks) - 1
        if memo is None or not memo.continues(blocks):
            memo = _SettledLines()
            self._memo[key] = memo
            if len(self._memo) > _MEMO_SIZE:
                self._memo.pop(next(iter(self._memo)))
        behind = False
        for index in range(memo.count, settled):
            if memo.lines:
                memo.lines.append("")
            memo.lines.extend(self._render_block(blocks[index], inner, style_key, indent))
            memo.count = index + 1
            memo.blocks = blocks
            if deadline is not None and index + 1 < settled and time.perf_counter() > deadline:
                behind = True
                break
        lines = list(memo.lines)
        stable = len(lines)
        if blocks and not behind:
            if lines:
                lines.append("")
            lines.extend(self._render_block(blocks[-1], inner, style_key, indent))
        return lines, stable, behind

    def _render_block(self, block: str, width: int, style: str, indent: str) -> list[str]:
        key = (block, width, style, indent)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        fence = _FENCE_RE.match(block.split("\n", 1)[0])
        if fence is not None and not fence.group(1):
            lines = self._render_code_block(block, fence, width, diagrams=style.endswith(":diagrams"))
        else:
            lines = self._render_rich(block, width, style.removesuffix(":diagrams"))
        if indent:
            lines = [indent + line if line else "" for line in lines]
        self._cache[key] = lines
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return lines

    def _render_code_block(self, block: str, fence: re.Match[str], width: int, *, diagrams: bool = False) -> list[str]:
        marker, info = fence.group(2), fence.group(3).strip()
        body = block.split("\n")[1:]
        closed = bool(body) and closes_fence(body[-1], (marker[0], len(marker)))
        if closed:
            body = body[:-1]
        if diagrams and closed and is_mermaid(info):
            drawn = render_diagram("\n".join(body), width, self.theme)
            if drawn is not None:
                return drawn
        language = info.split()[0] if info else ""
        code_width = max(4, width - len(self.code_block_indent))
        lines = [truncate(self.theme.fg("mdCodeBlockBorder", "```" + language), width)]
        for start, end in code_chunks(body):
            lines.extend(self._code_chunk("\n".join(body[start:end]), language, code_width))
        if closed:
            lines.append(self.theme.fg("mdCodeBlockBorder", "```"))
        return lines

    def _code_chunk(self, code: str, language: str, width: int) -> list[str]:
        key = (code, width, "code:" + language, self.code_block_indent)
        cached = self._cache.get(key)
        if cached is None:
            cached = []
            for spans in code_spans(code, find_lexer(language)):
                line = spans_to_ansi(spans, self.theme, "mdCodeBlock")
                fits = visible_width("".join(text for text, _ in spans)) <= width
                cached.extend(self.code_block_indent + row for row in ([line] if fits else wrap(line, width)))
            self._cache[key] = cached
        return cached

    def _render_rich(self, block: str, width: int, style: str, *, parse: bool = False) -> list[str]:
        """Lines of a block that is not top-level fenced code; ``parse``: always through the
        markdown parser (else plain prose is laid out directly, ``markdown_plain``)."""
        # What the user typed or pasted (and the model's thinking) keeps its line breaks, as in
        # Pi: each newline becomes a markdown hard break instead of joining the lines.
        hard_breaks = style in _LINE_BREAKS_KEPT
        base: Style | str = "none"
        if style == "thinking":
            base = self.theme.rich_style("thinkingText", italic=True)
        elif style == "user":
            base = self.theme.rich_style("userMessageText")
        elif style == "custom":
            base = self.theme.rich_style("customMessageText")
        console = self._console
        document: ConsoleRenderable | None = None
        if not parse:
            # The paragraph's style as rich's markdown stacks it: the document's, then the paragraph's.
            paragraph = console.get_style(base, default="none") + console.get_style("markdown.paragraph")
            document = plain_paragraph(block, paragraph, hard_breaks=hard_breaks)
        if document is None:
            markup = block.replace("\n", "  \n") if hard_breaks else block
            indent = self.code_block_indent
            document = _ThemedMarkdown(markup, self.theme, indent, style=base, hyperlinks=self.hyperlinks)
        options = console.options.update(width=width, max_width=width)
        rendered = console.render_lines(document, options, pad=False, new_lines=False)
        lines = [_segments_to_ansi(line, self._color_system) for line in rendered]
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        return lines


def render_markdown(text: str, theme: Theme, width: int, code_block_indent: str = "  ") -> list[str]:
    """One-off rendering (no cache kept between calls)."""
    return MarkdownRenderer(theme, code_block_indent).render(text, width)


def join_blocks(blocks: Iterable[list[str]]) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if out:
            out.append("")
        out.extend(block)
    return out
