"""tools: ``/tools`` turns tools on and off, and the choice is kept in the session.

``/tools`` shows every registered tool as ``[x] name`` (on) or ``[ ] name`` (off). Picking one
switches it at once; pick ``Done`` (or close the list) when finished. Each change is saved in the
session as a ``tools-config`` entry, so resuming the session, reloading or moving in ``/tree``
brings back the tool set of that point of the branch; tools that no longer exist are dropped.
Without a UI the command cannot ask and says so.

What it shows: ``pi.get_all_tools()``, ``pi.get_active_tools()``, ``pi.set_active_tools()``,
state saved with ``pi.append_entry`` and restored from ``ctx.session_manager.get_branch()`` in
``session_start`` and ``session_tree``, and a repeated ``ctx.ui.select`` as a toggle list.

Load it with ``pi -e examples/extensions/tools.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

STATE_TYPE = "tools-config"
DONE = "Done"


def saved_tools(branch: Sequence[Mapping[str, object]]) -> list[str] | None:
    """The tool list of the latest ``tools-config`` entry on the branch (``None``: never saved)."""
    found: list[str] | None = None
    for entry in branch:
        data = entry.get("data") if entry.get("type") == "custom" and entry.get("customType") == STATE_TYPE else None
        if isinstance(data, Mapping) and isinstance(data.get("enabledTools"), list):
            found = [str(name) for name in data["enabledTools"]]
    return found


def extension(pi: ExtensionAPI) -> None:
    def restore(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        saved = saved_tools(list(ctx.session_manager.get_branch()))
        if saved is not None:
            known = {str(tool["name"]) for tool in pi.get_all_tools()}
            pi.set_active_tools([name for name in saved if name in known])

    pi.on("session_start", restore)
    pi.on("session_tree", restore)

    @pi.command("tools", description="Turn tools on and off")
    async def choose(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            ctx.ui.notify("/tools needs a UI to ask", "error")
            return
        while True:
            names = [str(tool["name"]) for tool in pi.get_all_tools()]
            enabled = set(pi.get_active_tools())
            options = {f"[{'x' if name in enabled else ' '}] {name}": name for name in names}
            picked = await ctx.ui.select("Tools (pick one to switch it)", [*options, DONE])
            if picked is None or picked == DONE:
                return
            name = options[picked]
            enabled.symmetric_difference_update({name})
            chosen = [tool for tool in names if tool in enabled]
            pi.set_active_tools(chosen)
            pi.append_entry(STATE_TYPE, {"enabledTools": chosen})
