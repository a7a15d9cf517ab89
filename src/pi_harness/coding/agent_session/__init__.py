"""The coding session: ``AgentSession``, ``AgentSessionRuntime`` and their parts.

``AgentSession`` is what hosts talk to (prompt, queues, abort, models, compaction, tree, stats);
``AgentSessionRuntime`` owns the active session and replaces it (new, switch, fork, clone,
import, reload). Build both with ``pi_harness.coding.sdk.create_agent_session``.
"""

from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.agent_session.errors import SessionError
from pi_harness.coding.agent_session.events import (
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
from pi_harness.coding.agent_session.runtime import AgentSessionRuntime
from pi_harness.coding.agent_session.trust import resolve_project_trust

__all__ = [
    "AgentSession",
    "AgentSessionRuntime",
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
    "resolve_project_trust",
]
