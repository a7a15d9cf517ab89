"""The live session: ``AgentSession`` and its parts.

``AgentSession`` is what hosts talk to (prompt, queues, abort, models, compaction, tree, stats);
it is a facade over the parts in this package, which share a ``SessionState`` and never import
the facade. The runtime that owns a session and replaces it (new, switch, fork, clone, import,
reload) is ``pi_harness.coding.session_runtime.AgentSessionRuntime``. Build both with
``pi_harness.coding.sdk.create_agent_session``.
"""

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
