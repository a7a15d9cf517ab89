"""tool-override: replace a built-in tool with your own version of it.

What it shows:

* registering a tool under a built-in's name (``read``): the extension's tool replaces the
  built-in for the model, with the same name and arguments, so nothing else changes;
* delegating to the built-in implementation for the work itself (here through the tool factory
  of pi-harness, so offsets, limits, images and truncation behave as usual) and adding policy
  around it: an access log and a block list;
* no renderers of its own: the interactive mode draws it as it draws ``read``.

Every read is appended to ``read-access.log`` in the agent directory (``~/.pi/agent``) as
``<time> ALLOWED|BLOCKED <path>``. Reading ``.env`` files, ``secret(s)``/``credential(s)``
``.json|.yaml|.yml|.toml`` and anything under ``.ssh/``, ``.aws/`` or ``.gnupg/`` is refused.
``/read-log`` shows the last 20 lines of the log.

Load it with ``pi -e examples/extensions/tool_override.py``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions import ToolDefinition, agent_dir
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.tools.read import create_read_tool

BLOCKED = [
    re.compile(r"\.env$"),
    re.compile(r"\.env\..+$"),
    re.compile(r"secrets?\.(json|ya?ml|toml)$", re.IGNORECASE),
    re.compile(r"credentials?\.(json|ya?ml|toml)$", re.IGNORECASE),
    re.compile(r"/\.(ssh|aws|gnupg)/"),
]
LOG_NAME = "read-access.log"


def is_blocked(path: str) -> bool:
    return any(pattern.search(path) for pattern in BLOCKED)


def log_path() -> Path:
    return agent_dir() / LOG_NAME


def log_access(path: str, allowed: bool) -> None:
    try:
        log_path().parent.mkdir(parents=True, exist_ok=True)
        with log_path().open("a", encoding="utf-8") as log:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            log.write(f"{stamp} {'ALLOWED' if allowed else 'BLOCKED'} {path}\n")
    except OSError:
        pass  # logging must never break a read


def extension(pi: ExtensionAPI) -> None:
    async def read(
        tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext | None
    ) -> Any:
        cwd = ctx.cwd if ctx is not None else str(Path.cwd())
        absolute = str((Path(cwd) / str(params["path"])).resolve())
        if is_blocked(absolute):
            log_access(absolute, False)
            raise PermissionError(f"Access to {params['path']} is blocked (sensitive file)")
        log_access(absolute, True)
        built_in = create_read_tool(cwd)
        return await built_in.execute(tool_call_id, params, signal, on_update)

    # The same name, label and arguments as the built-in; our own description.
    template = create_read_tool(".")
    pi.register_tool(
        ToolDefinition(
            name="read",
            label=template.label,
            description="Read a file (every access is logged; .env, secrets and credentials are refused).",
            parameters=template.parameters,
            execute=read,
        )
    )

    @pi.command("read-log", description="Show the last 20 file reads")
    async def show_log(args: str, ctx: ExtensionCommandContext) -> None:
        try:
            lines = log_path().read_text(encoding="utf-8").strip().splitlines()[-20:]
        except OSError:
            ctx.ui.notify("No reads logged yet", "info")
            return
        ctx.ui.notify("Recent reads:\n" + "\n".join(lines), "info")
