"""The agent hooks at the start of a run and between its turns.

At run start (``declare_tool_changes``) and before every later turn (``prepare_next_turn``) the
transcript's record of the system prompt and tool set is brought up to date with a ``system``
message patch, so a change made meanwhile (``set_active_tools``, an extension section) is in the
transcript before the next request. Before a later turn the compaction threshold is checked too
(check point 2 of ``compaction_control``).
"""

from __future__ import annotations

from pi_harness.agent.hooks import PrepareNextTurnContext
from pi_harness.agent.types import AgentContext, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.session_store.store import SessionManager


class TurnHooks:
    def __init__(self, manager: SessionManager, prompt: SystemPromptState, compaction: CompactionControl) -> None:
        self._manager = manager
        self._prompt = prompt
        self._compaction = compaction

    def _patch(self) -> list[AgentMessage]:
        patch = self._prompt.patch(self._manager.get_system_state())
        return [patch] if patch is not None else []

    async def declare_tool_changes(self, context: AgentContext, signal: AbortSignal) -> list[AgentMessage] | None:
        """At run start: the system message bringing the transcript's prompt and tools up to date."""
        return self._patch() or None

    async def prepare_next_turn(self, context: PrepareNextTurnContext, signal: AbortSignal) -> list[AgentMessage]:
        """Before each later turn: compaction check point 2, then a patch for mid-run changes."""
        await self._compaction.mid_run(context.context.messages)
        return self._patch()


__all__ = ["TurnHooks"]
