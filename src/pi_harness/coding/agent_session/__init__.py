"""The live session: ``AgentSession`` and its parts.

``AgentSession`` is what hosts talk to (prompt, queues, abort, models, compaction, tree, stats);
it is a facade over the parts in this package, which share a ``SessionState`` and never import
the facade. The runtime that owns a session and replaces it (new, switch, fork, clone, import,
reload) is ``pi_harness.coding.session_runtime.AgentSessionRuntime``. Build both with
``pi_harness.coding.sdk.create_agent_session``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.agent_session.session_errors import SessionError
    from pi_harness.coding.agent_session.session_events import (
        AgentSettledEvent,
        AutoRetryEndEvent,
        AutoRetryStartEvent,
        BashExecutionUpdateEvent,
        EntryAppendedEvent,
        ModelChangedEvent,
        QueueUpdateEvent,
        SessionInfoChangedEvent,
        SessionListener,
        ThinkingLevelChangedEvent,
    )

_EXPORTS: dict[str, str] = {
    "AgentSession": "pi_harness.coding.agent_session.agent_session",
    "SessionError": "pi_harness.coding.agent_session.session_errors",
    "AgentSettledEvent": "pi_harness.coding.agent_session.session_events",
    "AutoRetryEndEvent": "pi_harness.coding.agent_session.session_events",
    "AutoRetryStartEvent": "pi_harness.coding.agent_session.session_events",
    "BashExecutionUpdateEvent": "pi_harness.coding.agent_session.session_events",
    "EntryAppendedEvent": "pi_harness.coding.agent_session.session_events",
    "ModelChangedEvent": "pi_harness.coding.agent_session.session_events",
    "QueueUpdateEvent": "pi_harness.coding.agent_session.session_events",
    "SessionInfoChangedEvent": "pi_harness.coding.agent_session.session_events",
    "SessionListener": "pi_harness.coding.agent_session.session_events",
    "ThinkingLevelChangedEvent": "pi_harness.coding.agent_session.session_events",
}

__all__ = [
    "AgentSession",
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "EntryAppendedEvent",
    "ModelChangedEvent",
    "QueueUpdateEvent",
    "SessionError",
    "SessionInfoChangedEvent",
    "SessionListener",
    "ThinkingLevelChangedEvent",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
