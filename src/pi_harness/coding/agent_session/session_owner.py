"""The seam to the runtime that owns a live session and can replace it.

``AgentSessionRuntime`` (``pi_harness.coding.session_runtime``) builds sessions, so a session
cannot import it; this Protocol is what a session needs of its owner: remembering how extensions
were bound (a replacement session is bound the same way) and the replacements an extension
command may ask for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.session_store.store import SessionManager

# Prepares the new session file before the new session starts (``ctx.new_session(setup=...)``);
# may be a coroutine function.
SessionSetup = Callable[[SessionManager], object]


class SessionOwner(Protocol):
    def remember_binding(self, ui: ExtensionUI | None, has_ui: bool, mode: str) -> None: ...

    async def new_session(
        self, parent_session: str | None = None, *, setup: SessionSetup | None = None
    ) -> dict[str, object]: ...

    async def fork(self, entry_id: str) -> dict[str, object]: ...

    async def switch_session(self, path: str) -> dict[str, object]: ...

    async def reload(self) -> None: ...

    def replacement_context(self) -> object:
        """A ``ReplacedSessionContext`` of the current session (after a replacement)."""
        ...


__all__ = ["SessionOwner", "SessionSetup"]
