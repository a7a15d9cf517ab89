"""model-status: the current model in the status line, and a note when it changes.

What it shows: the ``model_select`` event. It fires when the model is chosen with ``/model``,
cycled with Ctrl+P or restored with a resumed session; ``event.source`` says which
(``set``, ``cycle``, ``restore``) and ``event.previous_model`` what it was before. The status
entry always names the model (from ``ctx.model`` at session start, then from each event); a
change (not a restore) is also announced with a notification.

Load it with ``pi -e examples/extensions/model_status.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

KEY = "model"


def model_name(model: object) -> str:
    provider, model_id = (model.get("provider"), model.get("id")) if isinstance(model, dict) else (None, None)
    return f"{provider}/{model_id}" if provider and model_id else "no model"


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(KEY, f"🤖 {model_name(ctx.model)}")

    @pi.on("model_select")
    async def selected(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        name = model_name(event.model)
        ctx.ui.set_status(KEY, f"🤖 {name}")
        previous = event.previous_model
        if event.source != "restore" and previous is not None:
            ctx.ui.notify(f"Model changed: {model_name(previous)} → {name} ({event.source})", "info")
