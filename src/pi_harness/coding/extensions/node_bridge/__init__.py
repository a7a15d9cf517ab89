"""Pi's TypeScript and JavaScript extensions, run unchanged in a Node sidecar (extensions-node.md).

``node_factory(file, display)`` turns an extension file into an ``extension(pi)`` factory: the
factory loads the file in the runner's sidecar (started on first use) and registers Python
stand-ins for whatever it registers, so the runner treats it like a Python extension.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from pathlib import Path

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.node_bridge.discovery import NODE_ENV, find_node

NODE_SUFFIXES = (".ts", ".mts", ".js", ".mjs")
INDEX_FILES = ("index.ts", "index.js", "index.mjs")


_warned: set[str] = set()


def is_node_extension(path: Path) -> bool:
    return path.suffix in NODE_SUFFIXES


def node_factory(file: Path, display_path: str) -> Callable[[ExtensionAPI], Coroutine[object, object, None]]:
    """The factory of a TypeScript/JavaScript extension. Without a suitable Node it registers
    nothing and says so in one line: a missing Node must not stop a session from starting."""
    lookup = find_node()
    if lookup.path is None:
        reason = lookup.reason

        async def skipped(_pi: ExtensionAPI) -> None:
            if display_path in _warned:  # startup may load the extensions twice (flags, then session)
                return
            _warned.add(display_path)
            print(f"Warning: {display_path}: TypeScript/JavaScript extension skipped: {reason}", file=sys.stderr)

        return skipped
    node = lookup.path

    async def factory(pi: ExtensionAPI) -> None:
        from pi_harness.coding.extensions.node_bridge.bridge import bridge_for

        await bridge_for(pi, node).load(str(file.resolve()), pi)

    return factory


__all__ = ["INDEX_FILES", "NODE_ENV", "NODE_SUFFIXES", "is_node_extension", "node_factory"]
