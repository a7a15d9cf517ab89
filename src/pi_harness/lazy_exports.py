"""Package attributes imported on first use (PEP 562), for packages whose ``__init__`` re-exports
names of their modules: importing the package, or one of its modules, loads none of the others.

``__getattr__, __dir__ = lazy_exports(__name__, globals(), SOURCES)`` in the ``__init__``, with
``SOURCES`` mapping each public name to the module it comes from: a module of the package by its
short name (``"types"``), any other by its full name (``"pi_harness.ai.types"``). A name is
imported once and then kept in the package's namespace, an ordinary attribute from then on. Like
``optional_deps``, this module imports nothing of ours, so every layer may use it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_exports(
    package: str, namespace: MutableMapping[str, object], sources: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__``."""

    def __getattr__(name: str) -> object:
        module = sources.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module if "." in module else f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(sources))

    return __getattr__, __dir__
