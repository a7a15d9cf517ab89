"""Reading a variable of the process environment, on every request, for less.

``os.environ.get`` goes through ``Mapping.get``, ``__getitem__`` and an encoding of the name and
the value in Python: a couple of microseconds per variable, and a request asks for a dozen
(proxies, telemetry, cache retention...). On POSIX the mapping keeps its data as bytes in
``os.environ._data``; looking a name up there, encoded once, gives the same answer (the value
is decoded as ``os.environ`` decodes it). Elsewhere it is ``os.environ.get``.
"""

from __future__ import annotations

import functools
import os

_DATA = getattr(os.environ, "_data", None) if os.name == "posix" else None


@functools.lru_cache(maxsize=128)
def _key(name: str) -> bytes:
    return os.fsencode(name)


def get_env(name: str) -> str | None:
    """``os.environ.get(name)``."""
    if type(_DATA) is not dict:
        return os.environ.get(name)
    value = _DATA.get(_key(name))
    return None if value is None else os.fsdecode(value)


def any_env(names: tuple[str, ...]) -> bool:
    """Whether any of ``names`` is set to a non-empty value."""
    if type(_DATA) is not dict:
        return any(os.environ.get(name) for name in names)
    data = _DATA
    return any(data.get(_key(name)) for name in names)


__all__ = ["any_env", "get_env"]
