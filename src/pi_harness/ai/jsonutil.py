"""JSON encoding for request bodies and records: ``orjson`` with lone-surrogate repair.

``orjson`` rejects strings holding lone UTF-16 surrogates (which tool output and some providers
produce); such text is sanitised first instead of failing the request.
"""

from __future__ import annotations

import json
import re

import orjson

_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Remove lone surrogates (valid pairs never appear in a Python ``str``)."""
    return _SURROGATE.sub("", text)


def sanitize(value: object) -> object:
    """A copy of ``value`` without lone surrogates in any string (keys included); tuples become lists."""
    if isinstance(value, str):
        return sanitize_surrogates(value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {sanitize(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [sanitize(v) for v in value]
    return value


def dumps(value: object) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept), sanitising lone surrogates when needed.

    Integers beyond 64 bits (which ``orjson`` refuses, and which a model can put in tool
    arguments) are written by the standard library in the same compact format.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        clean = sanitize(value)
        try:
            return orjson.dumps(clean)
        except TypeError:
            return json.dumps(clean, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def dumps_str(value: object) -> str:
    return dumps(value).decode("utf-8")


def loads(data: bytes | str) -> object:
    return orjson.loads(data)
