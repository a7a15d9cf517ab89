"""trigger-compact: compact early, once the context passes a size you choose.

After each turn the extension reads the context usage; when it grows past 100,000 tokens
(crossing the line: it was at or below the limit after the previous turn) it starts a
compaction, without waiting for pi's own threshold near the end of the context window.
``/trigger-compact [instructions]`` compacts at once, passing the instructions to the summary.
With a UI you are told when the compaction starts, finishes or fails.

What it shows: ``ctx.get_context_usage()`` in ``turn_end`` and ``ctx.compact(custom_instructions=,
on_complete=, on_error=)``, which starts a compaction without waiting for it.
``create_extension(threshold)`` builds the extension with another limit (SDK hosts, tests).

Load it with ``pi -e examples/extensions/trigger_compact.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

THRESHOLD_TOKENS = 100_000


def start_compaction(ctx: ExtensionContext, instructions: str | None = None) -> None:
    def done(result: object) -> None:
        if ctx.has_ui:
            ctx.ui.notify("Compaction finished")

    def failed(error: BaseException) -> None:
        if ctx.has_ui:
            ctx.ui.notify(f"Compaction failed: {error}", "error")

    if ctx.has_ui:
        ctx.ui.notify("Compacting the conversation...")
    ctx.compact(custom_instructions=instructions, on_complete=done, on_error=failed)


def create_extension(threshold: int = THRESHOLD_TOKENS) -> Callable[[ExtensionAPI], None]:
    def extension(pi: ExtensionAPI) -> None:
        previous: list[int | None] = [None]  # tokens after the previous turn (None = unknown)

        @pi.on("turn_end")
        def check(event: ExtensionEvent, ctx: ExtensionContext) -> None:
            usage = ctx.get_context_usage()
            tokens = usage.get("tokens") if usage else None
            if not isinstance(tokens, int):
                return  # unknown right after a compaction: wait for a real figure
            before, previous[0] = previous[0], tokens
            if before is not None and before <= threshold < tokens:
                start_compaction(ctx)

        @pi.command("trigger-compact", description="Compact now (/trigger-compact [instructions])")
        async def compact_now(args: str, ctx: ExtensionCommandContext) -> None:
            start_compaction(ctx, args.strip() or None)

    return extension


extension = create_extension()
