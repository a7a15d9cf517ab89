"""The ``append_*`` methods of ``SessionManager``: one entry type each, written at the leaf.

They only shape an entry's fields and check its target; the manager's ``_append`` makes the
entry (id, parent, timestamp), writes it and moves the leaf. Kept apart from ``store.py`` so
that the entry types' rules read on their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.types import ImageContent, TextContent, Usage
from pi_harness.coding.session_store.branching import failed_attempt_targets
from pi_harness.coding.session_store.context import stored_message
from pi_harness.coding.session_store.entries import ContextEditReplacement, SessionEntry
from pi_harness.coding.session_store.errors import EntryNotFoundError
from pi_harness.coding.session_store.ids import iso_now, iso_to_ms
from pi_harness.coding.session_store.listing import normalize_session_name
from pi_harness.coding.session_store.system_messages import SystemState

_SUMMARY_ROLES = frozenset({"branchSummary", "compactionSummary"})
_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult"})


class _Manager(Protocol):
    """What the append methods use of ``store.SessionManager``."""

    def _append(
        self, kind: str, fields: Mapping[str, object], timestamp: str | None = None, *, fields_first: bool = False
    ) -> str: ...

    def _has(self, entry_id: str) -> bool: ...

    def get_entry(self, entry_id: str) -> SessionEntry | None: ...

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]: ...

    def get_system_state(self) -> SystemState: ...

    def append_context_edit(self, target_id: str, replacement: ContextEditReplacement | None) -> str: ...


class EntryAppends:
    """The entry types, as methods of the manager (each takes it as ``self``: ``_Manager``)."""

    def append_message(self: _Manager, message: AgentMessage) -> str:
        """Store a user/assistant/toolResult/bashExecution/custom/system message."""
        role = message.get("role")
        if role in _SUMMARY_ROLES:
            raise ValueError(f"{role} messages are not stored as message entries; use their own entry types")
        return self._append("message", {"message": message})

    def append_thinking_level_change(self: _Manager, thinking_level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_model_change(self: _Manager, provider: str, model_id: str) -> str:
        return self._append("model_change", {"provider": provider, "modelId": model_id})

    def append_usage(
        self: _Manager, kind: str, provider: str, model: str, usage: Usage, note: str | None = None
    ) -> str:
        """(1.4.0) Billing that is not a message, e.g. ``kind="cache_warm"``; never in the context."""
        fields: dict[str, object] = {"kind": kind, "provider": provider, "model": model, "usage": usage}
        if note is not None:
            fields["note"] = note
        return self._append("usage", fields)

    def append_compaction(
        self: _Manager,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: object = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> str:
        """A ``compaction`` at the current leaf, with the system checkpoint of the active branch.

        The checkpoint (``systemMessage``: the replayed prompt and tools, stamped with the entry's
        time) becomes the first message of the compacted context.
        """
        timestamp = iso_now()
        fields: dict[str, object] = {
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
        }
        checkpoint = self.get_system_state().current_message(iso_to_ms(timestamp))
        _add_optional(fields, details=details, usage=usage, fromHook=from_hook, systemMessage=checkpoint)
        return self._append("compaction", fields, timestamp)

    def append_branch_summary(
        self: _Manager,
        from_id: str,
        summary: str,
        details: object = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> str:
        """A ``branch_summary`` at the current leaf (see ``branch_with_summary`` for navigation)."""
        fields: dict[str, object] = {"fromId": from_id, "summary": summary}
        _add_optional(fields, details=details, usage=usage, fromHook=from_hook)
        return self._append("branch_summary", fields)

    def append_custom(self: _Manager, custom_type: str, data: object = None) -> str:
        """Extension state (``appendCustomEntry``); never part of the model context."""
        fields: dict[str, object] = {"customType": custom_type}
        _add_optional(fields, data=data)
        return self._append("custom", fields, fields_first=True)

    def append_custom_message(
        self: _Manager,
        custom_type: str,
        content: str | list[TextContent | ImageContent],
        display: bool,
        details: object = None,
    ) -> str:
        """An extension message that enters the context as a user message."""
        fields: dict[str, object] = {"customType": custom_type, "content": content, "display": display}
        _add_optional(fields, details=details)
        return self._append("custom_message", fields)

    def append_context_edit(self: _Manager, target_id: str, replacement: ContextEditReplacement | None) -> str:
        """(1.4.0) Omit (``None``) or replace the content of a message on the active branch."""
        target = self.get_entry(target_id)
        if target is None:
            raise EntryNotFoundError(target_id)
        if target_id not in {e["id"] for e in self.get_branch()}:
            raise ValueError(f"Entry {target_id} is not on the active branch")
        role: object = None
        if target["type"] == "message":
            role = (stored_message(target) or {}).get("role")
            if role not in _EDITABLE_ROLES:
                raise ValueError(f"Entry {target_id} cannot be edited: its message role is {role}")
        elif target["type"] != "custom_message":
            raise ValueError(f"Entry {target_id} cannot be edited: it is a {target['type']} entry")
        stored: ContextEditReplacement | None = None
        if replacement is not None:
            content = replacement.get("content")
            if isinstance(content, str) and role in ("assistant", "toolResult"):
                content = [{"type": "text", "text": content}]
            stored = {"content": content}
        return self._append("context_edit", {"targetId": target_id, "replacement": stored})

    def append_label(self: _Manager, target_id: str, label: str | None = None) -> str:
        """Set (or with an empty label, clear) the bookmark of an entry."""
        if not self._has(target_id):
            raise EntryNotFoundError(target_id)
        fields: dict[str, object] = {"targetId": target_id}
        if label:
            fields["label"] = label
        return self._append("label", fields)

    def append_session_info(self: _Manager, name: str) -> str:
        """Set the display name (trimmed, one line); a blank name clears it."""
        return self._append("session_info", {"name": normalize_session_name(name)})

    def omit_failed_attempt(self: _Manager, assistant_entry_id: str | None = None) -> list[str]:
        """Hide a failed assistant response and its tool results from all future contexts.

        Used by auto-retry and overflow recovery (1.4.0): writes ``context_edit`` entries with
        ``replacement: null`` for the assistant message (default: the latest on the active
        branch) and every tool result answering its calls; the originals stay in the file.
        Returns the ids of the new edit entries.
        """
        targets = failed_attempt_targets(self.get_branch(), assistant_entry_id)
        return [self.append_context_edit(target, None) for target in targets]


def _add_optional(fields: dict[str, object], **values: object) -> None:
    """Optional fields are omitted when unset (TypeScript ``undefined``), never written as null."""
    for key, value in values.items():
        if value is not None:
            fields[key] = value
