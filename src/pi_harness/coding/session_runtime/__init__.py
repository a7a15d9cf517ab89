"""Owning and building live sessions: ``AgentSessionRuntime`` and what sessions are built from.

The runtime owns the active ``AgentSession`` and replaces it (new, switch, fork, clone, import,
reload); ``building`` makes one session on the ``SessionServices`` of its working directory and
the ``SessionConfig`` of the SDK/CLI; ``project_trust`` decides project trust before the first
session starts. ``pi_harness.coding.sdk.create_agent_session`` is the usual way in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.coding.session_runtime.building import BuiltSession, build_session
    from pi_harness.coding.session_runtime.project_trust import resolve_project_trust
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime, SessionReplacedListener
    from pi_harness.coding.session_runtime.services import ExtensionFactoryEntry, SessionConfig, SessionServices

_EXPORTS: dict[str, str] = {
    "BuiltSession": "pi_harness.coding.session_runtime.building",
    "build_session": "pi_harness.coding.session_runtime.building",
    "resolve_project_trust": "pi_harness.coding.session_runtime.project_trust",
    "AgentSessionRuntime": "pi_harness.coding.session_runtime.runtime",
    "SessionReplacedListener": "pi_harness.coding.session_runtime.runtime",
    "ExtensionFactoryEntry": "pi_harness.coding.session_runtime.services",
    "SessionConfig": "pi_harness.coding.session_runtime.services",
    "SessionServices": "pi_harness.coding.session_runtime.services",
}

__all__ = [
    "AgentSessionRuntime",
    "BuiltSession",
    "ExtensionFactoryEntry",
    "SessionConfig",
    "SessionReplacedListener",
    "SessionServices",
    "build_session",
    "resolve_project_trust",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
