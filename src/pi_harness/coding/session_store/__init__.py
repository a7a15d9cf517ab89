"""The session store: JSONL session files, the entry tree and context rebuilding (docs/sessions.md)."""

from pi_harness.coding.session_store.context import (
    ModelRef,
    SessionContext,
    SessionProjection,
    build_session_context,
    build_session_projection,
    entry_to_message,
)
from pi_harness.coding.session_store.entries import (
    CURRENT_SESSION_VERSION,
    ENTRY_TYPES,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    ContextEditReplacement,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    SessionMessageEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
)
from pi_harness.coding.session_store.errors import (
    EntryNotFoundError,
    InvalidSessionFileError,
    SessionLockedError,
    SessionReadOnlyError,
)
from pi_harness.coding.session_store.jsonl import SessionFileContents, encode_record, read_header, read_session_file
from pi_harness.coding.session_store.listing import SessionInfo, SessionMatch
from pi_harness.coding.session_store.migrate import migrate
from pi_harness.coding.session_store.paths import (
    SESSION_DIR_ENV,
    agent_dir,
    default_session_dir,
    encode_cwd,
    resolve_session_dir,
    session_file_name,
    sessions_root,
)
from pi_harness.coding.session_store.readonly import ReadonlySessionManager
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.system_messages import (
    SystemState,
    ToolDeclaration,
    replay_system_messages,
    system_message_patch,
)
from pi_harness.coding.session_store.tree import LabelInfo, SessionTreeNode, branch_path, common_ancestor

__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_TYPES",
    "SESSION_DIR_ENV",
    "BranchSummaryEntry",
    "CompactionEntry",
    "ContextEditEntry",
    "ContextEditReplacement",
    "CustomEntry",
    "CustomMessageEntry",
    "EntryNotFoundError",
    "InvalidSessionFileError",
    "LabelEntry",
    "LabelInfo",
    "ModelChangeEntry",
    "ModelRef",
    "ReadonlySessionManager",
    "SessionContext",
    "SessionEntry",
    "SessionFileContents",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionLockedError",
    "SessionManager",
    "SessionMatch",
    "SessionMessageEntry",
    "SessionProjection",
    "SessionReadOnlyError",
    "SessionTreeNode",
    "SystemState",
    "ThinkingLevelChangeEntry",
    "ToolDeclaration",
    "UsageEntry",
    "agent_dir",
    "branch_path",
    "build_session_context",
    "build_session_projection",
    "common_ancestor",
    "default_session_dir",
    "encode_cwd",
    "encode_record",
    "entry_to_message",
    "migrate",
    "read_header",
    "read_session_file",
    "replay_system_messages",
    "resolve_session_dir",
    "session_file_name",
    "sessions_root",
    "system_message_patch",
]
