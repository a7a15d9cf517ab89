"""Fuzzy matching for completion and selector filters.

A query matches when its characters appear in order in the candidate (case-insensitive); a
query with spaces is several terms that must all match. Scores favour matches at the start,
after a separator (``/ _ - .`` or space) or a lower→upper case change, and runs of consecutive
characters; shorter candidates win ties. A compiled regular expression rejects non-matching
candidates first, so filtering thousands of paths per key stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

_SEPARATORS = frozenset("/_-. \\:")


@lru_cache(maxsize=256)
def _pattern(term: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(ch) for ch in term), re.IGNORECASE | re.DOTALL)


def _term_score(term: str, candidate: str, lowered: str) -> float | None:
    if not _pattern(term).search(candidate):
        return None
    score = 0.0
    position = 0
    previous_match = -2
    for ch in term.lower():
        found = lowered.find(ch, position)
        if found < 0:
            return None
        bonus = 1.0
        if found == 0:
            bonus += 3.0
        else:
            before = candidate[found - 1]
            if before in _SEPARATORS:
                bonus += 2.0
            elif before.islower() and candidate[found].isupper():
                bonus += 1.5
        if found == previous_match + 1:
            bonus += 2.0
        else:
            score -= min(found - position, 10) * 0.1
        score += bonus
        previous_match = found
        position = found + 1
    if lowered.startswith(term.lower()):
        score += 5.0
    elif term.lower() in lowered:
        score += 2.5
    return score - len(candidate) * 0.01


def fuzzy_score(query: str, candidate: str) -> float | None:
    """Higher is better; None when the query does not match."""
    terms = query.split()
    if not terms:
        return 0.0
    lowered = candidate.lower()
    total = 0.0
    for term in terms:
        score = _term_score(term, candidate, lowered)
        if score is None:
            return None
        total += score
    return total


def fuzzy_filter(items: Iterable[T], query: str, key: Callable[[T], str] = str, limit: int | None = None) -> list[T]:
    """Matching items, best first (ties keep their original order); all items for an empty query."""
    if not query.strip():
        result = list(items)
        return result[:limit] if limit is not None else result
    scored: list[tuple[float, int, T]] = []
    for index, item in enumerate(items):
        score = fuzzy_score(query, key(item))
        if score is not None:
            scored.append((-score, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    matches = [item for _, _, item in scored]
    return matches[:limit] if limit is not None else matches


def prefix_then_fuzzy(items: Sequence[T], query: str, key: Callable[[T], str] = str) -> list[T]:
    """Items whose key starts with the query (in their order), then the other fuzzy matches."""
    lowered = query.lower()
    prefixed = [item for item in items if key(item).lower().startswith(lowered)]
    chosen = {id(item) for item in prefixed}
    rest = fuzzy_filter([item for item in items if id(item) not in chosen], query, key)
    return prefixed + rest
