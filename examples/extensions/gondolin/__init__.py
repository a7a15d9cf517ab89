"""gondolin: run the model's tools and your ``!commands`` inside an isolated guest machine.

When the session starts, a guest is started with the project directory mounted at
``/workspace``; ``read``, ``write``, ``edit``, ``bash`` and ``ls`` then act inside it, and so do your
``!commands``. Changes under ``/workspace`` are changes to your project; anything else the model
does (installing packages, deleting system files, filling ``/tmp``) stays in the guest and is gone
when the session ends and the guest is removed. ``grep`` and ``find`` read the same mounted files
directly, restricted to the workspace. The system prompt tells the model it works in
``/workspace``; ``/gondolin`` shows the guest, the mount and its shell; the status line shows the
guest while it runs.

Pi's version runs a Gondolin micro-VM (QEMU) through Gondolin's Node.js package. There is no
Python client for Gondolin, so this one runs the guest as a container with ``podman`` or ``docker``
(see ``guest.py``: ``PI_GONDOLIN_RUNTIME``, ``PI_GONDOLIN_IMAGE``); the rest behaves the same.
Without a container runtime it says so and the tools stay on the host.

What it shows: overriding built-in tools with the built-in factories and pluggable operations
(``operations.py``), the same for ``user_bash``, a resource started in ``session_start`` and
released in an idempotent ``session_shutdown``, and replacing the ``cwd`` section of the system
prompt.

Load it with ``pi -e examples/extensions/gondolin``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionEvent,
    ToolDefinition,
    ToolUpdateCallback,
)
from pi_harness.coding.tools import (
    ToolOptions,
    create_bash_tool,
    create_edit_tool,
    create_find_tool,
    create_grep_tool,
    create_ls_tool,
    create_read_tool,
    create_write_tool,
)

from .guest import WORKSPACE, ContainerGuest, find_runtime
from .operations import GuestFiles, GuestShell, to_guest, to_host

STATUS_KEY = "gondolin"
Factory = Callable[[str, ToolOptions | None], Any]
GUEST_TOOLS: tuple[tuple[str, Factory], ...] = (
    ("read", create_read_tool),
    ("write", create_write_tool),
    ("edit", create_edit_tool),
    ("bash", create_bash_tool),
    ("ls", create_ls_tool),
)
HOST_TOOLS: tuple[tuple[str, Factory], ...] = (("find", create_find_tool), ("grep", create_grep_tool))


def guest_options(guest: ContainerGuest) -> ToolOptions:
    files = GuestFiles(guest)
    return ToolOptions(
        read_operations=files,
        write_operations=files,
        edit_operations=files,
        ls_operations=files,
        bash_operations=GuestShell(guest),
    )


def extension(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"guest": None, "starting": None, "no_runtime": False}

    async def start_guest(ctx: ExtensionContext) -> ContainerGuest | None:
        runtime = find_runtime()
        if runtime is None:
            state["no_runtime"] = True  # said once; the tools stay on the host for this session
            ctx.ui.notify("gondolin: no podman or docker found; the tools run on the host", "warning")
            return None
        ctx.ui.set_status(STATUS_KEY, f"Gondolin: starting {WORKSPACE}")
        guest = await ContainerGuest.start(runtime, ctx.cwd)
        state["guest"] = guest
        ctx.ui.set_status(STATUS_KEY, f"Gondolin: {guest.id[:8]} ({WORKSPACE})")
        ctx.ui.notify(f"Guest ready: {ctx.cwd} is mounted at {WORKSPACE}")
        return guest

    async def ensure_guest(ctx: ExtensionContext | None) -> ContainerGuest | None:
        if state["guest"] is not None or state["no_runtime"] or ctx is None:
            return state["guest"]
        if state["starting"] is None:  # one start, however many tools ask at once
            state["starting"] = asyncio.ensure_future(start_guest(ctx))
        try:
            return await asyncio.shield(state["starting"])
        finally:
            if state["starting"] is not None and state["starting"].done():
                state["starting"] = None

    def in_guest(name: str, factory: Factory) -> None:
        template = factory(WORKSPACE, None)

        async def execute(
            tool_call_id: str,
            params: dict[str, Any],
            signal: AbortSignal | None,
            on_update: ToolUpdateCallback | None,
            ctx: ExtensionContext | None,
        ) -> Any:
            guest = await ensure_guest(ctx)
            if guest is None:  # no runtime: behave as the built-in tool
                return await factory(ctx.cwd if ctx else ".", None).execute(tool_call_id, params, signal, on_update)
            tool = factory(WORKSPACE, guest_options(guest))
            return await tool.execute(tool_call_id, params, signal, on_update)

        register(name, template, execute)

    def on_mount(name: str, factory: Factory) -> None:
        template = factory(WORKSPACE, None)

        async def execute(
            tool_call_id: str,
            params: dict[str, Any],
            signal: AbortSignal | None,
            on_update: ToolUpdateCallback | None,
            ctx: ExtensionContext | None,
        ) -> Any:
            cwd = ctx.cwd if ctx else "."
            if await ensure_guest(ctx) is not None and params.get("path"):
                host_path = to_host(cwd, to_guest(cwd, str(params["path"])))
                if host_path is None:
                    raise ValueError(f"{name}: only {WORKSPACE} can be searched, not {params['path']}")
                params = {**params, "path": host_path}
            return await factory(cwd, None).execute(tool_call_id, params, signal, on_update)

        register(name, template, execute)

    def register(name: str, template: Any, execute: Any) -> None:
        pi.register_tool(
            ToolDefinition(
                name=name,
                label=template.label,
                description=template.description,
                parameters=template.parameters,
                execute=execute,
                prepare_arguments=template.prepare_arguments,
                prompt_snippet=template.prompt_snippet,
                prompt_guidelines=template.prompt_guidelines,
            )
        )

    for name, factory in GUEST_TOOLS:
        in_guest(name, factory)
    for name, factory in HOST_TOOLS:
        on_mount(name, factory)

    @pi.on("session_start")
    async def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        await ensure_guest(ctx)

    @pi.on("session_shutdown")
    async def stop(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        guest, state["guest"], state["starting"] = state["guest"], None, None
        if guest is None:
            return
        ctx.ui.set_status(STATUS_KEY, "Gondolin: stopping")
        try:
            await guest.close()
        finally:
            ctx.ui.set_status(STATUS_KEY, None)

    @pi.on("user_bash")
    async def bang(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        guest = await ensure_guest(ctx)
        return {"operations": GuestShell(guest)} if guest is not None else None

    @pi.on("before_agent_start")
    def guest_cwd(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        sections = event.sections
        if state["guest"] is not None and isinstance(sections, dict):
            sections["cwd"] = (
                f"Current working directory: {WORKSPACE} (an isolated guest machine; "
                f"the host directory {ctx.cwd} is mounted there)"
            )

    @pi.command("gondolin", description="Show the guest machine the tools run in")
    async def status(args: str, ctx: ExtensionCommandContext) -> None:
        guest = await ensure_guest(ctx)
        if guest is None:
            ctx.ui.notify("No guest is running: the tools run on the host", "warning")
            return
        lines = [f"Guest: {guest.id} ({guest.runtime})", f"Host workspace: {ctx.cwd}", f"Guest workspace: {WORKSPACE}"]
        ctx.ui.notify("\n".join([*lines, f"Shell: {guest.shell}"]))
