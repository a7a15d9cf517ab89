"""custom-footer: your own footer, built from the session's own numbers.

What it shows: ``ctx.ui.set_footer(factory)``. The factory gets the render context (its
``theme``) and a footer source with what an extension cannot read elsewhere: ``git_branch`` and
``statuses`` (the ``set_status`` entries, which the built-in status line no longer shows once a
footer is replaced). Token and cost figures come from the session's entries
(``ctx.session_manager.get_entries()``), the model from ``ctx.model``. The footer is one line:
``↑ input ↓ output $cost · model · ⎇ branch``, drawn again on every frame, so it follows the
conversation. ``/footer`` switches between this footer and the built-in one (``set_footer(None)``).

Load it with ``pi -e examples/extensions/custom_footer.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent


def usage_totals(entries: list[Any]) -> tuple[int, int, float]:
    """Input tokens, output tokens and cost of every assistant message so far."""
    tokens_in = tokens_out = 0
    cost = 0.0
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        usage = message.get("usage") or {}
        tokens_in += int(usage.get("input", 0))
        tokens_out += int(usage.get("output", 0))
        cost += float((usage.get("cost") or {}).get("total", 0.0))
    return tokens_in, tokens_out, cost


def short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class UsageFooter:
    """One line, recomputed at every frame (the session is the source of truth)."""

    def __init__(self, ctx: ExtensionContext, context: Any, source: Any) -> None:
        self.ctx, self.theme, self.source = ctx, context.theme, source

    def render(self, width: int) -> list[str]:
        tokens_in, tokens_out, cost = usage_totals(self.ctx.session_manager.get_entries())
        model = self.ctx.model
        parts = [f"↑{short(tokens_in)} ↓{short(tokens_out)} ${cost:.3f}", str(model["id"]) if model else "no model"]
        if self.source.git_branch:
            parts.append(f"⎇ {self.source.git_branch}")
        parts.extend(self.source.statuses.values())
        return [self.theme.fg("dim", " · ".join(parts)[:width])]


def extension(pi: ExtensionAPI) -> None:
    enabled = True

    def apply(ctx: ExtensionContext) -> None:
        ctx.ui.set_footer((lambda context, source: UsageFooter(ctx, context, source)) if enabled else None)

    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            apply(ctx)

    @pi.command("footer", description="Switch between the usage footer and the built-in one")
    async def toggle(args: str, ctx: ExtensionCommandContext) -> None:
        nonlocal enabled
        enabled = not enabled
        apply(ctx)
        ctx.ui.notify("Usage footer on" if enabled else "Built-in footer restored", "info")
