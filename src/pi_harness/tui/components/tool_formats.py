"""How each built-in tool's call and result are shown (titles, previews, diffs).

Arguments may be partial while the model is still streaming them, so every field is optional
here. Bodies are logical lines (ANSI) that the tool view wraps; ``collapsed`` bodies keep a
preview and say how to expand (with the key bound to ``app.tools.expand``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi_harness.tui.ansi import sanitize
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.read_display import classify_read, compact_read_title, read_path
from pi_harness.tui.hyperlinks import link_path
from pi_harness.tui.syntax import highlight

BASH_PREVIEW_LINES = 5
PREVIEW_LINES = 10
DIFF_PREVIEW_LINES = 40


@dataclass
class ToolDisplay:
    """What the tool view needs from a tool call: the title and the body lines."""

    title: str
    body: list[str]


def _str(args: Mapping[str, object], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) else None


def _int(args: Mapping[str, object], key: str) -> int | None:
    value = args.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _more_hint(context: RenderContext, count: int, *, earlier: bool = False) -> str:
    where = "earlier" if earlier else "more"
    noun = "line" if count == 1 else "lines"
    return context.theme.fg("muted", f"… ({count} {where} {noun}, {context.key('app.tools.expand')} to expand)")


def head_preview(lines: list[str], limit: int, context: RenderContext) -> list[str]:
    if context.expand_tools or len(lines) <= limit:
        return lines
    return [*lines[:limit], _more_hint(context, len(lines) - limit)]


def highlighted_preview(code: str, path: str | None, limit: int, context: RenderContext) -> list[str]:
    """``head_preview`` of the highlighted ``code``; collapsed, only the lines shown are highlighted."""
    total = code.count("\n") + 1
    if context.expand_tools or total <= limit:
        return highlight(code, context.theme, path=path, base_token="toolOutput")
    lines = highlight(code, context.theme, path=path, base_token="toolOutput", max_lines=limit)
    return [*lines, _more_hint(context, total - limit)]


def tail_preview(lines: list[str], limit: int, context: RenderContext) -> list[str]:
    if context.expand_tools or len(lines) <= limit:
        return lines
    return [_more_hint(context, len(lines) - limit, earlier=True), *lines[-limit:]]


def _plain(text: str, context: RenderContext, token: str = "toolOutput") -> list[str]:
    if not text:
        return []
    return [context.theme.fg(token, line) if line else "" for line in text.split("\n")]


def _path(args: Mapping[str, object], context: RenderContext, key: str = "path") -> str:
    """The path argument, shown short; a clickable ``file://`` link where the terminal has OSC 8."""
    path = _str(args, key)
    if not path:
        return context.theme.fg("muted", "…")
    shown = context.theme.fg("accent", context.short_path(path))
    return link_path(shown, path, context.cwd, context.capabilities.hyperlinks)


def _title(name: str, rest: str, context: RenderContext) -> str:
    return context.theme.style(name, "toolTitle", bold=True) + (" " + rest if rest else "")


def colored_diff(diff: str, context: RenderContext) -> list[str]:
    """A diff from ``edit`` details: removed lines red, added lines green, context dimmed."""
    theme = context.theme
    out: list[str] = []
    for line in sanitize(diff).split("\n"):
        if line.startswith("+"):
            out.append(theme.fg("toolDiffAdded", line))
        elif line.startswith("-"):
            out.append(theme.fg("toolDiffRemoved", line))
        else:
            out.append(theme.fg("toolDiffContext", line))
    return out


def format_bash(args: Mapping[str, object], output: str | None, context: RenderContext) -> ToolDisplay:
    command = _str(args, "command")
    title = context.theme.style(f"$ {command}" if command is not None else "$ …", "toolTitle", bold=True)
    timeout = args.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        title += context.theme.fg("muted", f" (timeout {timeout:g}s)")
    lines = _plain(output or "", context)
    return ToolDisplay(title, tail_preview(lines, BASH_PREVIEW_LINES, context))


def format_read(args: Mapping[str, object], output: str | None, is_error: bool, context: RenderContext) -> ToolDisplay:
    """Collapsed, only the title (a compact one for skills, context files and our docs); the
    file's content is shown when tool output is expanded, an error always."""
    offset, limit = _int(args, "offset"), _int(args, "limit")
    where = ""
    if offset is not None or limit is not None:
        start = offset if offset and offset > 0 else 1
        where = f":{start}-{start + limit - 1}" if limit else f":{start}"
    line_range = context.theme.fg("warning", where) if where else ""
    path = read_path(args)
    compact = None if context.expand_tools else classify_read(path, context.cwd)
    if compact is not None:
        title = compact_read_title(compact, line_range, context)
    else:
        title = _title(
            "read",
            _path(args, context, "path" if _str(args, "path") is not None else "file_path") + line_range,
            context,
        )
    if output is None:
        return ToolDisplay(title, [])
    if is_error:
        return ToolDisplay(title, _plain(output, context, "error"))
    if not context.expand_tools or not output:
        return ToolDisplay(title, [])
    return ToolDisplay(title, highlight(output.rstrip("\n"), context.theme, path=path, base_token="toolOutput"))


def format_edit(
    args: Mapping[str, object], output: str | None, details: Any, is_error: bool, preview_diff: str | None,
    context: RenderContext,
) -> ToolDisplay:  # fmt: skip
    line = details.get("firstChangedLine") if isinstance(details, Mapping) else None
    where = context.theme.fg("warning", f":{line}") if isinstance(line, int) else ""
    edits = args.get("edits")
    count = f" ({len(edits)} edits)" if isinstance(edits, list) and len(edits) > 1 else ""
    title = _title("edit", _path(args, context) + where + context.theme.fg("muted", count), context)
    if is_error and output:
        return ToolDisplay(title, _plain(output, context, "error"))
    diff = details.get("diff") if isinstance(details, Mapping) else None
    diff = diff if isinstance(diff, str) and diff else preview_diff
    if not diff:
        return ToolDisplay(title, [])
    return ToolDisplay(title, head_preview(colored_diff(diff, context), DIFF_PREVIEW_LINES, context))


def format_write(args: Mapping[str, object], output: str | None, is_error: bool, context: RenderContext) -> ToolDisplay:
    content = _str(args, "content")
    size = ""
    if content is not None:
        count = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        size = context.theme.fg("muted", f" ({count} line{'s' if count != 1 else ''})")
    title = _title("write", _path(args, context) + size, context)
    if is_error and output:
        return ToolDisplay(title, _plain(output, context, "error"))
    if not content:
        return ToolDisplay(title, [])
    code = sanitize(content).rstrip("\n")
    return ToolDisplay(title, highlighted_preview(code, _str(args, "path"), PREVIEW_LINES, context))


def _search_title(name: str, args: Mapping[str, object], context: RenderContext) -> str:
    theme = context.theme
    pattern = _str(args, "pattern")
    shown = pattern if pattern is not None else "…"
    rest = theme.fg("accent", f"/{shown}/" if name == "grep" else shown)
    path = _str(args, "path")
    rest += theme.fg("muted", " in ") + theme.fg("accent", context.short_path(path) if path else ".")
    extras = []
    glob = _str(args, "glob")
    if glob:
        extras.append(f"glob {glob}")
    for flag in ("ignoreCase", "literal"):
        if args.get(flag) is True:
            extras.append(flag)
    for number in ("context", "limit"):
        value = _int(args, number)
        if value is not None:
            extras.append(f"{number} {value}")
    if extras:
        rest += theme.fg("muted", f" ({', '.join(extras)})")
    return _title(name, rest, context)


def format_listing(
    name: str, args: Mapping[str, object], output: str | None, is_error: bool, context: RenderContext
) -> ToolDisplay:
    """``grep``, ``find`` and ``ls``: a title from the arguments and the first lines of output."""
    if name == "ls":
        path = _str(args, "path")
        rest = context.theme.fg("accent", context.short_path(path) if path else ".")
        limit = _int(args, "limit")
        if limit is not None:
            rest += context.theme.fg("muted", f" (limit {limit})")
        title = _title("ls", rest, context)
    else:
        title = _search_title(name, args, context)
    lines = _plain(output or "", context, "error" if is_error else "toolOutput")
    return ToolDisplay(title, head_preview(lines, PREVIEW_LINES, context))


def format_generic(
    name: str, label: str | None, args: Any, output: str | None, is_error: bool, context: RenderContext
) -> ToolDisplay:
    """Any other tool: its name, the arguments as JSON, then the output."""
    title = _title(label or name, "", context)
    body: list[str] = []
    if args:
        dumped = json.dumps(args, indent=2, ensure_ascii=False, default=str)
        body.extend(head_preview(_plain(sanitize(dumped), context, "muted"), PREVIEW_LINES, context))
    if output:
        if body:
            body.append("")
        body.extend(
            head_preview(_plain(output, context, "error" if is_error else "toolOutput"), PREVIEW_LINES, context)
        )
    return ToolDisplay(title, body)
