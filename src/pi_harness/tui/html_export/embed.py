"""JSON that can sit inside ``<script type="application/json">`` whatever the session holds.

An HTML parser ends a script element at the first ``</script`` and treats ``<!--`` specially, so
every ``<``, ``>`` and ``&`` of the JSON text is written as a ``\\uXXXX`` escape: the browser's
``JSON.parse`` reads the same strings back, and no entry can close the element or open a tag.
U+2028/U+2029 are escaped too, for readers that evaluate the text as JavaScript.
"""

from __future__ import annotations

import orjson

_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def script_json(value: object) -> str:
    """``value`` as JSON text with no character that HTML gives a meaning to inside a script."""
    text = orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")
    return text.translate(_ESCAPES)
