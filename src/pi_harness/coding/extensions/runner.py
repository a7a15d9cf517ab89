"""The extension runner: loads extensions and dispatches events with Pi's semantics.

Handlers run sequentially in extension load order, and within one extension in registration
order. The error policy of extensions.md section 5 lives here, not in handlers: everything is
reported and processing continues, except ``tool_call`` and ``user_bash`` where a raising handler
blocks (fail closed). ``handler_timeout_ms`` (beyond Pi, off by default) cancels a slow handler
and treats it as having raised.
"""

from __future__ import annotations

import asyncio
import inspect
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.bus import EventBus
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext, Generation
from pi_harness.coding.extensions.events import ExtensionEvent, normalize_result
from pi_harness.coding.extensions.host import ExtensionHost
from pi_harness.coding.extensions.loader import ExtensionLoadError, entry_files, import_factory
from pi_harness.coding.extensions.types import (
    CommandDefinition,
    ExtensionErrorRecord,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
)
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI

Factory = Callable[[ExtensionAPI], Any]
ErrorListener = Callable[[ExtensionErrorRecord], None]
ProviderAction = tuple[str, str, Any, str]


class HandlerTimeout(Exception):
    pass


@dataclass
class Extension:
    path: str
    handlers: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)
    tools: list[ToolDefinition] = field(default_factory=list)
    commands: list[CommandDefinition] = field(default_factory=list)
    shortcuts: list[ShortcutDefinition] = field(default_factory=list)
    flags: list[FlagDefinition] = field(default_factory=list)
    message_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadFailure:
    path: str
    error: str


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
        self.flag_values: dict[str, Any] = {}
        self._generation = Generation()
        self._error_listeners: list[ErrorListener] = []
        self._pending_providers: list[ProviderAction] = []
        self._provider_applier: Callable[[ProviderAction], None] | None = None
        self._tools_listener: Callable[[], None] | None = None

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
        except Exception as exc:
            raise ExtensionLoadError(path, f"Failed to load extension: {exc}") from exc
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

    def invalidate(self) -> None:
        """Make every context handed out so far stale (reload / session replacement)."""
        self._generation.valid = False
        self.host = None

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
            self.report(action[3], "register_provider", exc)

    def tools_changed(self) -> None:
        if self._tools_listener is not None:
            self._tools_listener()

    # -- registries ------------------------------------------------------------------------------

    def tool_definitions(self) -> list[tuple[ToolDefinition, str]]:
        """Extension tools, first registration of a name wins (conflicts reported)."""
        seen: dict[str, str] = {}
        out: list[tuple[ToolDefinition, str]] = []
        for ext in self.extensions:
            for tool in ext.tools:
                if tool.name in seen:
                    continue
                seen[tool.name] = ext.path
                out.append((tool, ext.path))
        return out

    def tool_conflicts(self) -> list[str]:
        seen: dict[str, str] = {}
        messages = []
        for ext in self.extensions:
            for tool in ext.tools:
                if tool.name in seen and seen[tool.name] != ext.path:
                    messages.append(f'Tool "{tool.name}" conflicts with {seen[tool.name]}')
                seen.setdefault(tool.name, ext.path)
        return messages

    def commands(self, builtin_names: Iterable[str] = ()) -> tuple[list[tuple[CommandDefinition, str]], list[str]]:
        """Commands in load order and the conflict diagnostics (duplicates and built-in names)."""
        builtins = set(builtin_names)
        owners: dict[str, str] = {}
        out: list[tuple[CommandDefinition, str]] = []
        diagnostics: list[str] = []
        for ext in self.extensions:
            for command in ext.commands:
                if command.name in builtins:
                    diagnostics.append(
                        f"Extension command '{command.name}' from {ext.path} conflicts with built-in commands. "
                        "Skipping."
                    )
                elif command.name in owners:
                    diagnostics.append(
                        f"Extension command '{command.name}' from {ext.path} conflicts with {owners[command.name]}. "
                        "Skipping."
                    )
                else:
                    owners[command.name] = ext.path
                    out.append((command, ext.path))
        return out, diagnostics

    def find_command(self, name: str) -> tuple[CommandDefinition, str] | None:
        commands, _ = self.commands()
        return next(((c, p) for c, p in commands if c.name == name), None)

    def shortcuts(self) -> list[tuple[ShortcutDefinition, str]]:
        return [(s, ext.path) for ext in self.extensions for s in ext.shortcuts]

    def flags(self) -> tuple[list[tuple[FlagDefinition, str]], list[str]]:
        owners: dict[str, str] = {}
        out: list[tuple[FlagDefinition, str]] = []
        diagnostics: list[str] = []
        for ext in self.extensions:
            for flag in ext.flags:
                if flag.name in owners:
                    diagnostics.append(f'Flag "--{flag.name}" conflicts with {ext.path}')
                    continue
                owners[flag.name] = ext.path
                out.append((flag, ext.path))
        return out, diagnostics

    def message_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        for ext in self.extensions:
            if custom_type in ext.message_renderers:
                return ext.message_renderers[custom_type]
        return None

    # -- contexts and errors -----------------------------------------------------------------------

    def create_context(self) -> ExtensionContext:
        if self.host is None:
            raise RuntimeError("Extension runner is not bound to a session")
        return ExtensionContext(self.host, self.ui, self.has_ui, self._generation)

    def create_command_context(self) -> ExtensionCommandContext:
        if self.host is None:
            raise RuntimeError("Extension runner is not bound to a session")
        return ExtensionCommandContext(self.host, self.ui, self.has_ui, self._generation)

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

    # -- dispatch helpers ----------------------------------------------------------------------------

    def has_handlers(self, event: str) -> bool:
        return any(event in ext.handlers for ext in self.extensions)

    def _handlers(self, event: str) -> list[tuple[Extension, Callable[..., Any]]]:
        return [(ext, h) for ext in self.extensions for h in ext.handlers.get(event, [])]

    async def _call(self, handler: Callable[..., Any], event: ExtensionEvent, *, with_ctx: bool = True) -> Any:
        # Handlers may be written ``(event)`` or ``(event, ctx)``; ctx is None where none exists
        # (``session_directory``, ``project_trust``, before binding).
        if _positional_arity(handler) < 2:
            args: tuple[Any, ...] = (event,)
        elif with_ctx and self.host is not None:
            args = (event, self.create_context())
        else:
            args = (event, None)
        result = handler(*args)
        if inspect.isawaitable(result):
            if self.handler_timeout_ms:
                try:
                    result = await asyncio.wait_for(_as_coroutine(result), self.handler_timeout_ms / 1000)
                except TimeoutError as exc:
                    raise HandlerTimeout(
                        f"Extension handler for {event.type} timed out after {self.handler_timeout_ms} ms"
                    ) from exc
            else:
                result = await result
        return normalize_result(result)

    async def emit(self, event_type: str, payload: dict[str, Any] | None = None) -> None:
        """Notify: every handler runs; errors are reported."""
        if not self.has_handlers(event_type):
            return
        event = ExtensionEvent(event_type, payload if payload is not None else {})
        for ext, handler in self._handlers(event_type):
            try:
                await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, event_type, exc)

    async def emit_collect(self, event_type: str, payload: dict[str, Any]) -> list[tuple[str, Any]]:
        results: list[tuple[str, Any]] = []
        event = ExtensionEvent(event_type, payload)
        for ext, handler in self._handlers(event_type):
            try:
                result = await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, event_type, exc)
                continue
            if result is not None:
                results.append((ext.path, result))
        return results

    async def emit_project_trust(self, cwd: str, resources: list[str]) -> bool | None:
        """First handler answering yes/no decides; errors become warnings (reported)."""
        event = ExtensionEvent("project_trust", {"cwd": cwd, "resources": list(resources)})
        for ext, handler in self._handlers("project_trust"):
            try:
                result = await self._call(handler, event, with_ctx=False)
            except Exception as exc:
                self.report(ext.path, "project_trust", exc)
                continue
            answer = _yes_no(result)
            if answer is not None:
                return answer
        return None

    async def emit_session_directory(self, cwd: str) -> str | None:
        event = ExtensionEvent("session_directory", {"cwd": cwd})
        chosen: str | None = None
        for ext, handler in self._handlers("session_directory"):
            try:
                result = await self._call(handler, event, with_ctx=False)
            except Exception as exc:
                self.report(ext.path, "session_directory", exc)
                continue
            if isinstance(result, dict) and isinstance(result.get("sessionDir"), str):
                chosen = result["sessionDir"]
        return chosen

    async def emit_session_before(self, event_type: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """The first ``{cancel: true}`` wins at once; otherwise the last non-empty result."""
        event = ExtensionEvent(event_type, payload)
        last: dict[str, Any] | None = None
        for ext, handler in self._handlers(event_type):
            try:
                result = await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, event_type, exc)
                continue
            if isinstance(result, dict) and result:
                if result.get("cancel"):
                    return result
                last = result
        return last

    async def emit_input(self, text: str, images: list[Any] | None, source: str) -> dict[str, Any]:
        """Chain transforms; the first ``handled`` stops. Returns ``{action, text, images}``."""
        current: dict[str, Any] = {"action": "continue", "text": text, "images": images}
        for ext, handler in self._handlers("input"):
            payload: dict[str, Any] = {"text": current["text"], "source": source}
            if current["images"]:
                payload["images"] = current["images"]
            try:
                result = await self._call(handler, ExtensionEvent("input", payload))
            except Exception as exc:
                self.report(ext.path, "input", exc)
                continue
            if not isinstance(result, dict):
                continue
            action = result.get("action")
            if action == "handled":
                return {"action": "handled", "text": current["text"], "images": current["images"]}
            if action == "transform":
                current["text"] = result.get("text", current["text"])
                if "images" in result:
                    current["images"] = result["images"]
                current["action"] = "transform"
        return current

    async def emit_before_agent_start(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Messages accumulate; ``systemPrompt`` chains; sections/tools/guidelines mutate in place."""
        event = ExtensionEvent("before_agent_start", payload)
        messages: list[dict[str, Any]] = []
        system_prompt: str | None = None
        for ext, handler in self._handlers("before_agent_start"):
            try:
                result = await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, "before_agent_start", exc)
                continue
            if not isinstance(result, dict):
                continue
            message = result.get("message")
            if isinstance(message, dict):
                messages.append(message)
            if isinstance(result.get("systemPrompt"), str):
                system_prompt = result["systemPrompt"]
                event["systemPrompt"] = system_prompt
        return {"messages": messages, "systemPrompt": system_prompt}

    async def emit_transform(
        self,
        event_type: str,
        payload: dict[str, Any],
        keys: tuple[str, ...],
        *,
        bare_result_key: str | None = None,
    ) -> dict[str, Any]:
        """Chained transform over ``keys`` of the payload; a raising handler keeps the previous value.

        With ``bare_result_key`` a handler may also return the new value itself (Pi's
        ``before_provider_request`` returns the replacement body, not ``{payload: ...}``).
        """
        current = dict(payload)
        for ext, handler in self._handlers(event_type):
            event = ExtensionEvent(event_type, dict(current))
            try:
                result = await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, event_type, exc)
                continue
            if result is None or isinstance(result, bool):
                continue
            if isinstance(result, dict) and any(k in result for k in keys):
                for key in keys:
                    if key in result and result[key] is not None:
                        current[key] = result[key]
            elif bare_result_key is not None:
                current[bare_result_key] = result
        return current

    async def emit_tool_call(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """First ``{block: true}`` short-circuits. A raising handler is NOT caught (it blocks)."""
        event = ExtensionEvent("tool_call", payload)
        for _ext, handler in self._handlers("tool_call"):
            try:
                result = await self._call(handler, event)
            except HandlerTimeout:
                raise
            if isinstance(result, dict) and result.get("block"):
                return result
        return None

    async def emit_tool_result(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Each handler sees the latest patched result; errors are reported per handler."""
        current = dict(payload)
        patch: dict[str, Any] = {}
        for ext, handler in self._handlers("tool_result"):
            try:
                result = await self._call(handler, ExtensionEvent("tool_result", dict(current)))
            except Exception as exc:
                self.report(ext.path, "tool_result", exc)
                continue
            if not isinstance(result, dict):
                continue
            for key in ("content", "details", "isError", "structuredContent"):
                if key in result:
                    current[key] = result[key]
                    patch[key] = result[key]
        return patch

    async def emit_actionable(self, event_type: str, payload: dict[str, Any]) -> bool:
        """``turn_end`` / ``agent_before_settle``: True if any handler asked to continue."""
        wants_continue = False
        event = ExtensionEvent(event_type, payload)
        for ext, handler in self._handlers(event_type):
            try:
                result = await self._call(handler, event)
            except Exception as exc:
                self.report(ext.path, event_type, exc)
                continue
            if isinstance(result, dict) and result.get("continue") is True:
                wants_continue = True
        return wants_continue

    async def emit_user_bash(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """First non-empty result wins; a raising handler propagates (the command is blocked)."""
        event = ExtensionEvent("user_bash", payload)
        for _ext, handler in self._handlers("user_bash"):
            result = await self._call(handler, event)
            if isinstance(result, dict) and result:
                return result
        return None

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
        except Exception as exc:
            self.report(f"command:{name}", "command", exc)
        return True


_ARITY_CACHE: dict[Any, int] = {}


def _positional_arity(handler: Callable[..., Any]) -> int:
    """How many positional arguments ``handler`` accepts (``*args`` counts as many)."""
    key = getattr(handler, "__func__", handler)
    cached = _ARITY_CACHE.get(key)
    if cached is not None:
        return cached
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return 2
    count = 0
    for param in params:
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            count = 99
            break
        if param.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    try:
        _ARITY_CACHE[key] = count
    except TypeError:
        pass
    return count


def _yes_no(result: Any) -> bool | None:
    if result in ("yes", True):
        return True
    if result in ("no", False):
        return False
    if isinstance(result, dict):
        return _yes_no(result.get("trust", result.get("decision")))
    return None


async def _as_coroutine(awaitable: Any) -> Any:
    return await awaitable
