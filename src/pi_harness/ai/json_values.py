"""JSON as values: the types of JSON data and the narrowing of JSON that was received.

``JsonValue`` is exactly what a JSON document can hold; ``JsonObject`` is an object of them (tool
arguments, JSON Schemas, compat objects). Parsed responses are not trusted to have the shape a
service documents, so readers look at them through ``as_object``/``as_list``/``as_count``, which
answer with an empty or ``None`` value where the data has another type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = dict[str, JsonValue]

_EMPTY: Mapping[str, object] = {}


def as_object(value: object) -> Mapping[str, object]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else _EMPTY


def as_list(value: object) -> Sequence[object]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else ()


def as_count(value: object) -> int | None:
    """A token count: a JSON number as an ``int``; ``None`` for anything else (``true`` included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def json_arguments(value: Mapping[str, object]) -> JsonObject:
    """``value`` as a JSON object, checked by a round trip through JSON: arguments that code (not a
    model) passes to a tool end up in the session file as JSON, so anything else is refused here
    (``TypeError``) rather than when the entry is written."""
    import orjson

    decoded = orjson.loads(orjson.dumps(dict(value)))
    if not isinstance(decoded, dict):  # pragma: no cover - a dict always encodes as an object
        raise TypeError("tool arguments must be a JSON object")
    return decoded
