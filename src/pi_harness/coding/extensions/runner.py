"""The extension runner: loads extensions, binds them to a session and dispatches events.

Handlers run sequentially in extension load order, and within one extension in registration
order. The error policy lives here, not in handlers: a raising handler is reported on the error
channel (``on_error``) and processing continues, except for ``tool_call`` and ``user_bash``,
where it blocks the call or command (fail closed); ``BaseException`` counts as an error too,
except a real abort (see ``dispatch.py``). ``handler_timeout_ms`` (beyond Pi, off by
default) cancels a slow handler and treats it as having raised.
"""

from __future__ import annotations

import asyncio
import inspect
import traceback
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict, TypeVar, cast

from pi_harness.ai.types import ImageContent, UserContent
from pi_harness.coding.extensions import registry
from pi_harness.coding.extensions.api import ExtensionAPI, ProviderAction
from pi_harness.coding.extensions.bus import EventBus
from pi_harness.coding.extensions.combine import (
    BeforeAgentStart,
    BeforeAgentStartOutcome,
    Chain,
    Collect,
    Gate,
    InputChain,
    InputOutcome,
    Notify,
    as_dict,
)
from pi_harness.coding.extensions.context import (
    ExtensionCommandContext,
    ExtensionContext,
    Generation,
    ReplacedSessionContext,
)
from pi_harness.coding.extensions.dispatch import Combiner, HandlerCaller, OnError, as_handler_error, dispatch
from pi_harness.coding.extensions.host import ExtensionHost
from pi_harness.coding.extensions.loader import ExtensionLoadError, entry_files, import_factory
from pi_harness.coding.extensions.prompt_events import PromptReportingUI
from pi_harness.coding.extensions.registry import EventHandler, Extension
from pi_harness.coding.extensions.types import (
    CommandDefinition,
    EntryRenderer,
    ExtensionErrorRecord,
    FlagDefinition,
    FlagValue,
    MarkdownTransformer,
    MessageRenderer,
    ShortcutDefinition,
    ToolDefinition,
    ToolRendererResolver,
)
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI
from pi_harness.coding.resources.source_info import SourceMetadata

# ``extension(pi)``; it may be a coroutine function (awaited while loading).
Factory = Callable[[ExtensionAPI], object]
ErrorListener = Callable[[ExtensionErrorRecord], None]
C = TypeVar("C", bound=Combiner)


@dataclass(frozen=True)
class ProjectTrustContext:
    """What a ``project_trust`` handler gets as ``ctx`` (Pi's ``ProjectTrustContext``): use only
    ``ui.select``, ``ui.confirm``, ``ui.input`` and ``ui.notify``."""

    cwd: str
    mode: str
    has_ui: bool
    ui: ExtensionUI


@dataclass(frozen=True)
class LoadFailure:
    path: str
    error: str

    def describe(self) -> str:
        """The line a user sees (Pi's shape): which extension, then why."""
        return f'Failed to load extension "{self.path}": {self.error}'


class ExtensionRunner:
    def __init__(
        self,
        *,
        ui: ExtensionUI | None = None,
        has_ui: bool = False,
        handler_timeout_ms: int | None = None,
        builtin_factories: dict[str, Factory] | None = None,
    ) -> None:
        self.extensions: list[Extension] = []
        self.load_failures: list[LoadFailure] = []
        self.ui: ExtensionUI = ui if ui is not None else HeadlessUI()
        self.has_ui = has_ui
        self.handler_timeout_ms = handler_timeout_ms
        self.builtin_factories = dict(builtin_factories or {})
        self.host: ExtensionHost | None = None
        self.bus = EventBus()
        self.flag_values: dict[str, FlagValue] = {}
        # Where the host got extension paths from, when the resource loader did not resolve them
        # (``-e`` paths): the ``sourceInfo`` of their commands.
        self.path_sources: dict[str, SourceMetadata] = {}
        self._generation = Generation()
        self._error_listeners: list[ErrorListener] = []
        self._pending_providers: list[ProviderAction] = []
        self._provider_applier: Callable[[ProviderAction], None] | None = None
        self._tools_listener: Callable[[], None] | None = None
        self._caller = HandlerCaller(self._context_for_handler, lambda: self.handler_timeout_ms)
        self._stale = False
        self._prompt_ui: tuple[ExtensionUI, ExtensionUI] | None = None
        self._trust_context: ProjectTrustContext | None = None
        self._background: set[asyncio.Future[None]] = set()
        self._reported_mcp_servers: set[str] = set()

    # -- loading -------------------------------------------------------------------------------

    async def load_paths(self, paths: Iterable[str]) -> list[LoadFailure]:
        """Load each path (``builtin:<name>`` for built-ins); failures are recorded, not raised."""
        failures: list[LoadFailure] = []
        seen = {e.path for e in self.extensions}
        for raw in paths:
            if raw in seen:
                continue
            seen.add(raw)
            try:
                if raw.startswith("builtin:"):
                    factory = self.builtin_factories.get(raw)
                    if factory is None:
                        raise ExtensionLoadError(raw, f"Failed to load extension: unknown built-in extension {raw}")
                    await self.load_factory(factory, raw)
                    continue
                path = Path(raw)
                if not path.exists():
                    raise ExtensionLoadError(raw, f"Extension path does not exist: {raw}")
                files = entry_files(path)
                if not files:
                    raise ExtensionLoadError(raw, f"Failed to load extension: no extension entry point found at {raw}")
                for index, file in enumerate(files):
                    display = raw if len(files) == 1 else f"{raw}#{index}"
                    await self.load_factory(import_factory(file, display), display)
            except ExtensionLoadError as exc:
                failures.append(LoadFailure(exc.path, str(exc)))
            except Exception as exc:
                failures.append(LoadFailure(raw, f"Failed to load extension: {exc}"))
        self.load_failures.extend(failures)
        return failures

    async def load_factory(self, factory: Factory, path: str) -> Extension:
        extension = Extension(path=path)
        api = ExtensionAPI(extension, self)
        try:
            result = factory(api)
            if inspect.isawaitable(result):
                await result
        except BaseException as raised:
            error = as_handler_error(raised)
            if error is None:
                raise
            raise ExtensionLoadError(path, f"Failed to load extension: {error}") from raised
        self.extensions.append(extension)
        self.tools_changed()
        return extension

    # -- binding to a session --------------------------------------------------------------------

    def bind(
        self,
        host: ExtensionHost,
        *,
        apply_provider: Callable[[ProviderAction], None] | None = None,
        on_tools_changed: Callable[[], None] | None = None,
    ) -> None:
        """Attach to a session: action methods work from now on; queued providers are applied."""
        self.host = host
        self._generation = Generation()
        self._provider_applier = apply_provider
        self._tools_listener = on_tools_changed
        pending, self._pending_providers = self._pending_providers, []
        for action in pending:
            self._apply_provider(action)
        self._report_unhandled_mcp_servers()

    def invalidate(self) -> None:
        """Make every context handed out so far stale (reload / session replacement); the ``pi``
        of these extensions goes stale too."""
        self._generation.valid = False
        self._stale = True
        self.host = None

    @property
    def stale(self) -> bool:
        return self._stale

    # -- MCP servers extensions register (the MCP extension connects them) -------------------------

    def mcp_servers(self) -> list[dict[str, object]]:
        return registry.mcp_servers(self.extensions)

    def mcp_servers_changed(self) -> None:
        """After binding, a change is announced with ``mcp_servers_change {servers}``; while loading,
        the MCP extension reads ``get_mcp_servers()`` at ``session_start``."""
        if self.host is None:
            return
        self._report_unhandled_mcp_servers()
        if self.has_handlers("mcp_servers_change"):
            task = asyncio.ensure_future(self.emit("mcp_servers_change", {"servers": self.mcp_servers()}))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def _report_unhandled_mcp_servers(self) -> None:
        if self.has_handlers("mcp_servers_change"):
            return
        for server in self.mcp_servers():
            name = str(server["name"])
            if name in self._reported_mcp_servers:
                continue
            self._reported_mcp_servers.add(name)
            self.report(
                str(server["extensionPath"]),
                "register_mcp_server",
                f'MCP server "{name}" is registered, but no loaded extension connects MCP servers; '
                "another extension may have replaced the built-in MCP support",
            )

    def pending_provider_actions(self) -> list[ProviderAction]:
        """Registrations queued while the runner is unbound (startup applies them early so that
        ``--model`` and ``--list-models`` see extension providers and virtual models)."""
        return list(self._pending_providers)

    def queue_provider(self, action: ProviderAction) -> None:
        if self.host is None or self._provider_applier is None:
            self._pending_providers.append(action)
        else:
            self._apply_provider(action)

    def _apply_provider(self, action: ProviderAction) -> None:
        if self._provider_applier is None:
            self._pending_providers.append(action)
            return
        try:
            self._provider_applier(action)
        except Exception as exc:
            self.report(action.extension_path, "register_provider", exc)

    def tools_changed(self) -> None:
        if self._tools_listener is not None:
            self._tools_listener()

    # -- registries (see registry.py) ------------------------------------------------------------

    def tool_definitions(self) -> list[tuple[ToolDefinition, str]]:
        """Extension tools, first registration of a name wins (conflicts reported)."""
        return registry.tool_definitions(self.extensions)

    def has_loadout_hooks(self, among: Container[str] | None = None) -> bool:
        """Whether any extension tool (of a name in ``among``, when given) has a ``prepare_loadout``
        hook (else no request's tool declarations are changed by one)."""
        return any(
            tool.prepare_loadout is not None and (among is None or tool.name in among)
            for ext in self.extensions
            for tool in ext.tools
        )

    def tool_conflicts(self) -> list[str]:
        return registry.tool_conflicts(self.extensions)

    def commands(self, builtin_names: Iterable[str] = ()) -> tuple[list[tuple[CommandDefinition, str]], list[str]]:
        """Commands in load order and the conflict diagnostics (duplicates and built-in names)."""
        return registry.commands(self.extensions, builtin_names)

    def find_command(self, name: str) -> tuple[CommandDefinition, str] | None:
        commands, _ = self.commands()
        return next(((c, p) for c, p in commands if c.name == name), None)

    def shortcuts(self) -> list[tuple[ShortcutDefinition, str]]:
        return [(s, ext.path) for ext in self.extensions for s in ext.shortcuts]

    def flags(self) -> tuple[list[tuple[FlagDefinition, str]], list[str]]:
        return registry.flags(self.extensions)

    def message_renderer(self, custom_type: str) -> MessageRenderer | None:
        return registry.message_renderer(self.extensions, custom_type)

    def entry_renderer(self, custom_type: str) -> EntryRenderer | None:
        return registry.entry_renderer(self.extensions, custom_type)

    def markdown_transformers(self) -> list[MarkdownTransformer]:
        return registry.markdown_transformers(self.extensions)

    def tool_renderer_resolvers(self) -> list[ToolRendererResolver]:
        return registry.tool_renderer_resolvers(self.extensions)

    # -- contexts and errors -----------------------------------------------------------------------

    def _context_ui(self) -> ExtensionUI:
        """Dialogs of a real UI announce themselves (``ui_prompt_start``/``ui_prompt_end``)."""
        if isinstance(self.ui, HeadlessUI):
            return self.ui
        # One wrapper per UI, so a dialog opened inside another is seen as such by every context.
        if self._prompt_ui is None or self._prompt_ui[0] is not self.ui:
            self._prompt_ui = (self.ui, PromptReportingUI.around(self.ui, self.emit))
        return self._prompt_ui[1]

    def create_context(self) -> ExtensionContext:
        if self.host is None:
            raise RuntimeError("Extension runner is not bound to a session")
        return ExtensionContext(self.host, self._context_ui(), self.has_ui, self._generation)

    def create_command_context(self) -> ExtensionCommandContext:
        if self.host is None:
            raise RuntimeError("Extension runner is not bound to a session")
        return ExtensionCommandContext(self.host, self._context_ui(), self.has_ui, self._generation)

    def create_replaced_context(self) -> ReplacedSessionContext:
        if self.host is None:
            raise RuntimeError("Extension runner is not bound to a session")
        return ReplacedSessionContext(self.host, self._context_ui(), self.has_ui, self._generation)

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    def report(self, extension_path: str, event: str, error: BaseException | str) -> None:
        if isinstance(error, BaseException):
            message = str(error) or type(error).__name__
            stack = "".join(traceback.format_exception(error)) if error.__traceback__ else None
        else:
            message, stack = error, None
        record = ExtensionErrorRecord(extension_path, event, message, stack)
        for listener in list(self._error_listeners):
            try:
                listener(record)
            except Exception:
                pass

    # -- dispatch ------------------------------------------------------------------------------------
    # Each ``emit_*`` declares how its event's handler results combine (``combine.py``) and what
    # a raising handler means; ``dispatch.py`` runs the handlers.

    def interrupt(self) -> None:
        """Shutdown has begun: no handler may keep the process alive (bounds in ``dispatch.py``)."""
        self._caller.interrupt()

    def has_handlers(self, event: str) -> bool:
        # A plain loop: asked dozens of times a turn, and ``any(<generator>)`` costs twice as much.
        for ext in self.extensions:  # noqa: SIM110
            if event in ext.handlers:
                return True
        return False

    def _handlers(self, event: str) -> list[tuple[str, EventHandler]]:
        return [(ext.path, h) for ext in self.extensions for h in ext.handlers.get(event, [])]

    def _context_for_handler(self) -> ExtensionContext | None:
        if self._trust_context is not None:
            # The handler's ``ctx`` is typed as a session's; a trust handler gets the smaller one.
            return cast(ExtensionContext, self._trust_context)
        return self.create_context() if self.host is not None else None

    async def _run(self, combiner: C, *, on_error: OnError = "report", with_ctx: bool = True) -> C:
        handlers = self._handlers(combiner.event_type)
        return await dispatch(handlers, combiner, self._caller, self.report, on_error=on_error, with_ctx=with_ctx)

    async def emit(self, event_type: str, payload: dict[str, object] | None = None) -> None:
        """Notify: every handler runs; errors are reported."""
        if self.has_handlers(event_type):
            await self._run(Notify(event_type, payload if payload is not None else {}))

    async def emit_collect(self, event_type: str, payload: dict[str, object]) -> list[tuple[str, object]]:
        """Notify, keeping each handler's non-empty result with its extension's path."""
        return (await self._run(Collect(event_type, payload))).results

    async def emit_project_trust(self, cwd: str, resources: list[str], *, mode: str = "print") -> bool | None:
        """Gate: the first handler answering yes/no decides; errors are reported (as warnings).

        There is no session yet: handlers get a ``ProjectTrustContext`` (``cwd``, ``mode``,
        ``has_ui`` and the dialogs of this runner's UI)."""
        gate = Gate("project_trust", {"cwd": cwd, "resources": list(resources)}, _yes_no)
        self._trust_context = ProjectTrustContext(cwd, mode, self.has_ui, self.ui)
        try:
            return (await self._run(gate)).answer
        finally:
            self._trust_context = None

    async def emit_session_directory(self, cwd: str) -> str | None:
        """The last handler naming a ``sessionDir`` decides."""
        gate = Gate("session_directory", {"cwd": cwd}, _session_dir, final=lambda _dir: False)
        return (await self._run(gate, with_ctx=False)).answer

    async def emit_session_before(self, event_type: str, payload: dict[str, object]) -> dict[str, object] | None:
        """Gate: the first ``{cancel: true}`` wins at once; otherwise the last non-empty result."""
        gate = Gate(event_type, payload, _non_empty, final=lambda result: bool(result.get("cancel")))
        return (await self._run(gate)).answer

    async def emit_input(
        self, text: str, images: list[ImageContent] | None, source: str, streaming_behavior: str | None = None
    ) -> InputOutcome:
        """Chained transform of the input; the first ``handled`` stops. Returns ``{action, text, images}``."""
        return (await self._run(InputChain(text, images, source, streaming_behavior))).outcome

    async def emit_before_agent_start(self, payload: dict[str, object]) -> BeforeAgentStartOutcome:
        """In-place mutation: messages accumulate; ``systemPrompt`` chains; sections/tools/guidelines
        are changed in the payload itself."""
        return (await self._run(BeforeAgentStart(payload))).outcome

    # The values are whatever the handlers returned; callers check them, so the result is typed
    # ``Any`` where ``object`` would make every caller cast the values it has just checked.
    async def emit_transform(
        self,
        event_type: str,
        payload: Mapping[str, object],
        keys: tuple[str, ...],
        *,
        bare_result_key: str | None = None,
    ) -> dict[str, Any]:
        """Chained transform over ``keys`` of the payload; a raising handler keeps the previous value.

        With ``bare_result_key`` a handler may also return the new value itself (Pi's
        ``before_provider_request`` returns the replacement body, not ``{payload: ...}``).
        """
        chain = Chain(event_type, payload, keys, bare_result_key=bare_result_key)
        return (await self._run(chain)).current

    async def emit_tool_call(self, payload: dict[str, object]) -> dict[str, object] | None:
        """Gate: the first ``{block: true}`` short-circuits. A raising handler's error propagates
        (``BaseException`` as ``HandlerEscape``): the caller blocks the tool (fail closed)."""
        gate = Gate("tool_call", payload, _blocking)
        return (await self._run(gate, on_error="raise")).answer

    async def emit_tool_result(self, payload: Mapping[str, object]) -> ToolResultPatch:
        """Chained patch: each handler sees the latest patched result; returns what was replaced."""
        chain = Chain("tool_result", payload, TOOL_RESULT_KEYS, keep_none=True)
        return cast(ToolResultPatch, (await self._run(chain)).changed)

    async def emit_actionable(self, event_type: str, payload: dict[str, object]) -> bool:
        """``turn_end`` / ``agent_before_settle``: True if any handler asked to continue."""
        gate = Gate(event_type, payload, _wants_continue, final=lambda _yes: False)
        return (await self._run(gate)).answer is True

    async def emit_user_bash(self, payload: dict[str, object]) -> UserBashAnswer | None:
        """Gate: the first non-empty result wins; a raising handler propagates (the command is blocked)."""
        gate = Gate("user_bash", payload, _non_empty)
        return cast("UserBashAnswer | None", (await self._run(gate, on_error="raise")).answer)

    async def run_command(self, name: str, args: str) -> bool:
        """Run ``/name args`` if an extension owns it; errors go to the channel as ``command:<name>``."""
        found = self.find_command(name)
        if found is None:
            return False
        command, _path = found
        try:
            result = command.handler(args, self.create_command_context())
            if inspect.isawaitable(result):
                await result
        except BaseException as raised:
            error = as_handler_error(raised)
            if error is None:
                raise
            self.report(f"command:{name}", "command", error)
        return True


class UserBashAnswer(TypedDict, total=False):
    """A ``user_bash`` handler's answer: a finished ``result``, or ``operations`` to run it with."""

    result: Mapping[str, object]
    operations: object


class ToolResultPatch(TypedDict, total=False):
    """What ``tool_result`` handlers replaced, field by field."""

    content: list[UserContent]
    details: object
    isError: object
    structuredContent: object


TOOL_RESULT_KEYS = ("content", "details", "isError", "structuredContent")


def _yes_no(result: object) -> bool | None:
    if result in ("yes", True):
        return True
    if result in ("no", False):
        return False
    values = as_dict(result)
    if values is not None:
        return _yes_no(values.get("trusted", values.get("trust", values.get("decision"))))
    return None


def _session_dir(result: object) -> str | None:
    values = as_dict(result)
    directory = values.get("sessionDir") if values is not None else None
    return directory if isinstance(directory, str) else None


def _non_empty(result: object) -> dict[str, object] | None:
    values = as_dict(result)
    return values if values else None


def _blocking(result: object) -> dict[str, object] | None:
    values = as_dict(result)
    return values if values is not None and values.get("block") else None


def _wants_continue(result: object) -> Literal[True] | None:
    values = as_dict(result)
    return True if values is not None and values.get("continue") is True else None


__all__ = [
    "ErrorListener",
    "ExtensionRunner",
    "Factory",
    "LoadFailure",
    "ProviderAction",
    "ToolResultPatch",
    "UserBashAnswer",
]
