"""permission-gate: ask before the model runs a dangerous shell command.

What it shows:

* a ``tool_call`` gate: returning ``{"block": True, "reason": ...}`` stops the call and the reason
  becomes the tool's error result, which the model reads;
* ``ctx.has_ui``: in print and JSON mode nobody can answer, so the gate fails closed and blocks;
* ``ctx.ui.select`` for the question in interactive and RPC mode (a dismissed dialog is a "no").

Pi's tools never ask for permission; this is the smallest useful way to add it. Patterns are a
tripwire, not a security boundary: ``bash -c "$(echo cm0gLXJmIC8= | base64 -d)"`` passes them.
For real isolation see ``sandbox/``.

Load it with ``pi -e examples/extensions/permission_gate.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

import re
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

DANGEROUS_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\brm\s+(-rf?|--recursive)",  # recursive delete
        r"\bsudo\b",  # anything as root
        r"\b(chmod|chown)\b.*777",  # world-writable permissions
    )
)

NO_UI_REASON = "Dangerous command blocked (no UI for confirmation)"
USER_REASON = "Blocked by user"
ALLOW = "Yes"
DENY = "No"


def is_dangerous(command: str) -> bool:
    return any(pattern.search(command) for pattern in DANGEROUS_PATTERNS)


def extension(pi: ExtensionAPI) -> None:
    async def gate(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if event.tool_name != "bash":
            return None
        command = event.input.get("command")
        if not isinstance(command, str) or not is_dangerous(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": NO_UI_REASON}
        choice = await ctx.ui.select(f"⚠️ Dangerous command:\n\n  {command}\n\nAllow?", [ALLOW, DENY])
        if choice == ALLOW:
            return None
        return {"block": True, "reason": USER_REASON}

    pi.on("tool_call", gate)
