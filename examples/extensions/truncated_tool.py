"""truncated-tool: a search tool whose output never floods the model's context.

What it shows:

* truncating a tool's output to the limits the built-in tools use (2000 lines or 50 KB,
  whichever comes first), with the helpers of pi-harness (``truncate_head``, ``format_size``);
* keeping the whole output anyway: when it was cut, it goes to a temporary file and the result
  tells the model where, so it can ``read`` the rest;
* saying the limits in the tool description, so the model knows to narrow its search;
* ``pi.exec`` to run a program without a shell (``grep -rn``) with the tool's abort signal;
* ``details`` for the renderer (match count, truncation, the file) and ``render_result``.

The tool is ``search_text(pattern, path?, glob?)``: a regular expression searched in the files
under ``path`` (the project by default), optionally only in files matching ``glob``.

Load it with ``pi -e examples/extensions/truncated_tool.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions import ToolResult
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression to search for"},
        "path": {"type": "string", "description": "Directory to search (default: the project)"},
        "glob": {"type": "string", "description": "Only files whose name matches, e.g. '*.py'"},
    },
    "required": ["pattern"],
}


def render_search(result: dict[str, Any], *_options: object) -> list[str]:
    details = result.get("details") or {}
    if not details.get("matchCount"):
        return ["no matches"]
    line = f"{details['matchCount']} matches"
    if details.get("fullOutputPath"):
        line += f" (cut; everything in {details['fullOutputPath']})"
    return [line]


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(
        name="search_text",
        label="Search text",
        description=(
            "Search file contents with a regular expression. The output is cut at "
            f"{DEFAULT_MAX_LINES} lines or {format_size(DEFAULT_MAX_BYTES)}, whichever comes first; "
            "the whole output is then saved to a file whose path the result gives."
        ),
        parameters=PARAMETERS,
        render_result=render_search,
    )
    async def search(
        tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext | None
    ) -> ToolResult:
        where = str(params.get("path") or ".")
        args = ["-rnE", "--binary-files=without-match"]
        if params.get("glob"):
            args.append(f"--include={params['glob']}")
        args += ["--", str(params["pattern"]), where]
        done = await pi.exec("grep", args, signal=signal, cwd=ctx.cwd if ctx is not None else None)
        details: dict[str, Any] = {"pattern": params["pattern"], "path": where, "matchCount": 0}
        if done["code"] == 1 or not done["stdout"].strip():
            return ToolResult("No matches found", details=details)
        if done["code"] != 0:
            raise RuntimeError(done["stderr"].strip() or f"grep exited with {done['code']}")
        output = done["stdout"]
        details["matchCount"] = len(output.splitlines())
        cut = truncate_head(output)
        if not cut["truncated"]:
            return ToolResult(output, details=details)
        with tempfile.NamedTemporaryFile("w", prefix="pi-search-", suffix=".txt", delete=False) as full:
            full.write(output)
        details["truncation"] = cut
        details["fullOutputPath"] = full.name
        note = (
            f"\n\n[Showing {cut['outputLines']} of {cut['totalLines']} lines "
            f"({format_size(cut['outputBytes'])} of {format_size(cut['totalBytes'])}). "
            f"Everything is in {Path(full.name)}]"
        )
        return ToolResult(cut["content"] + note, details=details)
