"""sandbox: run the model's ``bash`` (and your ``!commands``) inside an OS sandbox.

Linux only, built on bubblewrap (``apt-get install bubblewrap``). Commands see the file system
read-only except the working directory and ``/tmp``, cannot read ``~/.ssh``, ``~/.aws`` or
``~/.gnupg``, cannot overwrite ``.env``/``*.pem``/``*.key`` files, and reach the network only
through a filtering proxy that allows package registries and GitHub by default. Everything is
configurable (``config.py``): defaults <- ``~/.pi/agent/extensions/sandbox.json`` <-
``.pi/sandbox.json``.

* ``--no-sandbox`` starts without it; ``/sandbox`` shows the active configuration and the hosts
  the proxy refused;
* the footer shows ``🔒 Sandbox: <n> domains, <m> write paths`` while it is active;
* on another OS, without ``bwrap``, or where bubblewrap cannot create namespaces, it says so and
  commands run unsandboxed (as they would without the extension).

What it shows: overriding a built-in tool by registering one with the same name (``bash``,
label ``bash (sandboxed)``) that reuses the built-in's behaviour through a custom
``BashOperations``; handling ``user_bash`` with ``{"operations": ...}``; starting a resource (the
proxy) in ``session_start`` and releasing it in an idempotent ``session_shutdown``.

The sandbox covers commands only. The extension itself, other extensions and the ``read``,
``write`` and ``edit`` tools keep the permissions of the pi process. Never run ``/login`` inside a
sandbox or container: it would store real credentials there.

Load it with ``pi -e examples/extensions/sandbox`` or copy the directory into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent
from pi_harness.coding.extensions.types import ToolDefinition
from pi_harness.coding.tools import BASH_PARAMETERS, ToolOptions, create_bash_tool

from .bwrap import SandboxedBashOperations, SandboxPolicy, probe
from .config import SandboxConfig, load_config
from .proxy import DomainFilterProxy

STATUS_KEY = "sandbox"
TOOL_DESCRIPTION = (
    "Execute a bash command in the current working directory inside a sandbox and return its combined "
    "stdout and stderr. Only the working directory and /tmp are writable, secrets such as ~/.ssh are "
    "hidden, and network access is limited to an allowlist of domains through an HTTP proxy. A command "
    "that fails with 'Read-only file system' or a 403 from the proxy hit the sandbox, not a bug. "
    "Long output keeps its tail and is saved to a temporary file. You may pass a timeout in seconds."
)


@dataclass
class SandboxState:
    config: SandboxConfig | None = None
    operations: SandboxedBashOperations | None = None  # set while commands are sandboxed
    proxy: DomainFilterProxy | None = None
    reason: str = "not started"  # why the sandbox is not active


def status_text(config: SandboxConfig) -> str:
    domains = len(config["network"]["allowedDomains"])
    paths = len(config["filesystem"]["allowWrite"])
    return f"🔒 Sandbox: {domains} domains, {paths} write paths"


def describe(state: SandboxState) -> str:
    lines = ["Sandbox: active" if state.operations is not None else f"Sandbox: inactive ({state.reason})"]
    if state.config is not None:
        network, filesystem = state.config["network"], state.config["filesystem"]

        def listing(values: list[str]) -> str:
            return ", ".join(values) if values else "(none)"

        lines += [
            f"Network allowed: {listing(network['allowedDomains'])}",
            f"Network denied: {listing(network['deniedDomains'])}",
            f"Deny read: {listing(filesystem['denyRead'])}",
            f"Allow write: {listing(filesystem['allowWrite'])}",
            f"Deny write: {listing(filesystem['denyWrite'])}",
        ]
    if state.proxy is not None and state.proxy.blocked:
        lines.append(f"Blocked hosts: {', '.join(dict.fromkeys(state.proxy.blocked))}")
    return "\n".join(lines)


def extension(pi: ExtensionAPI) -> None:
    state = SandboxState()
    pi.register_flag("no-sandbox", type="boolean", default=False, description="Run bash without the sandbox")

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: ExtensionContext
    ) -> AgentToolResult:
        # ``operations`` None = the ordinary local bash (sandbox off or unavailable).
        bash = create_bash_tool(ctx.cwd, ToolOptions(bash_operations=state.operations))
        return await bash.execute(tool_call_id, params, signal, on_update)

    pi.register_tool(
        ToolDefinition(
            name="bash",
            label="bash (sandboxed)",
            description=TOOL_DESCRIPTION,
            parameters=BASH_PARAMETERS,
            execute=execute,
            prompt_snippet="Run shell commands in a sandboxed bash (ls, grep, find, git and the like)",
        )
    )

    async def stop() -> None:
        state.operations = None
        if state.proxy is not None:
            await state.proxy.stop()
            state.proxy = None

    def inactive(ctx: ExtensionContext, reason: str, level: str = "warning") -> None:
        state.reason = reason
        if ctx.has_ui:
            ctx.ui.notify(f"Sandbox {reason}; commands run without a sandbox", level)
            ctx.ui.set_status(STATUS_KEY, None)

    async def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        await stop()
        if pi.get_flag("no-sandbox") is True:
            inactive(ctx, "disabled by --no-sandbox", "info")
            return
        loaded = load_config(ctx.cwd)
        state.config = config = loaded.config
        for warning in loaded.warnings:
            if ctx.has_ui:
                ctx.ui.notify(warning, "warning")
        if not config["enabled"]:
            inactive(ctx, "disabled in sandbox.json", "info")
            return
        policy = SandboxPolicy(config)
        if config["network"]["allowedDomains"]:
            state.proxy = DomainFilterProxy(config["network"]["allowedDomains"], config["network"]["deniedDomains"])
            await state.proxy.start()
            policy.proxy_socket = state.proxy.socket_path
        problem = await probe(policy, ctx.cwd)
        if problem is not None:
            await stop()
            inactive(ctx, f"unavailable: {problem}")
            return
        state.operations = SandboxedBashOperations(policy)
        state.reason = ""
        if ctx.has_ui:
            ctx.ui.set_status(STATUS_KEY, status_text(config))

    pi.on("session_start", start)

    async def shutdown(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        await stop()
        state.reason = "session ended"
        if ctx.has_ui:
            ctx.ui.set_status(STATUS_KEY, None)

    pi.on("session_shutdown", shutdown)

    async def user_bash(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        return {"operations": state.operations} if state.operations is not None else None

    pi.on("user_bash", user_bash)

    @pi.command("sandbox", description="Show the sandbox configuration")
    async def show(args: str, ctx: ExtensionCommandContext) -> None:
        if ctx.has_ui:
            ctx.ui.notify(describe(state), "info")
