"""The built-in ``tool_search`` tool (``builtin:tool-search``): BM25 search over tools that are not
declared to the model, loading the matches for the next request."""

from pi_harness.extensions_builtin.tool_search.extension import (
    DEFAULT_LIMIT,
    EXTENSION_NAME,
    TOOL_NAME,
    create_tool_search_extension,
    result_text,
    search_and_load,
    tool_search_extension,
)
from pi_harness.extensions_builtin.tool_search.ranking import Match, SearchDocument, rank, search_document, tokenize

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
