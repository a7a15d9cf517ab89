"""Read-only views of a session for hosts (RPC ``get_state``, ``get_commands``,
``get_last_assistant_text``; modes-and-cli.md section 8.4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from pi_harness.agent.types import AgentMessage

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession


def session_state(session: AgentSession) -> dict[str, Any]:
    """``{model, thinkingLevel, isStreaming, isCompacting, steeringMode, followUpMode, sessionFile?,
    sessionId, sessionName?, autoCompactionEnabled, messageCount, pendingMessageCount}``."""
    manager = session.session_manager
    state: dict[str, Any] = {
        "model": session.model,
        "thinkingLevel": session.thinking_level,
        "isStreaming": session.is_streaming,
        "isCompacting": session.is_compacting,
        "steeringMode": session.steering_mode,
        "followUpMode": session.follow_up_mode,
    }
    session_file = manager.get_session_file()
    if session_file is not None:
        state["sessionFile"] = str(session_file)
    state["sessionId"] = manager.get_session_id()
    name = manager.get_session_name()
    if name:
        state["sessionName"] = name
    state["autoCompactionEnabled"] = session.auto_compaction_enabled
    state["messageCount"] = len(session.get_messages())
    state["pendingMessageCount"] = session.pending_message_count
    return state


def last_assistant_text(messages: Sequence[AgentMessage]) -> str | None:
    """Text of the last assistant message (aborted empty ones skipped), trimmed; ``None`` if none."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        blocks = cast(list[dict[str, Any]], message.get("content") or [])
        text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text").strip()
        if message.get("stopReason") == "aborted" and not text:
            continue
        return text
    return None


def _location(source: str) -> str:
    return source if source in ("user", "project") else "path"


def session_commands(session: AgentSession) -> list[dict[str, Any]]:
    """Extension commands, then prompt templates, then skills (``skill:<name>``)."""
    out: list[dict[str, Any]] = []
    commands, _conflicts = session.extensions.commands()
    for command, path in commands:
        item: dict[str, Any] = {"name": command.name}
        if command.description:
            item["description"] = command.description
        item["source"] = "extension"
        item["path"] = path
        out.append(item)
    loader = session.resource_loader
    for template in loader.get_prompts():
        out.append(
            {
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "location": _location(template.source),
                "path": template.file_path,
            }
        )
    if session.settings.get("enableSkillCommands") is not False:
        for skill in loader.get_skills():
            out.append(
                {
                    "name": f"skill:{skill.name}",
                    "description": skill.description,
                    "source": "skill",
                    "location": _location(skill.source),
                    "path": skill.file_path,
                }
            )
    return out


__all__ = ["last_assistant_text", "session_commands", "session_state"]
