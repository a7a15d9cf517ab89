"""``AgentSessionRuntime``: owns the active ``AgentSession`` and replaces it.

Every replacement - new session, switch, fork, clone, import, reload - runs the same way:

1. the cancellable extension event (``session_before_switch`` / ``session_before_fork``);
2. the old session is disposed: its run is aborted, extensions get ``session_shutdown`` and every
   old ``ctx`` becomes stale;
3. the services are rebuilt for the new session's working directory;
4. a new ``AgentSession`` with a new extension runner is created - with the model and thinking
   level given to ``create`` (command-line options) when there were any, else with what the
   session file records (reload keeps the current ones) - and bound with the previous binding
   (UI, mode); extensions get ``session_start {reason, previousSessionFile}`` and, for
   compatibility with 0.58.3 extensions, ``session_switch``/``session_fork`` after it;
5. ``on_session_replaced`` listeners get the new session (modes subscribe to it again).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_harness.agent.listeners import ListenerRegistry
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.agent_session.session_errors import CLONE_WITHOUT_LEAF, NOT_SAVED_YET
from pi_harness.coding.agent_session.session_owner import SessionSetup
from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.session_runtime.building import build_session, call_setup
from pi_harness.coding.session_runtime.services import SessionConfig, SessionServices, durability, session_dir_for
from pi_harness.coding.session_store.branching import fork_text
from pi_harness.coding.session_store.store import SessionManager

# Called with the new session after every replacement; may be a coroutine function.
SessionReplacedListener = Callable[[AgentSession], object]


class AgentSessionRuntime:
    def __init__(self, services: SessionServices, config: SessionConfig) -> None:
        self.services = services
        self.config = config
        # Sessions are built with their runtime as owner, so the first one exists only once
        # ``create`` has made the runtime; nothing reads it before.
        self._session: AgentSession | None = None
        self.model_fallback_message: str | None = None
        self.diagnostics: list[str] = []
        self._binding: tuple[ExtensionUI | None, bool, str] | None = None
        # No error report: a failing listener raises into the replacement that called it.
        self._replaced: ListenerRegistry[AgentSession] = ListenerRegistry()
        self._closed = False
        self._shutdown_requested = False
        # ``--model``/``--thinking`` (or the SDK's ``model``/``thinking_level``): every session this
        # runtime makes starts with them, as in Pi; without them a session restores its own.
        self._model: Model | None = None
        self._thinking_level: str | None = None

    @classmethod
    async def create(
        cls,
        manager: SessionManager,
        services: SessionServices,
        config: SessionConfig,
        *,
        model: Model | None = None,
        thinking_level: str | None = None,
    ) -> AgentSessionRuntime:
        runtime = cls(services, config)
        runtime._model, runtime._thinking_level = model, thinking_level
        built = await build_session(
            manager, services, config, model=model, thinking_level=thinking_level, runtime=runtime
        )
        runtime._session = built.session
        runtime.model_fallback_message = built.model_fallback_message
        runtime.diagnostics = built.diagnostics
        return runtime

    # -- bookkeeping -----------------------------------------------------------------------------

    @property
    def session(self) -> AgentSession:
        """The active session (replaced by every replacement operation)."""
        if self._session is None:
            raise RuntimeError("AgentSessionRuntime.create() makes the first session")
        return self._session

    def replacement_context(self) -> object:
        """``with_session``'s context: bound to the session that is active now."""
        return self.session.extensions.create_replaced_context()

    def remember_binding(self, ui: ExtensionUI | None, has_ui: bool, mode: str) -> None:
        """Called by ``AgentSession.bind_extensions``: later sessions are bound the same way."""
        self._binding = (ui, has_ui, mode)

    @property
    def shutdown_requested(self) -> bool:
        """An extension called ``ctx.shutdown()`` (in this or a replaced session)."""
        return self._shutdown_requested or self.session.shutdown_requested

    def on_session_replaced(self, listener: SessionReplacedListener) -> Callable[[], None]:
        """``listener(new_session)`` after every replacement (modes subscribe to it again)."""
        return self._replaced.subscribe(listener)

    def _persistent_dir(self) -> str | None:
        directory = self.session.session_manager.get_session_dir()
        return directory or None

    # -- the replacement procedure ---------------------------------------------------------------

    async def _before(self, event: str, payload: dict[str, object]) -> bool:
        """The cancellable ``session_before_*`` event; True when an extension cancelled."""
        session = self.session
        await session.ensure_bound()
        result = await session.extensions.emit_session_before(event, payload)
        return bool(result and result.get("cancel"))

    async def _install(
        self,
        manager: SessionManager,
        *,
        reason: str,
        previous_file: str | None,
        compat: tuple[str, dict[str, object]] | None = None,
        keep: tuple[Model | None, str] | None = None,
        active_tools: list[str] | None = None,
    ) -> None:
        """Build and bind the new session; ``keep``: the model and level to stay with (reload)."""
        self._shutdown_requested = self.shutdown_requested
        services = self.services.for_cwd(manager.get_cwd())
        self.services = services
        model, thinking_level = keep if keep is not None else (self._model, self._thinking_level)
        # ``--tools``/``--exclude-tools`` hold for the whole run, not just its first session.
        tool_filter = self._session.tool_registry.tool_filter if self._session is not None else None
        built = await build_session(
            manager,
            services,
            self.config,
            model=model,
            thinking_level=thinking_level,
            active_tools=active_tools,
            runtime=self,
        )
        session = built.session
        if tool_filter is not None:
            session.tool_registry.set_filter(tool_filter)
        self._session = session
        self.model_fallback_message = built.model_fallback_message
        self.diagnostics = built.diagnostics
        if self._binding is not None:
            ui, has_ui, mode = self._binding
            await session.bind_extensions(
                ui=ui, has_ui=has_ui, mode=mode, reason=reason, previous_session_file=previous_file
            )
            if compat is not None:
                await session.extensions.emit(compat[0], compat[1])
        await self._replaced.deliver(session)

    def _previous_file(self) -> str | None:
        session_file = self.session.session_manager.get_session_file()
        return str(session_file) if session_file is not None else None

    # -- operations ------------------------------------------------------------------------------

    async def new_session(
        self, parent_session: str | None = None, *, setup: SessionSetup | None = None
    ) -> dict[str, object]:
        """``/new``: a fresh session in the same directory (``{cancelled}``)."""
        if await self._before("session_before_switch", {"reason": "new"}):
            return {"cancelled": True}
        old = self.session
        previous = self._previous_file()
        cwd = old.session_manager.get_cwd()
        if old.session_manager.is_persisted():
            directory = self._persistent_dir()
            manager = SessionManager.create(cwd, directory, **durability(old.settings))
        else:
            manager = SessionManager.in_memory(cwd)
        if parent_session is not None:
            manager.new_session(parent_session=parent_session)
        await call_setup(setup, manager)
        await old.dispose()
        await self._install(
            manager,
            reason="new",
            previous_file=previous,
            compat=("session_switch", {"reason": "new", "previousSessionFile": previous}),
        )
        return {"cancelled": False}

    async def switch_session(self, path: str) -> dict[str, object]:
        """``/resume``: open another session file (``{cancelled}``)."""
        if await self._before("session_before_switch", {"reason": "resume", "targetSessionFile": path}):
            return {"cancelled": True}
        old = self.session
        previous = self._previous_file()
        manager = SessionManager.open(path, **durability(old.settings))
        await old.dispose()
        await self._install(
            manager,
            reason="resume",
            previous_file=previous,
            compat=("session_switch", {"reason": "resume", "previousSessionFile": previous}),
        )
        return {"cancelled": False}

    async def fork(self, entry_id: str) -> dict[str, object]:
        """``/fork``: a new session up to (excluding) a user message; ``{text, cancelled}``."""
        old = self.session
        manager = old.session_manager
        entry = manager.get_entry(entry_id)
        text = fork_text(entry)
        if await self._before("session_before_fork", {"entryId": entry_id, "position": "before"}):
            return {"text": text, "cancelled": True}
        previous = self._previous_file()
        active = old.get_active_tool_names()
        await old.dispose()
        manager.fork(entry_id)
        await self._install(
            manager,
            reason="fork",
            previous_file=previous,
            compat=("session_fork", {"previousSessionFile": previous}),
            active_tools=active,
        )
        return {"text": text, "cancelled": False}

    async def clone(self) -> dict[str, object]:
        """``/clone``: a new session duplicating the whole active branch (``{cancelled}``).

        Like a fork at the leaf: the copy restores the model and thinking level its entries record
        (unless command-line options say otherwise), not whatever the old session had set last.
        """
        old = self.session
        manager = old.session_manager
        leaf = manager.get_leaf_id()
        if leaf is None:
            raise ValueError(CLONE_WITHOUT_LEAF)
        if await self._before("session_before_fork", {"entryId": leaf, "position": "at"}):
            return {"cancelled": True}
        previous = self._previous_file()
        if manager.is_persisted() and (previous is None or not Path(previous).exists()):
            # Nothing was written yet (a session file appears with the first answer).
            raise ValueError(NOT_SAVED_YET)
        active = old.get_active_tool_names()
        await old.dispose()
        manager.clone()
        await self._install(
            manager,
            reason="fork",
            previous_file=previous,
            compat=("session_fork", {"previousSessionFile": previous}),
            active_tools=active,
        )
        return {"cancelled": False}

    async def import_from_jsonl(self, path: str) -> dict[str, object]:
        """Copy a session file into this project as a new session and switch to it."""
        if await self._before("session_before_switch", {"reason": "import", "targetSessionFile": path}):
            return {"cancelled": True}
        old = self.session
        previous = self._previous_file()
        cwd = old.session_manager.get_cwd()
        directory = self._persistent_dir() or str(session_dir_for(old.settings, self.config.session_dir) or "") or None
        manager = SessionManager.fork_from(
            path, cwd, directory, agent_dir=self.services.agent_dir, **durability(old.settings)
        )
        await old.dispose()
        await self._install(
            manager,
            reason="import",
            previous_file=previous,
            compat=("session_switch", {"reason": "import", "previousSessionFile": previous}),
        )
        return {"cancelled": False}

    async def reload(self) -> None:
        """``/reload``: shutdown, settings/models/resources read again, extensions re-imported."""
        old = self.session
        keep = (old.model, old.thinking_level)
        active = old.get_active_tool_names()
        await old.dispose(close_session_manager=False)
        self.services.reload()
        await self._install(old.session_manager, reason="reload", previous_file=None, keep=keep, active_tools=active)

    async def shutdown(self) -> None:
        """Dispose the current session (``session_shutdown``); safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        await self.session.dispose()


__all__ = ["AgentSessionRuntime", "SessionReplacedListener"]
