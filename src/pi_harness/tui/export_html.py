"""``/export``: one self-contained HTML page of a session's messages (inline CSS, no scripts).

Markdown is rendered with raw HTML disabled, every other string is escaped, images are
embedded only as ``data:`` URLs of image types, and tool calls fold their output into
``<details>`` elements. Colours come from the theme (its ``export`` colours for the page).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from markdown_it import MarkdownIt

from pi_harness.tui.ansi import sanitize
from pi_harness.tui.colors import hex_to_rgb, to_hex
from pi_harness.tui.components.content import blocks, content_text
from pi_harness.tui.theme import ThemeSpec

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64_RE = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _md(text: str) -> str:
    rendered: str = _markdown.render(sanitize(text))
    return rendered


def _color(spec: ThemeSpec, token: str, fallback: str) -> str:
    value = spec.colors.get(token, "")
    return to_hex(value) if value != "" else fallback


def _is_dark(hex_color: str) -> bool:
    red, green, blue = hex_to_rgb(hex_color)
    return (0.299 * red + 0.587 * green + 0.114 * blue) < 128


def _css(spec: ThemeSpec) -> str:
    page = to_hex(spec.export.get("pageBg", "")) or ("#1a1b26" if spec.name != "light" else "#f6f8fa")
    dark = _is_dark(page)
    text = "#d8dae5" if dark else "#1f2328"
    card = to_hex(spec.export.get("cardBg", "")) or ("#24283b" if dark else "#ffffff")
    info = to_hex(spec.export.get("infoBg", "")) or ("#2f334d" if dark else "#eef1f6")
    colors = {
        "page": page, "card": card, "info": info, "text": text,
        "accent": _color(spec, "accent", "#7aa2f7"), "muted": _color(spec, "muted", "#888888"),
        "error": _color(spec, "error", "#e05561"), "success": _color(spec, "success", "#4caf50"),
        "warning": _color(spec, "warning", "#d19a66"), "user": _color(spec, "userMessageBg", info),
        "tool-ok": _color(spec, "toolSuccessBg", card), "tool-err": _color(spec, "toolErrorBg", card),
        "tool-pending": _color(spec, "toolPendingBg", card), "added": _color(spec, "toolDiffAdded", "#4caf50"),
        "removed": _color(spec, "toolDiffRemoved", "#e05561"), "context": _color(spec, "toolDiffContext", "#888888"),
        "thinking": _color(spec, "thinkingText", "#888888"), "code": _color(spec, "mdCode", text),
        "heading": _color(spec, "mdHeading", text), "link": _color(spec, "mdLink", "#7aa2f7"),
        "custom": _color(spec, "customMessageBg", info), "label": _color(spec, "customMessageLabel", "#bb9af7"),
    }  # fmt: skip
    variables = "".join(f"--{name}:{value};" for name, value in colors.items())
    return (
        f":root{{{variables}}}"
        "*{box-sizing:border-box}"
        "body{margin:0;background:var(--page);color:var(--text);"
        "font:15px/1.55 -apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif}"
        "main,header,footer{max-width:920px;margin:0 auto;padding:0 16px}"
        "header{padding-top:24px}header h1{font-size:20px;margin:0 0 4px;color:var(--accent)}"
        ".meta,footer{color:var(--muted);font-size:13px}footer{padding:24px 16px}"
        ".msg{background:var(--card);border-radius:8px;padding:10px 14px;margin:12px 0}"
        ".msg.user{background:var(--user)}.msg.custom,.msg.summary{background:var(--custom)}"
        ".role{font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}"
        ".role .model{text-transform:none;font-weight:400}"
        ".label{color:var(--label);font-weight:600}"
        ".md h1,.md h2,.md h3,.md h4{color:var(--heading)}.md a{color:var(--link)}"
        ".md code{color:var(--code)}"
        "pre{background:rgba(127,127,127,.12);padding:8px 10px;border-radius:6px;overflow-x:auto;"
        "font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap}"
        ".md pre code{color:inherit}"
        "details{margin:8px 0}summary{cursor:pointer}"
        ".thinking{color:var(--thinking);font-style:italic}"
        ".tool{border-radius:6px;padding:6px 10px;background:var(--tool-ok)}"
        ".tool.error{background:var(--tool-err)}.tool.pending{background:var(--tool-pending)}"
        ".tool summary code{font-weight:600}"
        ".error-text{color:var(--error)}"
        ".add{color:var(--added)}.del{color:var(--removed)}.ctx{color:var(--context)}"
        "img{max-width:100%;border-radius:6px}"
    )


def _image(block: Mapping[str, object]) -> str:
    mime = str(block.get("mimeType", ""))
    data = str(block.get("data", ""))
    if mime not in _IMAGE_TYPES or not _BASE64_RE.match(data):
        return f'<p class="meta">[image: {_esc(mime)}]</p>'
    return f'<img alt="image" src="data:{mime};base64,{"".join(data.split())}">'


def _content(content: Any) -> str:
    if isinstance(content, str):
        return f'<div class="md">{_md(content)}</div>'
    parts: list[str] = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(f'<div class="md">{_md(str(block.get("text", "")))}</div>')
        elif block.get("type") == "image":
            parts.append(_image(block))
    return "".join(parts)


def _tool_summary(name: str, args: Mapping[str, object]) -> str:
    if name == "bash" and isinstance(args.get("command"), str):
        return f"$ {args['command']}"
    if name in ("read", "write", "edit", "ls") and isinstance(args.get("path"), str):
        return f"{name} {args['path']}"
    if name in ("grep", "find") and isinstance(args.get("pattern"), str):
        return f"{name} {args['pattern']}"
    return name


def _diff(diff: str) -> str:
    rows = []
    for line in sanitize(diff).split("\n"):
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
        rows.append(f'<span class="{css}">{_esc(line)}</span>')
    return "<pre>" + "\n".join(rows) + "</pre>"


def _tool_call(call: Mapping[str, object], result: Mapping[str, object] | None) -> str:
    name = str(call.get("name", ""))
    raw_args = call.get("arguments")
    args: Mapping[str, object] = raw_args if isinstance(raw_args, Mapping) else {}
    state = "pending" if result is None else "error" if result.get("isError") else "ok"
    body: list[str] = []
    if name not in ("bash", "read", "ls", "grep", "find", "edit"):  # their summary or diff says it all
        body.append(f"<pre>{_esc(json.dumps(args, indent=2, ensure_ascii=False, default=str))}</pre>")
    if result is not None:
        details = result.get("details")
        diff = details.get("diff") if isinstance(details, Mapping) else None
        if isinstance(diff, str) and diff and not result.get("isError"):
            body.append(_diff(diff))
        output = sanitize(content_text(result.get("content"), images=False))
        if output:
            css = ' class="error-text"' if result.get("isError") else ""
            body.append(f"<pre{css}>{_esc(output)}</pre>")
        body.extend(_image(b) for b in blocks(result.get("content")) if b.get("type") == "image")
    summary = f"<code>{_esc(_tool_summary(name, args))}</code>"
    return f'<details class="tool {state}"><summary>{summary}</summary>{"".join(body)}</details>'


def _assistant(message: Mapping[str, object], results: Mapping[str, Mapping[str, object]]) -> str:
    parts = [f'<div class="role">Assistant <span class="model">{_esc(message.get("model", ""))}</span></div>']
    for block in blocks(message.get("content")):
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            parts.append(f'<div class="md">{_md(str(block["text"]))}</div>')
        elif kind == "thinking" and str(block.get("thinking", "")).strip():
            parts.append('<details class="thinking"><summary>Thinking</summary>'
                         f'<div class="md">{_md(str(block["thinking"]))}</div></details>')  # fmt: skip
        elif kind == "toolCall":
            parts.append(_tool_call(block, results.get(str(block.get("id")))))
    if message.get("stopReason") == "error":
        parts.append(f'<p class="error-text">Error: {_esc(message.get("errorMessage") or "unknown error")}</p>')
    elif message.get("stopReason") == "aborted":
        parts.append('<p class="error-text">Operation aborted</p>')
    return f'<section class="msg assistant">{"".join(parts)}</section>'


def _message(message: Mapping[str, object], results: Mapping[str, Mapping[str, object]]) -> str:
    role = message.get("role")
    if role == "user":
        return f'<section class="msg user"><div class="role">User</div>{_content(message.get("content"))}</section>'
    if role == "assistant":
        return _assistant(message, results)
    if role == "bashExecution":
        code = message.get("exitCode")
        status = " (cancelled)" if message.get("cancelled") else f" (exit code {code})" if code not in (0, None) else ""
        output = _esc(sanitize(str(message.get("output") or "")))
        return (f'<section class="msg"><div class="role">Shell{_esc(status)}</div>'
                f'<pre>$ {_esc(message.get("command", ""))}\n{output}</pre></section>')  # fmt: skip
    if role == "custom" and message.get("display"):
        label = f'<span class="label">[{_esc(message.get("customType", ""))}]</span>'
        return f'<section class="msg custom">{label}{_content(message.get("content"))}</section>'
    if role in ("compactionSummary", "branchSummary"):
        label = "Compaction summary" if role == "compactionSummary" else "Branch summary"
        return (f'<section class="msg summary"><details><summary class="label">{label}</summary>'
                f'<div class="md">{_md(str(message.get("summary", "")))}</div></details></section>')  # fmt: skip
    return ""


def export_html(
    messages: Iterable[Mapping[str, object]],
    theme: ThemeSpec,
    *,
    title: str = "Session",
    session_id: str | None = None,
    cwd: str | None = None,
    generator: str = "pi-harness",
    exported_at: datetime | None = None,
) -> str:
    """The page as a string (write it with UTF-8)."""
    listed = list(messages)
    results = {str(m.get("toolCallId")): m for m in listed if m.get("role") == "toolResult"}
    body = "".join(_message(message, results) for message in listed)
    moment = (exported_at or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    meta = " · ".join(_esc(part) for part in (session_id, cwd) if part)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_css(theme)}</style></head><body>"
        f'<header><h1>{_esc(title)}</h1><div class="meta">{meta}</div></header>'
        f"<main>{body}</main>"
        f"<footer>Exported by {_esc(generator)} on {_esc(moment)}</footer>"
        "</body></html>\n"
    )


def default_export_name(session_id: str | None, now: datetime | None = None) -> str:
    """``pi-session-<id>.html`` (or a timestamp when the session has no id yet)."""
    stamp = session_id or (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return f"pi-session-{stamp}.html"
