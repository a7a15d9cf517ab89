"""``pi``: the API an extension's ``extension(pi)`` factory receives (extensions.md section 6).

Registration methods work at any time; action methods need a bound session and raise
``Extension runtime not initialized...`` while the factory runs. Provider registrations made
during loading are queued and applied when the runner binds to its session.
"""

from __future__ import annotations

import asyncio
import os
import signal as _signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.bus import EventBus
from pi_harness.coding.extensions.events import EVENT_NAMES
from pi_harness.coding.extensions.types import (
    CommandDefinition,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
)

if TYPE_CHECKING:
    from pi_harness.ai.types import Model
    from pi_harness.coding.extensions.host import ExtensionHost
    from pi_harness.coding.extensions.runner import Extension, ExtensionRunner

NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading."

Handler = Callable[..., Any]
H = TypeVar("H", bound=Callable[..., Any])


class ExtensionAPI:
    def __init__(self, extension: Extension, runner: ExtensionRunner) -> None:
        self._extension = extension
        self._runner = runner

    @property
    def events(self) -> EventBus:
        return self._runner.bus

    @property
    def path(self) -> str:
        return self._extension.path

    def _host(self) -> ExtensionHost:
        host = self._runner.host
        if host is None:
            raise RuntimeError(NOT_INITIALIZED)
        return host

    # -- subscriptions -----------------------------------------------------------------------

    @overload
    def on(self, event: str) -> Callable[[H], H]: ...
    @overload
    def on(self, event: str, handler: H) -> H: ...

    def on(self, event: str, handler: Handler | None = None) -> Any:
        """Subscribe ``handler(event, ctx)``; without a handler, returns a decorator."""
        if event not in EVENT_NAMES:
            raise ValueError(f"Unknown extension event: {event}")

        def register(fn: Handler) -> Handler:
            self._extension.handlers.setdefault(event, []).append(fn)
            return fn

        return register(handler) if handler is not None else register

    # -- registration --------------------------------------------------------------------------

    def register_tool(self, definition: ToolDefinition) -> None:
        self._extension.tools.append(definition)
        self._runner.tools_changed()

    def tool(
        self,
        *,
        name: str,
        description: str,
        parameters: Any,
        label: str | None = None,
        **options: Any,
    ) -> Callable[[H], H]:
        def decorate(fn: H) -> H:
            self.register_tool(
                ToolDefinition(
                    name=name, description=description, parameters=parameters, execute=fn, label=label, **options
                )
            )
            return fn

        return decorate

    @overload
    def register_command(
        self,
        name: str,
        handler: None = None,
        *,
        description: str | None = None,
        get_argument_completions: Callable[[str], list[Any] | None] | None = None,
    ) -> Callable[[H], H]: ...
    @overload
    def register_command(
        self,
        name: str,
        handler: H,
        *,
        description: str | None = None,
        get_argument_completions: Callable[[str], list[Any] | None] | None = None,
    ) -> H: ...

    def register_command(
        self,
        name: str,
        handler: Handler | None = None,
        *,
        description: str | None = None,
        get_argument_completions: Callable[[str], list[Any] | None] | None = None,
    ) -> Any:
        def register(fn: Handler) -> Handler:
            self._extension.commands.append(
                CommandDefinition(name.lstrip("/"), fn, description, get_argument_completions)
            )
            return fn

        return register(handler) if handler is not None else register

    def command(self, name: str, *, description: str | None = None) -> Callable[[H], H]:
        return self.register_command(name, description=description)

    @overload
    def register_shortcut(
        self, key: str, handler: None = None, *, description: str | None = None
    ) -> Callable[[H], H]: ...
    @overload
    def register_shortcut(self, key: str, handler: H, *, description: str | None = None) -> H: ...

    def register_shortcut(self, key: str, handler: Handler | None = None, *, description: str | None = None) -> Any:
        def register(fn: Handler) -> Handler:
            self._extension.shortcuts.append(ShortcutDefinition(key.lower(), fn, description))
            return fn

        return register(handler) if handler is not None else register

    def shortcut(self, key: str, *, description: str | None = None) -> Callable[[H], H]:
        return self.register_shortcut(key, description=description)

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"] = "boolean",
        default: Any = None,
        description: str | None = None,
    ) -> None:
        self._extension.flags.append(FlagDefinition(name.lstrip("-"), type, default, description))

    def get_flag(self, name: str) -> Any:
        """This extension's flag value (the name without dashes); ``None`` for others' flags."""
        flag = next((f for f in self._extension.flags if f.name == name.lstrip("-")), None)
        if flag is None:
            return None
        return self._runner.flag_values.get(flag.name, flag.default)

    def register_message_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        self._extension.message_renderers[custom_type] = renderer

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        self._runner.queue_provider(("register", name, config, self._extension.path))

    def unregister_provider(self, name: str) -> None:
        self._runner.queue_provider(("unregister", name, None, self._extension.path))

    # -- actions ---------------------------------------------------------------------------------

    async def send_message(
        self,
        message: dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "followUp", "nextTurn"] | None = None,
    ) -> None:
        await self._host().send_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)

    async def send_user_message(self, content: Any, *, deliver_as: Literal["steer", "followUp"] | None = None) -> None:
        await self._host().send_user_message(content, deliver_as=deliver_as)

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        return self._host().append_custom_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._host().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._host().get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._host().set_label(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return self._host().get_active_tools()

    def get_all_tools(self) -> list[dict[str, Any]]:
        return self._host().get_all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._host().set_active_tools(names)

    def get_commands(self) -> list[dict[str, Any]]:
        return self._host().get_commands()

    async def set_model(self, model: Model) -> bool:
        return await self._host().set_model(model)

    def get_thinking_level(self) -> str:
        return self._host().get_thinking_level()

    def set_thinking_level(self, level: str) -> None:
        self._host().set_thinking_level(level)

    async def exec(
        self,
        command: str,
        args: list[str] | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        cwd: str | None = None,
    ) -> dict[str, Any]:
        """Run a program without a shell: ``{stdout, stderr, code, killed}``.

        ``timeout`` is in milliseconds (as in Pi). Abort or timeout sends SIGTERM, then SIGKILL
        after 5 s; a spawn failure gives ``code`` 1.
        """
        try:
            proc = await asyncio.create_subprocess_exec(
                command,
                *(args or []),
                cwd=cwd or (self._runner.host.cwd if self._runner.host is not None else None),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return {"stdout": "", "stderr": str(exc), "code": 1, "killed": False}
        killed = False

        def kill() -> None:
            nonlocal killed
            if proc.returncode is None:
                killed = True
                _kill_group(proc.pid, _signal.SIGTERM)
                asyncio.get_running_loop().call_later(5, _kill_group, proc.pid, _signal.SIGKILL)

        if signal is not None:
            signal.add_listener(lambda _reason: kill())
        handle = asyncio.get_running_loop().call_later(timeout / 1000, kill) if timeout else None
        stdout, stderr = await proc.communicate()
        if handle is not None:
            handle.cancel()
        code = proc.returncode if proc.returncode is not None else 0
        return {
            "stdout": stdout.decode("utf-8", errors="replace"),
            "stderr": stderr.decode("utf-8", errors="replace"),
            "code": code if code >= 0 else 128 - code,
            "killed": killed,
        }


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
