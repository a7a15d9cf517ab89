"""Owning and building live sessions: ``AgentSessionRuntime`` and what sessions are built from.

The runtime owns the active ``AgentSession`` and replaces it (new, switch, fork, clone, import,
reload); ``building`` makes one session on the ``SessionServices`` of its working directory and
the ``SessionConfig`` of the SDK/CLI; ``project_trust`` decides project trust before the first
session starts. ``pi_harness.coding.sdk.create_agent_session`` is the usual way in.
"""

from pi_harness.coding.session_runtime.building import BuiltSession, build_session
from pi_harness.coding.session_runtime.project_trust import resolve_project_trust
from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime, SessionReplacedListener
from pi_harness.coding.session_runtime.services import ExtensionFactoryEntry, SessionConfig, SessionServices

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
