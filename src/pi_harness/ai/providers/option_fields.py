"""Options of one API read as another API's options class, field by field.

``shared_options`` keeps only the fields every API has. Providers built on another API
(Azure and Codex on the Responses API, Vertex on Gemini) also accept that API's options object,
so the fields both classes declare are copied by name.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TypeVar

from pi_harness.ai.options import StreamOptions

_Options = TypeVar("_Options", bound=StreamOptions)


def options_as(options: StreamOptions | None, cls: type[_Options]) -> _Options:
    """``options`` itself when it is a ``cls``, else a new ``cls`` with every field of the same name."""
    if isinstance(options, cls):
        return options
    converted = cls()
    if options is not None:
        for field in fields(cls):
            if hasattr(options, field.name):
                setattr(converted, field.name, getattr(options, field.name))
    return converted
