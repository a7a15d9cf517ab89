"""Syntax highlighting with pygments, coloured by the theme's ``syntax*`` tokens.

``code_spans`` splits code into lines of ``(text, theme token)`` spans; ``highlight`` turns them
into ANSI lines for tool output, and the markdown renderer turns them into rich text. Lexers
are looked up once per language or file extension.
"""

from __future__ import annotations

import fnmatch
import os
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_lexer_by_name
from pygments.lexers._mapping import LEXERS
from pygments.plugin import find_plugin_lexers
from pygments.token import (
    Comment,
    Generic,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    _TokenType,
)
from pygments.util import ClassNotFound

from pi_harness.tui.theme import Theme

Span = tuple[str, str | None]  # text and the theme token colouring it (None: the base colour)

# Most specific first: the first token type that contains the lexed type decides.
_TOKEN_MAP: tuple[tuple[_TokenType, str | None], ...] = (
    (Comment, "syntaxComment"),
    (Keyword.Type, "syntaxType"),
    (Keyword.Constant, "syntaxNumber"),
    (Keyword, "syntaxKeyword"),
    (Operator.Word, "syntaxKeyword"),
    (Operator, "syntaxOperator"),
    (Punctuation, "syntaxPunctuation"),
    (String, "syntaxString"),
    (Number, "syntaxNumber"),
    (Literal, "syntaxNumber"),
    (Name.Function, "syntaxFunction"),
    (Name.Decorator, "syntaxFunction"),
    (Name.Builtin, "syntaxFunction"),
    (Name.Class, "syntaxType"),
    (Name.Namespace, "syntaxType"),
    (Name.Tag, "syntaxKeyword"),
    (Name.Attribute, "syntaxVariable"),
    (Name.Variable, "syntaxVariable"),
    (Name.Constant, "syntaxNumber"),
    (Generic.Inserted, "toolDiffAdded"),
    (Generic.Deleted, "toolDiffRemoved"),
    (Generic.Heading, "mdHeading"),
)

_ALIASES = {"sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash", "py": "python", "js": "javascript",
            "ts": "typescript", "yml": "yaml", "md": "markdown", "jsonl": "json", "text": "", "plain": "",
            "txt": ""}  # fmt: skip


@lru_cache(maxsize=4096)
def _theme_token(token_type: _TokenType) -> str | None:
    for parent, name in _TOKEN_MAP:
        if token_type in parent:
            return name
    return None


@lru_cache(maxsize=128)
def _lexer_by_name(name: str) -> Lexer | None:
    name = _ALIASES.get(name.lower(), name.lower())
    if not name:
        return None
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _name_matches(name: str, pattern: str) -> bool:
    """``fnmatch`` of a lexer's file pattern; the plain ones (``*.py``, ``Makefile``: all but a
    dozen of pygments' ~900) without compiling a regular expression each."""
    if "[" not in pattern and "?" not in pattern:
        if "*" not in pattern:
            return name == pattern
        if pattern[0] == "*" and "*" not in pattern[1:]:
            return name.endswith(pattern[1:])
    return fnmatch.fnmatchcase(name, pattern)


def _lexer_class_for_filename(name: str) -> type[Lexer] | None:
    """The class pygments' ``get_lexer_for_filename`` picks (no code to look at): among the lexers
    whose patterns match, the highest priority, an exact name counting half a point more."""
    matches: list[tuple[type[Lexer], str]] = []
    for _module, lexer_name, _aliases, patterns, _mimetypes in LEXERS.values():
        for pattern in patterns:
            if _name_matches(name, pattern):
                found = find_lexer_class(lexer_name)
                if found is not None:
                    matches.append((found, pattern))
    for plugin in find_plugin_lexers():
        matches.extend((plugin, pattern) for pattern in plugin.filenames if _name_matches(name, pattern))

    def rating(match: tuple[type[Lexer], str]) -> tuple[float, str]:
        lexer, pattern = match
        return lexer.priority + (0.5 if "*" not in pattern else 0), lexer.__name__

    matches.sort(key=rating)  # stable, as pygments sorts: of equal ratings the last one listed wins
    return matches[-1][0] if matches else None


@lru_cache(maxsize=128)
def _lexer_by_extension(extension: str) -> Lexer | None:
    found = _lexer_class_for_filename(f"file{extension}")
    return found(stripnl=False, ensurenl=False) if found is not None else None


def find_lexer(language: str | None = None, path: str | None = None) -> Lexer | None:
    """A lexer for a fence language (``python``, ``ts`` …) or a file name; None for plain text."""
    if language:
        lexer = _lexer_by_name(language.split()[0])
        if lexer is not None:
            return lexer
    if path:
        base = os.path.basename(path)
        extension = os.path.splitext(base)[1].lower()
        if extension:
            return _lexer_by_extension(extension)
        special = {"Makefile": "make", "Dockerfile": "docker"}.get(base)
        return _lexer_by_name(special) if special else None
    return None


def code_spans(code: str, lexer: Lexer | None, max_lines: int | None = None) -> list[list[Span]]:
    """Lines of coloured spans (the code's newlines removed); with ``max_lines``, only the first
    ones: the lexer reads the whole code but stops once they are complete (the same spans)."""
    if lexer is None:
        return [[(line, None)] if line else [] for line in code.split("\n", max_lines or -1)[:max_lines]]
    lines: list[list[Span]] = [[]]
    for token_type, value in lexer.get_tokens(code):
        token = _theme_token(token_type)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((part, token))
        if max_lines is not None and len(lines) > max_lines:
            del lines[max_lines:]
            return lines  # a later token can only add to the lines after these
    expected = code.count("\n") + 1
    if max_lines is not None:
        expected = min(expected, max_lines)
    del lines[expected:]
    while len(lines) < expected:
        lines.append([])
    return lines


def spans_to_ansi(spans: list[Span], theme: Theme, base_token: str | None) -> str:
    """The spans in their colours; neighbours of one colour share one escape sequence (a line of
    prose is lexed as a dozen tokens, one colour: the terminal gets it once, not a dozen times)."""
    out: list[str] = []
    run: list[str] = []
    current: str | None = None
    for text, token in spans:
        chosen = token or base_token
        if run and chosen != current:
            out.append(theme.fg(current, "".join(run)) if current else "".join(run))
            run = []
        current = chosen
        run.append(text)
    if run:
        out.append(theme.fg(current, "".join(run)) if current else "".join(run))
    return "".join(out)


def highlight(
    code: str,
    theme: Theme,
    *,
    language: str | None = None,
    path: str | None = None,
    base_token: str | None = None,
    max_lines: int | None = None,
) -> list[str]:
    """ANSI lines of ``code``, one per source line (not wrapped); the first ``max_lines`` only
    when given (a preview of a long file costs its first lines, not the whole file)."""
    lexer = find_lexer(language, path)
    return [spans_to_ansi(spans, theme, base_token) for spans in code_spans(code, lexer, max_lines)]
