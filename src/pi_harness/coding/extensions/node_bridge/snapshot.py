"""The session snapshot sent with each request: Pi's ``ctx`` getters are synchronous in
JavaScript, so the sidecar answers them from the latest snapshot.

Entries are sent incrementally (only those the sidecar has not seen, for the same session), and
the model list once per sidecar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext

State = dict[str, object]


def _try(state: State, key: str, read: Callable[[], object]) -> None:
    # A stale context, an unbound runner or a host without the feature: leave the key out.
    try:
        state[key] = read()
    except Exception:
        pass


class SnapshotTracker:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._session: str | None = None
        self._sent = 0
        self._models_sent = False

    def build(self, ctx: ExtensionContext | None, api: ExtensionAPI, flags: Iterable[str]) -> State:
        state: State = {}
        _try(state, "activeTools", api.get_active_tools)
        _try(state, "allTools", lambda: [dict(t) for t in api.get_all_tools()])
        _try(state, "commands", lambda: [dict(c) for c in api.get_commands()])
        _try(state, "thinkingLevel", api.get_thinking_level)
        state["flags"] = {name: api.get_flag(name) for name in flags}
        if ctx is None:
            return state
        _try(state, "cwd", lambda: ctx.cwd)
        state["hasUI"] = ctx.has_ui
        # Pi names the interactive mode "tui" (its ExtensionMode); Pi's extensions test for that.
        _try(state, "mode", lambda: "tui" if ctx.mode == "interactive" else ctx.mode)
        _try(state, "model", lambda: ctx.model)
        _try(state, "isIdle", ctx.is_idle)
        _try(state, "hasPendingMessages", ctx.has_pending_messages)
        _try(state, "contextUsage", ctx.get_context_usage)
        _try(state, "systemPrompt", ctx.get_system_prompt)
        _try(state, "editorText", lambda: ctx.ui.get_editor_text())  # noqa: PLW0108  # ctx.ui may raise
        if not self._models_sent:
            _try(state, "models", lambda: list(ctx.model_runtime.get_all()))
            self._models_sent = "models" in state
        try:
            self._session_state(ctx, state)
        except Exception:
            pass
        return state

    def _session_state(self, ctx: ExtensionContext, state: State) -> None:
        manager = ctx.session_manager
        session_id = manager.get_session_id()
        entries = manager.get_entries()
        if session_id == self._session and len(entries) >= self._sent:
            state["entriesFrom"] = self._sent
            state["entries"] = entries[self._sent :]
        else:
            state["entriesFrom"] = 0
            state["entries"] = entries
        self._session, self._sent = session_id, len(entries)
        state["sessionId"] = session_id
        state["header"] = manager.get_header()
        state["leafId"] = manager.get_leaf_id()
        file = manager.get_session_file()
        state["sessionFile"] = str(file) if file is not None else None
        state["sessionDir"] = manager.get_session_dir()
        state["sessionName"] = manager.get_session_name()
