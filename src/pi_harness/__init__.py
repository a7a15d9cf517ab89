"""pi-harness: a minimal, extensible, embeddable coding-agent harness (a Python Pi).

The package is layered (``ai`` -> ``agent`` -> ``coding`` -> ``cli``); nothing heavy is
imported here so that ``pi --version`` stays instant. The SDK entry points are resolved
lazily on first attribute access.
"""

from __future__ import annotations

from pi_harness.__about__ import __version__

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs pi --version ~10 ms

if TYPE_CHECKING:
    from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    if name in {"create_agent_session", "CreateAgentSessionOptions"}:
        import importlib

        return getattr(importlib.import_module("pi_harness.coding.sdk"), name)
    raise AttributeError(f"module 'pi_harness' has no attribute {name!r}")
