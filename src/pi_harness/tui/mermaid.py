"""Mermaid fenced blocks drawn as box-drawing diagrams (``markdown.mermaid``), through termaid.

termaid is imported on the first diagram only, so sessions without one never load it. A source
termaid cannot draw (it raises or returns nothing), or a diagram wider than the screen, gives
None and the caller shows the plain code block, as Pi does.
"""

from __future__ import annotations

from collections import OrderedDict

from pi_harness.tui.ansi import visible_width
from pi_harness.tui.theme import Theme

MERMAID_MODES = ("off", "final", "streaming")

# termaid's span styles -> our theme colours (Pi: borders muted, edges accent, edge labels muted).
_COLOURS = {
    "node": "borderMuted",
    "label": "text",
    "edge": "accent",
    "arrow": "accent",
    "edge_label": "muted",
}

_CACHE_SIZE = 64
_cache: OrderedDict[tuple[str, int], list[list[tuple[str, str]]] | None] = OrderedDict()


def is_mermaid(info: str) -> bool:
    words = info.split()
    return bool(words) and words[0].lower() == "mermaid"


def _draw(source: str) -> list[list[tuple[str, str]]] | None:
    try:
        import termaid

        document = termaid.render_styled(source)
    except Exception:  # a diagram termaid cannot parse: the caller shows the source
        return None
    rows = [[(str(span.get("text", "")), str(span.get("style", ""))) for span in line] for line in document["lines"]]
    while rows and not "".join(text for text, _ in rows[-1]).strip():
        rows.pop()
    return rows or None


def diagram_rows(source: str, width: int) -> list[list[tuple[str, str]]] | None:
    """The diagram's rows as (text, termaid style) spans, or None when it cannot be drawn in ``width``."""
    key = (source, width)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    rows = _draw(source)
    if rows is not None and max(visible_width("".join(text for text, _ in row)) for row in rows) > width:
        rows = None  # too wide: Pi keeps the code block rather than a broken drawing
    _cache[key] = rows
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return rows


def render_diagram(source: str, width: int, theme: Theme) -> list[str] | None:
    """Themed lines of the diagram, or None (draw the code block instead)."""
    rows = diagram_rows(source, width)
    if rows is None:
        return None
    out: list[str] = []
    for row in rows:
        line = "".join(
            theme.fg(_COLOURS[style], text) if style in _COLOURS and text.strip() else text for text, style in row
        )
        out.append(line.rstrip(" "))
    return out
