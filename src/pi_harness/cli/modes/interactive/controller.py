"""Session events → the screen: transcript, queue, working indicator and footer.

``attach(session)`` subscribes to a session (again after every replacement), routes extension
errors and ``ctx.shutdown()`` to the UI, installs the extensions' message and tool renderers and
keyboard shortcuts, and fills the footer. ``session_replaced`` follows ``/new``, ``/resume``,
``/fork`` … (also when an extension command replaced the session): the conversation on screen is
replaced by the new session's, except after ``/reload`` (same session).
"""

from __future__ import annotations

import asyncio
import gc
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from pi_harness.ai.types import Usage
from pi_harness.cli.modes.interactive.extra_usage import ExtraUsageWarning
from pi_harness.cli.modes.interactive.footer_state import fill_footer_extras
from pi_harness.cli.modes.interactive.terminal_progress import TerminalProgress
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.cache_misses import describe_cache_miss, detect_cache_miss
from pi_harness.coding.cache_warming import format_warming_usage
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.coding.virtual_models import find_latest_response, is_virtual_model
from pi_harness.tui.components.base import ToolRenderer
from pi_harness.tui.components.content import content_text
from pi_harness.tui.components.footer import UsageTotals, format_tokens, git_branch
from pi_harness.tui.components.session_messages import CustomEntryView
from pi_harness.tui.keybindings import normalize_key
from pi_harness.tui.pt_keys import to_pt_keys
from pi_harness.tui.transcript import Transcript

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

# Built-in actions an extension shortcut may not take over (``docs/extensions.md``, shortcuts).
RESERVED_ACTIONS = frozenset({
    "app.interrupt", "app.clear", "app.exit", "app.suspend", "app.thinking.cycle", "app.model.cycleForward",
    "app.model.cycleBackward", "app.model.select", "app.tools.expand", "app.thinking.toggle", "app.editor.external",
    "app.message.followUp", "tui.input.submit", "tui.select.confirm", "tui.select.cancel", "tui.input.copy",
    "tui.editor.deleteToLineEnd",
})  # fmt: skip
# How long the screen must have been idle before the collector's view of the heap is frozen.
FREEZE_DELAY = 0.5
# The oldest generation's threshold while the agent runs: in effect no such collection until it settles.
HELD_OLDEST_THRESHOLD = 1_000_000
_FOOTER_EVENTS = frozenset({"agent_settled", "compaction_end", "auto_compaction_end", "model_changed",
                            "thinking_level_changed", "session_info_changed"})  # fmt: skip


class SessionController:
    def __init__(self, mode: ModeContext) -> None:
        self.mode = mode
        self._detach: list[Callable[[], None]] = []
        self._session_id: str | None = None
        self.last_compaction_error: str | None = None  # so /compact does not repeat it
        self._entries_seen = 0  # entries of the session file already looked at for custom entries
        self.progress = TerminalProgress(
            mode.shell.write_raw, lambda: mode.session.settings.values.terminal.show_terminal_progress
        )
        self._freeze: asyncio.TimerHandle | None = None
        self._thresholds: tuple[int, int, int] | None = None  # the collector's, while held
        self.extra_usage = ExtraUsageWarning(mode)  # warnings.anthropicExtraUsage

    # --- attaching -------------------------------------------------------------------------------

    def attach(self, session: AgentSession) -> None:
        for undo in self._detach:
            undo()
        self._detach = [
            session.subscribe(self.handle),
            session.subscribe(self.progress.handle),
            session.extensions.on_error(self._extension_error),
            session.on_shutdown_request(self._shutdown_requested),
        ]
        self._session_id = session.session_manager.get_session_id()
        self._install_renderers(session)
        self._install_shortcuts(session)
        shell = self.mode.shell
        shell.queue.set(session.get_steering_messages(), session.get_follow_up_messages())
        shell.files.refresh()
        self.update_footer()
        self.check_extra_usage()

    async def session_replaced(self, session: AgentSession) -> None:
        reloaded = session.session_manager.get_session_id() == self._session_id  # /reload keeps the session
        self.attach(session)
        shell = self.mode.shell
        if reloaded:
            shell.notice("success", "Reloaded settings, resources and extensions")
        else:
            self.show_conversation(session)
        runtime = self.mode.runtime
        for problem in runtime.diagnostics:
            shell.notice("warning", problem)
        if runtime.model_fallback_message:
            shell.notice("warning", runtime.model_fallback_message)

    def show_conversation(self, session: AgentSession) -> None:
        """Replace what is on screen by ``session``'s conversation (header first)."""
        shell = self.mode.shell
        transcript = Transcript(shell.context)
        if self.mode.header is not None:
            transcript.add_component(self.mode.header)
        self.load_conversation(transcript, session)
        shell.pane.transcript = transcript
        shell.pane.show_working = False
        self.seed_history(session)
        self.update_footer()  # the context figure belongs to the new position in the tree
        shell.redraw_all()

    def seed_history(self, session: AgentSession) -> None:
        """The editor's history starts with the user messages of the conversation."""
        editor = self.mode.shell.editor
        editor.history.clear()
        for message in session.get_messages():
            if message.get("role") == "user":
                editor.add_to_history(content_text(message.get("content"), images=False))

    def _install_renderers(self, session: AgentSession) -> None:
        context = self.mode.shell.context
        context.custom_renderers.clear()
        context.tool_renderers.clear()
        context.entry_renderers.clear()
        for extension in session.extensions.extensions:
            for custom_type, renderer in extension.message_renderers.items():
                context.custom_renderers.setdefault(custom_type, renderer)
            for custom_type, renderer in extension.entry_renderers.items():
                context.entry_renderers.setdefault(custom_type, renderer)
        self._entries_seen = session.session_manager.entry_count()
        for definition, _path in session.extensions.tool_definitions():
            if definition.render_call is not None or definition.render_result is not None:
                context.tool_renderers[definition.name] = ToolRenderer(definition.render_call, definition.render_result)
        resolvers = [r for extension in session.extensions.extensions for r in extension.tool_renderer_resolvers]
        if resolvers:
            for name in [str(tool["name"]) for tool in session.get_all_tools()]:
                chosen = resolve_tool_renderer(resolvers, name, context.tool_renderers.get(name))
                if chosen is None:
                    context.tool_renderers.pop(name, None)
                else:
                    context.tool_renderers[name] = chosen
        context.changed()

    def freeze_when_idle(self, *, collect: bool, tries: int = 20) -> None:
        """Soon, while no answer streams, move every object alive out of the garbage collector's sight.

        A long conversation on screen is millions of objects (the session's entries, the rendered
        lines and their caches); an oldest-generation collection traversed all of them and stopped
        the screen for 150-400 ms in the middle of a stream, keys included. Frozen objects are still
        freed by reference counting; ``collect`` first clears the cycles left since the last freeze
        (after a turn: only the objects of that turn are looked at). While the agent runs, the
        oldest generation is not collected at all (``hold_oldest_collections``): what a stream keeps
        alive (the answer's lines and caches) would otherwise be traversed again every half second.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._freeze is not None:
            self._freeze.cancel()
        self._freeze = loop.call_later(FREEZE_DELAY, self._freeze_now, collect, tries)

    def _freeze_now(self, collect: bool, tries: int) -> None:
        self._freeze = None
        session = self.mode.session
        if session.is_streaming or session.is_compacting:
            return  # the end of that run schedules it again
        view = self.mode.shell.view
        if not view.app.is_running or not view.app.render_counter or getattr(view, "printing", False):
            if tries > 1:  # the conversation is not drawn yet: its lines are to be frozen too
                self.freeze_when_idle(collect=collect, tries=tries - 1)
            else:
                self.hold_oldest_collections(False)
            return
        if collect:
            gc.collect()
        gc.freeze()
        self.hold_oldest_collections(False)  # after the collection: its counters start again from zero

    def hold_oldest_collections(self, held: bool) -> None:
        """No oldest-generation collection from the agent's start until it settled (then one runs)."""
        if held and self._thresholds is None:
            self._thresholds = youngest, middle, _oldest = gc.get_threshold()
            gc.set_threshold(youngest, middle, HELD_OLDEST_THRESHOLD)
        elif not held and self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def load_conversation(self, transcript: Transcript, session: AgentSession) -> None:
        """The conversation's messages, with the custom entries that have an entry renderer drawn
        where they were added (each before the first message that came after it)."""
        self.freeze_when_idle(collect=False)  # after the first frame drew them
        context = self.mode.shell.context
        for extension in session.extensions.extensions:
            for custom_type, renderer in extension.entry_renderers.items():
                context.entry_renderers.setdefault(custom_type, renderer)
        if not context.entry_renderers:
            transcript.load_messages(session.get_messages())
            return
        projection = session.session_manager.build_session_projection()
        path = projection.path
        position = {entry["id"]: index for index, entry in enumerate(path)}
        customs = [(index, entry) for index, entry in enumerate(path)
                   if entry.get("type") == "custom" and entry.get("customType") in context.entry_renderers]  # fmt: skip
        pending = 0
        for message, source in zip(projection.messages, projection.entries, strict=True):
            where = position.get(source["id"], len(path))
            while pending < len(customs) and customs[pending][0] < where:
                transcript.add_component(CustomEntryView(cast(Mapping[str, object], customs[pending][1]), context))
                pending += 1
            transcript.add_message(message)
        for _index, entry in customs[pending:]:
            transcript.add_component(CustomEntryView(cast(Mapping[str, object], entry), context))
        transcript.settle()

    def show_new_entries(self) -> bool:
        """Custom entries appended since the last look, drawn by their entry renderers (on every tick;
        only when some extension registered one)."""
        shell = self.mode.shell
        if not shell.context.entry_renderers:
            return False
        entries = self.mode.session.session_manager.get_entries()
        new, self._entries_seen = entries[self._entries_seen :], len(entries)
        shown = False
        for entry in new:
            if entry.get("type") == "custom" and entry.get("customType") in shell.context.entry_renderers:
                shell.transcript.add_component(CustomEntryView(cast(Mapping[str, object], entry), shell.context))
                shown = True
        return shown

    def _install_shortcuts(self, session: AgentSession) -> None:
        """Extension shortcuts (``pi.shortcut``), active while no overlay is open."""
        shell = self.mode.shell
        bindings = KeyBindings()
        owners: dict[str, str] = {}
        idle_screen = Condition(lambda: not shell.overlays)
        for shortcut, path in session.extensions.shortcuts():
            spec = normalize_key(shortcut.key)
            keys = to_pt_keys(spec) if spec is not None else None
            if spec is None or keys is None:
                shell.notice("warning", f"Extension shortcut '{shortcut.key}' from {path} cannot be used. Skipping.")
                continue
            actions = shell.keymap.actions_for(spec)
            if any(action in RESERVED_ACTIONS for action in actions):
                shell.notice(
                    "warning",
                    f"Extension shortcut '{shortcut.key}' from {path} conflicts with built-in shortcut. Skipping.",
                )
                continue
            if spec in owners:
                shell.notice("warning", f"Extension shortcut conflict: '{shortcut.key}' registered by both "
                                        f"{owners[spec]} and {path}. Using {path}.")  # fmt: skip
            elif actions:
                shell.notice("warning", f"Extension shortcut conflict: '{shortcut.key}' is built-in shortcut for "
                                        f"{actions[0]} and {path}. Using {path}.")  # fmt: skip
            owners[spec] = path
            bindings.add(*keys, filter=idle_screen)(self._shortcut_handler(session, shortcut.handler))
        shell.extra_bindings = bindings

    def _shortcut_handler(self, session: AgentSession, handler: Callable[..., Any]) -> Callable[[KeyPressEvent], None]:
        def run(_event: KeyPressEvent) -> None:
            try:
                result = handler(session.extensions.create_context())
            except Exception as error:
                session.extensions.report("shortcut", "shortcut", error)
                return
            if inspect.isawaitable(result):

                async def wait() -> None:
                    try:
                        await result
                    except Exception as error:
                        session.extensions.report("shortcut", "shortcut", error)

                self.mode.spawn(wait())

        return run

    def _shutdown_requested(self) -> None:
        self.mode.spawn(self.mode.quit_when_idle())

    def _extension_error(self, record: ExtensionErrorRecord) -> None:
        self.mode.shell.notice("error", f"Extension error in {record.event} ({record.extension_path}): {record.error}")

    # --- events ----------------------------------------------------------------------------------

    def handle(self, event: Mapping[str, object]) -> None:
        """One session event; a failure becomes a notice (the session would print it over the screen)."""
        try:
            self._handle(event)
        except Exception as error:
            self.mode.shell.notice("error", f"Could not show {event.get('type')}: {error}")

    def _handle(self, event: Mapping[str, object]) -> None:
        shell = self.mode.shell
        kind = event.get("type")
        shell.transcript.handle(event)
        if kind == "queue_update":
            shell.queue.update_from_event(event)
        elif kind in ("agent_start", "compaction_start", "auto_compaction_start"):
            shell.pane.show_working = True
            self.hold_oldest_collections(True)
        elif kind == "message_end":
            message = event.get("message")
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                self.update_footer()
                self._cache_miss_notice(message)
        elif kind == "entry_appended":
            self._cache_warm_notice(event.get("entry"))
        elif kind == "auto_retry_start":
            self._start_retry(event)
        elif kind == "model_changed" and isinstance(event.get("model"), Mapping):
            self.check_extra_usage(cast(Mapping[str, object], event["model"]))
        elif kind in ("auto_retry_end", "agent_settled") or (kind == "message_start" and shell.working.retry):
            shell.working.clear_retry()
        if kind in ("compaction_end", "auto_compaction_end") and event.get("errorMessage"):
            self.last_compaction_error = str(event["errorMessage"])
        if kind in ("agent_settled", "compaction_end", "auto_compaction_end"):
            session = self.mode.session
            shell.pane.show_working = session.is_streaming or session.is_compacting
            if not shell.pane.show_working:
                self.freeze_when_idle(collect=True)  # and the oldest generation is collected normally again
            if kind == "agent_settled":
                shell.files.refresh()  # the agent may have created or removed files
                shell.footer.data.git_branch = git_branch(shell.cwd)
        if kind in _FOOTER_EVENTS:
            self.update_footer()
        shell.refresh()

    def check_extra_usage(self, model: Mapping[str, object] | None = None) -> None:
        """Warn (once) about paid extra usage when ``model`` (default: the session's) is an
        Anthropic model on Claude subscription credentials."""
        if not self.extra_usage.shown:
            self.mode.spawn(self.extra_usage.check(model))

    def _start_retry(self, event: Mapping[str, object]) -> None:
        """The working line counts down to the next attempt (the shell's ticker redraws it)."""
        attempt, maximum, delay = event.get("attempt"), event.get("maxAttempts"), event.get("delayMs")
        if isinstance(attempt, int) and isinstance(maximum, int) and isinstance(delay, int | float):
            self.mode.shell.working.start_retry(attempt, maximum, delay)
            self.mode.shell.pane.show_working = True

    # --- prompt-cache notices (``showCacheMissNotices``) -----------------------------------------

    def _cache_miss_notice(self, message: Mapping[str, object]) -> None:
        session = self.mode.session
        if not session.settings.values.show_cache_miss_notices:
            return
        runtime = session.model_runtime

        def read_price(provider: str, model_id: str) -> float:
            model = runtime.find(provider, model_id)
            return float(model["cost"]["cacheRead"]) if model is not None else 0.0

        miss = detect_cache_miss(session.session_manager.get_entries(), message, read_price)
        text = describe_cache_miss(miss, format_tokens) if miss is not None else None
        if text is not None:
            self.mode.shell.notice("warning", text)

    def _cache_warm_notice(self, entry: object) -> None:
        if not isinstance(entry, Mapping) or entry.get("type") != "usage" or entry.get("kind") != "cache_warm":
            return
        usage = entry.get("usage")
        if self.mode.session.settings.values.show_cache_miss_notices and isinstance(usage, Mapping):
            note = entry.get("note")
            self.mode.shell.notice(
                "muted", format_warming_usage(cast(Usage, usage), note if isinstance(note, str) else None)
            )

    # --- the footer -----------------------------------------------------------------------------

    def update_footer(self) -> None:
        shell = self.mode.shell
        session = self.mode.session
        data = shell.footer.data
        model = session.model
        data.cwd = session.cwd
        data.model = model["id"] if model is not None else None
        data.provider = model["provider"] if model is not None else None
        data.thinking_level = session.thinking_level if model is not None and model.get("reasoning") else None
        data.context_window = int(model.get("contextWindow") or 0) or None if model is not None else None
        data.routed = None
        if is_virtual_model(model):
            latest = find_latest_response(session.session_manager.build_session_context().messages)
            if latest is not None:
                level = latest.get("thinkingLevel")
                data.routed = f"{latest.get('model')}" + (f" • {level}" if isinstance(level, str) else "")
        data.session_name = session.session_manager.get_session_name()
        data.auto_compact = session.auto_compaction_enabled
        stats = session.get_session_stats()
        tokens = stats.get("tokens") or {}
        data.totals = UsageTotals(
            input=int(tokens.get("input") or 0),
            output=int(tokens.get("output") or 0),
            cache_read=int(tokens.get("cacheRead") or 0),
            cache_write=int(tokens.get("cacheWrite") or 0),
            cost=float(stats.get("cost") or 0.0),
        )
        usage = stats.get("contextUsage")
        data.context_tokens = usage.get("tokens") if isinstance(usage, Mapping) else None
        if isinstance(usage, Mapping) and usage.get("contextWindow"):
            data.context_window = int(usage["contextWindow"])  # the routed model's, for a virtual one
        fill_footer_extras(data, session)
        shell.editor_view.thinking_level = data.thinking_level


def resolve_tool_renderer(
    resolvers: list[Callable[..., object]], name: str, own: ToolRenderer | None
) -> ToolRenderer | None:
    """``pi.register_tool_renderer`` resolvers in load order; the last ``next()`` is the tool's own."""

    def at(index: int) -> object:
        if index >= len(resolvers):
            return own
        try:
            return resolvers[index](name, lambda: at(index + 1))
        except Exception:  # a failing resolver leaves the choice to the next one
            return at(index + 1)

    return _as_tool_renderer(at(0))


def _as_tool_renderer(value: object) -> ToolRenderer | None:
    if value is None or isinstance(value, ToolRenderer):
        return value
    if isinstance(value, Mapping):
        call, result = (
            value.get("render_call", value.get("renderCall")),
            value.get("render_result", value.get("renderResult")),
        )
    else:
        call, result = getattr(value, "render_call", None), getattr(value, "render_result", None)
    if call is None and result is None:
        return None
    return ToolRenderer(cast(Any, call), cast(Any, result))
