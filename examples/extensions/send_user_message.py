"""send-user-message: commands that speak for you.

* ``/ask <text>`` sends ``<text>`` as your own message and starts a run; while the agent is busy it
  refuses and points to ``/steer`` and ``/followup``;
* ``/steer <text>`` sends it at once, or while the agent works as a steering message (delivered
  after the current tool calls, before the next model request);
* ``/followup <text>`` sends it at once, or while the agent works queues it for when the agent
  would otherwise stop;
* ``/askwith <text>`` sends a message made of several text blocks (images could go there too).

Each command without text tells you how to use it.

What it shows: ``pi.send_user_message(content, deliver_as=...)``, which adds a real user message
(unlike ``pi.send_message``, which adds a custom message), ``ctx.is_idle()``.

Load it with ``pi -e examples/extensions/send_user_message.py``.
"""

from __future__ import annotations

from typing import Literal

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext


def extension(pi: ExtensionAPI) -> None:
    def usage(ctx: ExtensionCommandContext, args: str, command: str) -> bool:
        if args.strip():
            return False
        ctx.ui.notify(f"Usage: /{command} <message>", "warning")
        return True

    async def send_or_queue(args: str, ctx: ExtensionCommandContext, mode: Literal["steer", "followUp"]) -> None:
        if ctx.is_idle():
            await pi.send_user_message(args)
            return
        await pi.send_user_message(args, deliver_as=mode)
        if mode == "followUp":
            ctx.ui.notify("Queued as a follow-up")

    @pi.command("ask", description="Send a message to the agent as if you had typed it")
    async def ask(args: str, ctx: ExtensionCommandContext) -> None:
        if usage(ctx, args, "ask"):
            return
        if not ctx.is_idle():
            ctx.ui.notify("The agent is working: use /steer or /followup", "warning")
            return
        await pi.send_user_message(args)

    @pi.command("steer", description="Send a message; while the agent works, steer it")
    async def steer(args: str, ctx: ExtensionCommandContext) -> None:
        if not usage(ctx, args, "steer"):
            await send_or_queue(args, ctx, "steer")

    @pi.command("followup", description="Send a message; while the agent works, queue it as a follow-up")
    async def followup(args: str, ctx: ExtensionCommandContext) -> None:
        if not usage(ctx, args, "followup"):
            await send_or_queue(args, ctx, "followUp")

    @pi.command("askwith", description="Send a message made of several content blocks")
    async def askwith(args: str, ctx: ExtensionCommandContext) -> None:
        if usage(ctx, args, "askwith"):
            return
        if not ctx.is_idle():
            ctx.ui.notify("The agent is working", "warning")
            return
        await pi.send_user_message(
            [{"type": "text", "text": f"Request: {args.strip()}"}, {"type": "text", "text": "Keep the answer short."}]
        )
