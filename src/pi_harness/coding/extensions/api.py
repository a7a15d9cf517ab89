"""``pi``: the API an extension's ``extension(pi)`` factory receives.

Registration methods work at any time; action methods need a bound session and raise
``Extension runtime not initialized...`` while the factory runs. Provider registrations made
during loading are queued and applied when the runner binds to its session.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NamedTuple, Protocol, TypeVar, overload

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import Model, UserContent
from pi_harness.coding.extensions.bus import EventBus
from pi_harness.coding.extensions.context import ExtensionContext, StaleContextError
from pi_harness.coding.extensions.events import EVENT_NAMES
from pi_harness.coding.extensions.exec_program import ProgramResult, exec_program
from pi_harness.coding.extensions.host import ExtensionHost
from pi_harness.coding.extensions.registry import EventHandler, Extension
from pi_harness.coding.extensions.types import (
    ArgumentCompletions,
    CommandDefinition,
    CommandHandler,
    EntryRenderer,
    FlagDefinition,
    FlagValue,
    MarkdownTransformer,
    MessageRenderer,
    PrepareLoadout,
    ShortcutDefinition,
    ShortcutHandler,
    ToolAnnotations,
    ToolDefinition,
    ToolExecuteWithContext,
    ToolExposure,
    ToolParameters,
    ToolRenderer,
    ToolRendererResolver,
)
from pi_harness.coding.session_store.system_messages import ConstrainedSampling

NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading."
_MCP_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")

H = TypeVar("H", bound=EventHandler)
T = TypeVar("T", bound=ToolExecuteWithContext)
C = TypeVar("C", bound=CommandHandler)
S = TypeVar("S", bound=ShortcutHandler)


class ProviderAction(NamedTuple):
    """A ``register_provider``/``unregister_provider`` call, applied to the session's models."""

    kind: Literal["register", "unregister", "register_virtual", "unregister_virtual"]
    name: str  # the provider (``provider/id`` for ``unregister_virtual``)
    config: Mapping[str, object] | None  # the provider config / virtual model definition
    extension_path: str


class ExtensionRuntime(Protocol):
    """What the API needs of the runner that loaded it (``ExtensionRunner``)."""

    @property
    def bus(self) -> EventBus: ...
    @property
    def host(self) -> ExtensionHost | None: ...
    @property
    def flag_values(self) -> Mapping[str, FlagValue]: ...
    @property
    def stale(self) -> bool: ...
    def tools_changed(self) -> None: ...
    def mcp_servers_changed(self) -> None: ...
    def queue_provider(self, action: ProviderAction) -> None: ...
    def create_context(self) -> ExtensionContext: ...
    def mcp_servers(self) -> list[dict[str, object]]: ...


class ExtensionAPI:
    def __init__(self, extension: Extension, runner: ExtensionRuntime) -> None:
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
            if self._runner.stale:
                raise StaleContextError()
            raise RuntimeError(NOT_INITIALIZED)
        return host

    # -- subscriptions -----------------------------------------------------------------------

    @overload
    def on(self, event: str) -> Callable[[H], H]: ...
    @overload
    def on(self, event: str, handler: H) -> H: ...

    def on(self, event: str, handler: H | None = None) -> H | Callable[[H], H]:
        """Subscribe ``handler(event, ctx)``; without a handler, returns a decorator."""
        if event not in EVENT_NAMES:
            raise ValueError(f"Unknown extension event: {event}")

        def register(fn: H) -> H:
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
        parameters: ToolParameters,
        label: str | None = None,
        prompt_snippet: str | None = None,
        prompt_guidelines: list[str] | None = None,
        execution_mode: Literal["parallel", "sequential"] | None = None,
        prepare_arguments: Callable[[JsonObject], JsonObject] | None = None,
        output_schema: JsonObject | None = None,
        render_call: ToolRenderer | None = None,
        render_result: ToolRenderer | None = None,
        constrained_sampling: ConstrainedSampling | None = None,
        exposure: ToolExposure | None = None,
        annotations: ToolAnnotations | Mapping[str, bool] | None = None,
        render_shell: Literal["default", "self"] | None = None,
        prepare_loadout: PrepareLoadout | None = None,
        default_active: bool | None = None,
    ) -> Callable[[T], T]:
        """Register the decorated ``execute`` as a tool (the keywords are ``ToolDefinition``'s)."""

        def decorate(fn: T) -> T:
            self.register_tool(
                ToolDefinition(
                    name=name,
                    description=description,
                    parameters=parameters,
                    execute=fn,
                    label=label,
                    prompt_snippet=prompt_snippet,
                    prompt_guidelines=prompt_guidelines,
                    execution_mode=execution_mode,
                    prepare_arguments=prepare_arguments,
                    output_schema=output_schema,
                    render_call=render_call,
                    render_result=render_result,
                    constrained_sampling=constrained_sampling,
                    exposure=exposure,
                    annotations=annotations,
                    render_shell=render_shell,
                    prepare_loadout=prepare_loadout,
                    default_active=default_active,
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
        get_argument_completions: ArgumentCompletions | None = None,
    ) -> Callable[[C], C]: ...
    @overload
    def register_command(
        self,
        name: str,
        handler: C,
        *,
        description: str | None = None,
        get_argument_completions: ArgumentCompletions | None = None,
    ) -> C: ...

    def register_command(
        self,
        name: str,
        handler: C | None = None,
        *,
        description: str | None = None,
        get_argument_completions: ArgumentCompletions | None = None,
    ) -> C | Callable[[C], C]:
        def register(fn: C) -> C:
            self._extension.commands.append(
                CommandDefinition(name.lstrip("/"), fn, description, get_argument_completions)
            )
            return fn

        return register(handler) if handler is not None else register

    def command(self, name: str, *, description: str | None = None) -> Callable[[C], C]:
        return self.register_command(name, description=description)

    @overload
    def register_shortcut(
        self, key: str, handler: None = None, *, description: str | None = None
    ) -> Callable[[S], S]: ...
    @overload
    def register_shortcut(self, key: str, handler: S, *, description: str | None = None) -> S: ...

    def register_shortcut(
        self, key: str, handler: S | None = None, *, description: str | None = None
    ) -> S | Callable[[S], S]:
        def register(fn: S) -> S:
            self._extension.shortcuts.append(ShortcutDefinition(key.lower(), fn, description))
            return fn

        return register(handler) if handler is not None else register

    def shortcut(self, key: str, *, description: str | None = None) -> Callable[[S], S]:
        return self.register_shortcut(key, description=description)

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"] = "boolean",
        default: FlagValue | None = None,
        description: str | None = None,
    ) -> None:
        self._extension.flags.append(FlagDefinition(name.lstrip("-"), type, default, description))

    def get_flag(self, name: str) -> FlagValue | None:
        """This extension's flag value (the name without dashes); ``None`` for others' flags."""
        flag = next((f for f in self._extension.flags if f.name == name.lstrip("-")), None)
        if flag is None:
            return None
        return self._runner.flag_values.get(flag.name, flag.default)

    def register_message_renderer(self, custom_type: str, renderer: MessageRenderer) -> None:
        self._extension.message_renderers[custom_type] = renderer

    def register_entry_renderer(self, custom_type: str, renderer: EntryRenderer) -> None:
        """Draw custom entries (``append_entry``) of ``custom_type`` in the interactive transcript."""
        self._extension.entry_renderers[custom_type] = renderer

    def register_markdown_transformer(self, transformer: MarkdownTransformer) -> None:
        """``transformer(markdown, context)`` rewrites user and assistant Markdown before it is shown."""
        self._extension.markdown_transformers.append(transformer)

    def register_tool_renderer(self, resolver: ToolRendererResolver) -> None:
        """``resolver(tool_name, next)`` picks how a tool's calls are drawn; ``next()`` gives what
        the resolvers after it (and finally the tool itself) would use."""
        self._extension.tool_renderer_resolvers.append(resolver)

    # -- MCP servers ------------------------------------------------------------------------------

    def register_mcp_server(self, name: str, config: Mapping[str, object]) -> None:
        """Add a server for this session, written like an ``mcpServers`` entry of mcp.json; a server
        of that name in mcp.json wins. Raises ``ValueError`` for a bad entry or another extension's name."""
        problem = _mcp_config_problem(name, config)
        if problem is not None:
            raise ValueError(f'Invalid MCP server registered by extension "{self._extension.path}": {problem}')
        for server in self._runner.mcp_servers():
            owner, other = str(server["extensionPath"]), str(server["name"])
            if other == name and owner != self._extension.path:
                raise ValueError(f'MCP server "{name}" is already registered by extension "{owner}"')
            if other != name and other.replace("-", "_") == name.replace("-", "_"):
                raise ValueError(f'MCP server "{name}" conflicts with registered server "{other}"')
        self._extension.mcp_servers[name] = copy.deepcopy(dict(config))
        self._runner.mcp_servers_changed()

    def unregister_mcp_server(self, name: str) -> None:
        if self._extension.mcp_servers.pop(name, None) is not None:
            self._runner.mcp_servers_changed()

    def get_mcp_servers(self) -> list[dict[str, object]]:
        """Every extension's servers: ``[{name, config, extensionPath}]``."""
        return self._runner.mcp_servers()

    def register_provider(self, name: str, config: Mapping[str, object]) -> None:
        self._runner.queue_provider(ProviderAction("register", name, config, self._extension.path))

    def unregister_provider(self, name: str) -> None:
        self._runner.queue_provider(ProviderAction("unregister", name, None, self._extension.path))

    def register_virtual_model(self, definition: Mapping[str, object]) -> None:
        """A model whose ``route(request, ctx)`` picks the physical model of each request
        (virtual-models.md); queued and applied like ``register_provider``."""
        route = definition.get("route")
        runner = self._runner

        def route_with_context(request: object) -> object:
            if not callable(route):
                raise TypeError("route must be a function")
            return route(request, runner.create_context())

        config = {**definition, "route": route_with_context if callable(route) else route}
        provider = str(definition.get("provider") or "")
        self._runner.queue_provider(ProviderAction("register_virtual", provider, config, self._extension.path))

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        self._runner.queue_provider(
            ProviderAction("unregister_virtual", provider, {"id": model_id}, self._extension.path)
        )

    # -- actions ---------------------------------------------------------------------------------

    async def send_message(
        self,
        message: dict[str, object],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "followUp", "nextTurn"] | None = None,
    ) -> None:
        await self._host().send_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)

    async def send_user_message(
        self,
        content: str | list[UserContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> None:
        """A user message that always starts (or joins) a run. With ``expand_prompt_templates``
        it is treated as typed input: a ``/command`` runs that extension command, prompt templates
        and ``/skill:`` commands expand."""
        if expand_prompt_templates:
            await self._host().send_user_message(content, deliver_as=deliver_as, expand_prompt_templates=True)
        else:  # hosts written before the option need not know it
            await self._host().send_user_message(content, deliver_as=deliver_as)

    def append_entry(self, custom_type: str, data: object = None) -> str:
        return self._host().append_custom_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._host().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._host().get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._host().set_label(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return self._host().get_active_tools()

    def get_all_tools(self) -> Sequence[Mapping[str, object]]:
        return self._host().get_all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._host().set_active_tools(names)

    def get_commands(self) -> Sequence[Mapping[str, object]]:
        return self._host().get_commands()

    def get_settings(self) -> dict[str, object]:
        """A copy of the effective settings (global and project merged, overrides applied)."""
        return copy.deepcopy(dict(self._host().get_settings()))

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
    ) -> ProgramResult:
        """Run a program without a shell: ``{stdout, stderr, code, killed}``.

        ``timeout`` is in milliseconds (as in Pi). Abort or timeout sends SIGTERM, then SIGKILL
        after 5 s; a spawn failure gives ``code`` 1.
        """
        host = self._runner.host
        directory = cwd or (host.cwd if host is not None else None)
        return await exec_program(command, args, cwd=directory, signal=signal, timeout_ms=timeout)


def _mcp_config_problem(name: str, config: object) -> str | None:
    """The shape checks every MCP server entry must pass; the MCP extension checks the rest."""
    if not _MCP_SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(config, Mapping):
        return f'server "{name}" must be an object'
    if config.get("type") == "sse":
        return f'server "{name}": legacy SSE transport is not supported; use the streamable HTTP URL'
    if not isinstance(config.get("url"), str) and not isinstance(config.get("command"), str):
        return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
    return None
