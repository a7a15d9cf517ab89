"""``pi --list-models [search]``: a table of the models that have credentials.

Columns ``provider  model  context  max-out  thinking  images``, two spaces apart, sorted by
provider then id. The optional search is fuzzy over ``"<provider> <id>"``: every space-separated
token must match as an in-order subsequence (case-insensitive); ``gpt4`` also matches ``4gpt``-style
swaps of a letters/digits token.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO, TypeVar

if TYPE_CHECKING:
    from pi_harness.ai.types import Model
    from pi_harness.coding.model_runtime import ModelRuntime

T = TypeVar("T")

NO_MODELS = "No models available. Set API keys in environment variables."
NO_MATCH = 'No models matching "{search}"'
_HEADERS = ("provider", "model", "context", "max-out", "thinking", "images")
_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def format_token_count(count: int) -> str:
    """``200000`` -> ``200K``, ``1000000`` -> ``1M``, ``1048576`` -> ``1.0M``."""
    for size, suffix in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            value = count / size
            return f"{int(value)}{suffix}" if value.is_integer() else f"{value:.1f}{suffix}"
    return str(count)


def _subsequence(query: str, text: str) -> bool:
    position = 0
    for char in query:
        position = text.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def fuzzy_matches(query: str, text: str) -> bool:
    """Whether ``query`` appears in ``text`` in order, allowing gaps (case-insensitive)."""
    query, text = query.lower(), text.lower()
    if _subsequence(query, text):
        return True
    swapped = _LETTERS_DIGITS.match(query) or _DIGITS_LETTERS.match(query)
    return bool(swapped) and _subsequence(swapped.group(2) + swapped.group(1), text)  # type: ignore[union-attr]


def fuzzy_filter(items: Sequence[T], query: str, key: Callable[[T], str]) -> list[T]:
    tokens = query.split()
    if not tokens:
        return list(items)
    return [item for item in items if all(fuzzy_matches(token, key(item)) for token in tokens)]


def format_models_table(models: Sequence[Model]) -> list[str]:
    ordered = sorted(models, key=lambda m: (m["provider"], m["id"]))
    rows = [
        (
            m["provider"],
            m["id"],
            format_token_count(m["contextWindow"]),
            format_token_count(m["maxTokens"]),
            "yes" if m.get("reasoning") else "no",
            "yes" if "image" in m.get("input", []) else "no",
        )
        for m in ordered
    ]
    widths = [max(len(header), *(len(row[i]) for row in rows)) for i, header in enumerate(_HEADERS)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in [_HEADERS, *rows]]


def list_models(runtime: ModelRuntime, search: str | None = None, out: TextIO | None = None) -> int:
    """Print the table (or the "no models" line) and return exit code 0."""
    stream = out if out is not None else sys.stdout
    models = runtime.get_available()
    if not models:
        print(NO_MODELS, file=stream)
        return 0
    if search:
        models = fuzzy_filter(models, search, lambda m: f"{m['provider']} {m['id']}")
        if not models:
            print(NO_MATCH.format(search=search), file=stream)
            return 0
    for line in format_models_table(models):
        print(line, file=stream)
    return 0
