"""Paragraphs of plain prose laid out without the markdown parser (the same lines, less work).

Most blocks of an answer, of the model's thinking and of the user's messages are prose with no
markdown in them. For such a block markdown-it would produce one paragraph whose inline text is
each source line, joined by soft breaks (hard breaks where line breaks are kept), and rich would
lay out one ``Text`` built piece by piece from them. ``plain_paragraph`` builds that ``Text``
directly when the block cannot be anything else: every line starts with a letter, holds only
letters, digits, single spaces and punctuation that no markdown rule reacts to here
(``, . ; : ? ! ' " / ( ) -``), and does not end in a space. Anything else returns None and
goes through the parser.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

# A letter first (a digit could start an ordered list), then words separated by single spaces.
_LINE = r"[^\W\d_](?:[^\W_]|[,.;:?!'\"/()\-])*(?: (?:[^\W_]|[,.;:?!'\"/()\-])+)*"
_PLAIN_RE = re.compile(rf"{_LINE}(?:\n{_LINE})*")


def plain_paragraph(block: str, style: Style, *, hard_breaks: bool) -> Text | None:
    """The paragraph rich's markdown would lay out for ``block``, or None unless it is plain prose.

    ``style`` is the paragraph's (the document's base style with ``markdown.paragraph``);
    ``hard_breaks``: the block's line breaks are kept (markdown hard breaks), else they are spaces.
    """
    if _PLAIN_RE.fullmatch(block) is None:
        return None
    text = Text(justify="left")
    for index, line in enumerate(block.split("\n")):
        if index:
            text.append("\n" if hard_breaks else " ", style)  # one piece each, as markdown's breaks
        text.append(line, style)
    return text
