"""Syntax highlighting with pygments, coloured by the theme's ``syntax*`` tokens.

``code_spans`` splits code into lines of ``(text, theme token)`` spans; ``highlight`` turns them
into ANSI lines for tool output, and the markdown renderer turns them into rich text. Lexers
are looked up once per language or file extension.
"""

from __future__ import annotations

import os
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
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


@lru_cache(maxsize=128)
def _lexer_by_extension(extension: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(f"file{extension}", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


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


def code_spans(code: str, lexer: Lexer | None) -> list[list[Span]]:
    """Lines of coloured spans (the code's newlines removed)."""
    if lexer is None:
        return [[(line, None)] if line else [] for line in code.split("\n")]
    lines: list[list[Span]] = [[]]
    for token_type, value in lexer.get_tokens(code):
        token = _theme_token(token_type)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((part, token))
    expected = code.count("\n") + 1
    del lines[expected:]
    while len(lines) < expected:
        lines.append([])
    return lines


def spans_to_ansi(spans: list[Span], theme: Theme, base_token: str | None) -> str:
    out: list[str] = []
    for text, token in spans:
        chosen = token or base_token
        out.append(theme.fg(chosen, text) if chosen else text)
    return "".join(out)


def highlight(
    code: str, theme: Theme, *, language: str | None = None, path: str | None = None, base_token: str | None = None
) -> list[str]:
    """ANSI lines of ``code``, one per source line (not wrapped)."""
    lexer = find_lexer(language, path)
    return [spans_to_ansi(spans, theme, base_token) for spans in code_spans(code, lexer)]
