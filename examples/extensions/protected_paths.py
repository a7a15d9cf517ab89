"""protected-paths: keep the model's ``write`` and ``edit`` away from sensitive files.

What it shows:

* a ``tool_call`` gate on the file tools that blocks by argument (``event.input["path"]``);
* ``ctx.ui.notify`` to tell the user what happened (only when there is a UI: in print and JSON
  mode the block reason in the tool result is the whole story);
* no question is asked: these paths are never written, so the gate decides on its own.

Only the ``write`` and ``edit`` tools are covered; ``bash`` can still touch the files (combine
with ``permission_gate.py`` or ``sandbox/``, whose ``denyWrite`` covers shell commands).

Load it with ``pi -e examples/extensions/protected_paths.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

# A path is protected when it contains one of these fragments (".env" also covers ".env.local").
PROTECTED_FRAGMENTS: tuple[str, ...] = (".env", ".git/", "node_modules/")
GUARDED_TOOLS = frozenset({"write", "edit"})


def is_protected(path: str) -> bool:
    return any(fragment in path for fragment in PROTECTED_FRAGMENTS)


def extension(pi: ExtensionAPI) -> None:
    async def guard(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if event.tool_name not in GUARDED_TOOLS:
            return None
        path = event.input.get("path")
        if not isinstance(path, str) or not is_protected(path):
            return None
        if ctx.has_ui:
            ctx.ui.notify(f"Blocked write to protected path: {path}", "warning")
        return {"block": True, "reason": f'Path "{path}" is protected'}

    pi.on("tool_call", guard)
