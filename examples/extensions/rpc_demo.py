"""rpc-demo: every dialog and display call a client of ``pi --mode rpc`` has to handle.

Load it in RPC mode and drive it from your client to see each ``extension_ui_request`` arrive:

* ``setTitle``, ``setWidget`` and ``setStatus`` when the session starts (the title says whether it
  is a new session); the status counts turns (``Turn <n> running...``, ``Turn <n> done``);
* ``select`` when the model runs a dangerous shell command (``rm -rf``, ``sudo``): ``Allow`` lets
  it run, anything else blocks it; without a UI it is blocked;
* ``confirm`` before ``/new`` clears the session;
* ``input`` from ``/rpc-input``, ``editor`` from ``/rpc-editor`` (prefilled with three lines),
  ``set_editor_text`` from ``/rpc-prefill``;
* ``notify`` after each answer, telling what the extension received.

What it shows: the ``ctx.ui`` methods that travel over RPC (see the RPC documentation's
"extension dialogs") and how an extension treats a cancelled dialog.

Load it with ``pi --mode rpc -e examples/extensions/rpc_demo.py``.
"""

from __future__ import annotations

import re

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

KEY = "rpc-demo"
DANGEROUS = re.compile(r"\brm\s+(-rf?|--recursive)|\bsudo\b", re.IGNORECASE)
EDITOR_PREFILL = "first line\nsecond line\nthird line"


def extension(pi: ExtensionAPI) -> None:
    turns = [0]

    @pi.on("session_start")
    def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_title("pi RPC demo (new session)" if event.reason == "new" else "pi RPC demo")
        ctx.ui.set_widget(KEY, ["RPC demo extension", "Ready: try /rpc-input, /rpc-editor, /rpc-prefill."])
        ctx.ui.set_status(KEY, f"Turns: {turns[0]}")

    @pi.on("turn_start")
    def turn_start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        turns[0] += 1
        ctx.ui.set_status(KEY, f"Turn {turns[0]} running...")

    @pi.on("turn_end")
    def turn_end(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(KEY, f"Turn {turns[0]} done")

    @pi.on("tool_call")
    async def gate(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, object] | None:
        command = event.input.get("command") if event.tool_name == "bash" else None
        if not isinstance(command, str) or not DANGEROUS.search(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Dangerous command blocked: no UI to ask"}
        if await ctx.ui.select(f"The model wants to run: {command}", ["Allow", "Block"]) != "Allow":
            ctx.ui.notify("Blocked the command", "warning")
            return {"block": True, "reason": "Blocked by user"}
        ctx.ui.notify("Allowed the command")
        return None

    @pi.on("session_before_switch")
    async def before_new(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, bool] | None:
        if event.reason != "new" or not ctx.has_ui:
            return None
        if not await ctx.ui.confirm("Start a new, empty session?", "The current conversation will be left behind."):
            ctx.ui.notify("Kept the session")
            return {"cancel": True}
        return None

    @pi.command("rpc-input", description="Ask for a line of text (ctx.ui.input)")
    async def rpc_input(args: str, ctx: ExtensionCommandContext) -> None:
        value = await ctx.ui.input("Type a value", "anything")
        ctx.ui.notify(f"Received: {value}" if value else "No value given")

    @pi.command("rpc-editor", description="Open the multi-line editor (ctx.ui.editor)")
    async def rpc_editor(args: str, ctx: ExtensionCommandContext) -> None:
        text = await ctx.ui.editor("Edit the text", EDITOR_PREFILL)
        ctx.ui.notify(f"Received {len(text.splitlines())} line(s)" if text else "Editing cancelled")

    @pi.command("rpc-prefill", description="Put text into the input editor (ctx.ui.set_editor_text)")
    async def rpc_prefill(args: str, ctx: ExtensionCommandContext) -> None:
        ctx.ui.set_editor_text("Text placed here by the rpc-demo extension.")
        ctx.ui.notify("Editor text set")
