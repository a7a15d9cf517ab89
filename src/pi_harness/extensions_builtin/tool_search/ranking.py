"""Ranking tools for a query: Okapi BM25 over each tool's search text, as Pi 1.4.0 ranks them.

A tool's text is its name, the name with ``_`` as spaces, its description, the descriptions and
property names of its parameter schema (nested ones too), and its namespace's name, description
and instructions, so a query that names a server (``mcp__github`` or ``github``) finds its tools.
Terms are lowercase words, split at non-alphanumerics and camelCase boundaries, without a short
list of stop words, with plural endings cut (``issues`` → ``issue``). Scores use k1 = 1.2 and
b = 0.75; only tools with a positive score are returned, best first, ties in document order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
_LOWER_UPPER = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")
_SIBILANT_PLURAL = re.compile(r"(ches|shes|sses|xes|zes)$")


def stem(term: str) -> str:
    """A rough singular: enough for ``issues``/``issue`` and ``searches``/``search`` to meet."""
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 4 and _SIBILANT_PLURAL.search(term):
        return term[:-2]
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


def tokenize(text: str) -> list[str]:
    split = _ACRONYM.sub(r"\1 \2", _LOWER_UPPER.sub(r"\1 \2", text)).lower()
    return [stem(term) for term in _SEPARATORS.split(split) if term and term not in STOP_WORDS]


def _schema_text(schema: object, parts: list[str]) -> None:
    if not isinstance(schema, Mapping):
        return
    description = schema.get("description")
    if isinstance(description, str):
        parts.append(description)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, value in properties.items():
            parts.append(str(name))
            _schema_text(value, parts)
    _schema_text(schema.get("items"), parts)
    for key in ("anyOf", "oneOf", "allOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            for variant in variants:
                _schema_text(variant, parts)


@dataclass(frozen=True)
class SearchDocument:
    name: str
    text: str


def search_document(tool: Mapping[str, object]) -> SearchDocument:
    """The search text of one ``get_all_tools()`` entry."""
    name = str(tool.get("name", ""))
    parts = [name, name.replace("_", " "), str(tool.get("description") or "")]
    _schema_text(tool.get("parameters"), parts)
    group = tool.get("namespace")
    if isinstance(group, Mapping):
        parts.extend(str(group.get(key) or "") for key in ("name", "description", "instructions"))
    return SearchDocument(name, " ".join(part for part in parts if part.strip()))


@dataclass(frozen=True)
class Match:
    name: str
    score: float


def rank(
    query: str, documents: Sequence[SearchDocument], limit: int, *, k1: float = 1.2, b: float = 0.75
) -> list[Match]:
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or not documents or limit <= 0:
        return []
    counts = [Counter(tokenize(document.text)) for document in documents]
    lengths = [sum(c.values()) for c in counts]
    average = (sum(lengths) / len(documents)) or 1.0
    total = len(documents)
    idf = {}
    for term in terms:
        frequency = sum(1 for c in counts if term in c)
        idf[term] = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
    matches: list[Match] = []
    for document, count, length in zip(documents, counts, lengths, strict=True):
        norm = k1 * (1 - b + b * length / average)
        score = sum(idf[t] * (count[t] * (k1 + 1)) / (count[t] + norm) for t in terms if count[t])
        if score > 0:
            matches.append(Match(document.name, score))
    # ``sorted`` is stable: equal scores keep document order.
    return sorted(matches, key=lambda match: -match.score)[:limit]
