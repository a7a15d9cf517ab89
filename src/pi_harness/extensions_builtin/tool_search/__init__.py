"""The built-in ``tool_search`` tool (``builtin:tool-search``): BM25 search over tools that are not
declared to the model, loading the matches for the next request.

The ranking (``ranking.py``) is imported by the first search, not by loading the extension.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pi_harness.extensions_builtin.tool_search.extension import (
    DEFAULT_LIMIT,
    EXTENSION_NAME,
    TOOL_NAME,
    create_tool_search_extension,
    result_text,
    search_and_load,
    tool_search_extension,
)

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.tool_search.ranking import (
        Match,
        SearchDocument,
        rank,
        search_document,
        tokenize,
    )

_RANKING = frozenset({"Match", "SearchDocument", "rank", "search_document", "tokenize"})


def __getattr__(name: str) -> object:
    if name in _RANKING:
        return getattr(importlib.import_module(f"{__name__}.ranking"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_LIMIT",
    "EXTENSION_NAME",
    "TOOL_NAME",
    "Match",
    "SearchDocument",
    "create_tool_search_extension",
    "rank",
    "result_text",
    "search_and_load",
    "search_document",
    "tokenize",
    "tool_search_extension",
]
